//===- FuseElementwise.cpp - Elementwise fusion that keeps GEMMs whole ----===//
//
// The patterns of upstream `linalg-fuse-elementwise-ops`, run under a control
// function that refuses any fusion involving a contraction, so that the
// contractions reach convert-linalg-to-blas in the shape it hands to a GEMM.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISFUSEELEMENTWISE
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// A linalg op whose body is a multiply-accumulate over reduction loops.
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// A linalg op that only permutes its one input (linalg.transpose, or a
/// generic yielding its input under a permuted indexing map).
bool isTranspose(Operation *op) {
  if (isa_and_nonnull<linalg::TransposeOp>(op))
    return true;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() > 0)
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  AffineMap inputMap = generic.getIndexingMapsArray().front();
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0) &&
         inputMap.isPermutation() && !inputMap.isIdentity();
}

bool isReshape(Operation *op) {
  return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// The ops (terminators included) of `op`'s body if it is a linalg op, else
/// 0.
size_t getBodySize(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp ? linalgOp.getBlock()->getOperations().size() : 0;
}

/// Fuses `operand`'s producer into its owner (or folds a reshape between
/// them) when the producer has one use, neither is a contraction and the
/// fused body would have at most kMaxFusedBodyOps ops. (Every fusion clones
/// both bodies into a new op: a chain of n elementwise ops fused without a
/// bound took time quadratic in n, 31 s for 4,000 ops.) A
/// reshape is not folded into a transpose: the 2-D transpose of a
/// collapsed activation (a dense layer's weight gradient `Xᵀ·dY` over a
/// batch of sequences) would become a 3-D permutation and then a copy,
/// which trellis-prepare-contractions can no longer fold into the GEMM
/// (8 MiB moved per feed-forward layer and step, 11 ms in the Transformer
/// LM step of bench/transformer_lm.py).
bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  Operation *owner = operand->getOwner();
  if ((isReshape(producer) && isTranspose(owner)) ||
      (isTranspose(producer) && isReshape(owner)))
    return false;
  return producer && producer->hasOneUse() && !isContraction(producer) &&
         !isContraction(owner) &&
         trellis::fusedBodyFits(getBodySize(producer), getBodySize(owner));
}

struct TrellisFuseElementwisePass
    : trellis::impl::TrellisFuseElementwiseBase<TrellisFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, shouldFuse);
    linalg::populateConstantFoldLinalgOperations(patterns, shouldFuse);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(patterns),
            GreedyRewriteConfig().setUseTopDownTraversal())))
      signalPassFailure();
  }
};

} // namespace
