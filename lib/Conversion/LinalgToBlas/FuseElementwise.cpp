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

/// Fuses `operand`'s producer into its owner (or folds a reshape between
/// them) when the producer has one use and neither is a contraction.
bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  return producer && producer->hasOneUse() && !isContraction(producer) &&
         !isContraction(operand->getOwner());
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
