//===- OrientContractions.cpp - Short GEMMs computed as their transposes --===//
//
// A short GEMM that reads its right operand transposed, C = A·Bᵀ over a few
// rows (a dense layer's input gradient dY·Wᵀ over a batch of 64), runs on
// some hosts' libraries well below the plain product's rate. Its transpose
// Cᵀ = B·Aᵀ has the same operands; held transposed, C's users read Cᵀ
// instead: a linalg op through its indexing map, an element-wise op by
// iterating over the transposed domain and yielding its own result
// transposed. The next input gradient then reads its left operand
// transposed too, Aᵀ·Bᵀ, whose transpose B·A reads both plain. The rewrite
// is on tensors, where a value's users are all its readers.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseSet.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISORIENTCONTRACTIONS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// True if `value` is a statically shaped rank-2 tensor.
bool isMatrix(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 2 && type.hasStaticShape();
}

RankedTensorType getTransposedType(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                               type.getElementType());
}

/// `map` (of two results) reading the transposed tensor.
AffineMap swapResults(AffineMap map) {
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                        {map.getResult(1), map.getResult(0)}, map.getContext());
}

/// True if `use` is an input of a linalg op on tensors.
bool isLinalgInput(OpOperand &use) {
  auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return op && op.hasPureTensorSemantics() && op.isDpsInput(&use);
}

/// An element-wise linalg.generic that can iterate over the transposed
/// domain: two parallel loops, one init its body does not read under the
/// identity map, projected-permutation inputs, no linalg.index (whose
/// meaning would change), and a result only linalg ops read (so that its
/// transposed layout costs no copy).
bool isTurnable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 2 || op.getNumParallelLoops() != 2 ||
      !isMatrix(op->getResult(0)))
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps.back().isIdentity() || op.payloadUsesValueFromOperand(init))
    return false;
  if (!llvm::all_of(maps, [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return false;
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return false;
  return llvm::all_of(op->getResult(0).getUses(), isLinalgInput);
}

/// True if `op` is a 2-D contraction `out + a * b` on tensors whose init is
/// a linalg.fill, whose result map is (m, n) and which reads B transposed,
/// as (n, k).
bool isProductWithBTransposed(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() != 3)
    return false;
  FailureOr<trellis::GemmDims> dims = trellis::matchGemm(op);
  if (failed(dims) || !dims->batch.empty() ||
      !op.getDpsInits()[0].getDefiningOp<linalg::FillOp>())
    return false;
  MLIRContext *context = op.getContext();
  auto is = [&](AffineMap map, unsigned first, unsigned second) {
    return map.getNumResults() == 2 &&
           map.getResult(0) == getAffineDimExpr(first, context) &&
           map.getResult(1) == getAffineDimExpr(second, context);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return is(maps[2], dims->m, dims->n) && is(maps[1], dims->n, dims->k);
}

/// How many rows of an operand read across its rows a turned element-wise
/// op's inner loop spans. Rows of a power-of-two length map to one set of
/// the L1 cache: an inner loop over all 64 rows of a 64×1024 activation
/// missed on every read (ReLU's VJP 0.17 ms instead of 0.035 on Zen 5,
/// whose L1 has 12 ways); eight rows stay in the cache while the next
/// fifteen columns read the same lines.
constexpr int64_t kRowsPerTile = 8;

struct Orienter {
  RewriterBase &rewriter;
  /// The contractions this pass made (they are not transposed back).
  llvm::DenseSet<Operation *> made;

  /// Replaces every use of `value` by a read of `transposed` (its
  /// transpose), then erases nothing: the caller erases `value`'s op.
  void replaceByTransposed(Value value, Value transposed);
  /// `op` (isTurnable) over the transposed domain, reading `transposed` for
  /// each operand that was `value`.
  void turn(linalg::GenericOp op, Value value, Value transposed);
  /// Tiles `op`'s inner loop by kRowsPerTile if it reads an operand across
  /// its rows; returns its result (the tiled loop's).
  Value tileAcrossRows(linalg::GenericOp op);
  /// Computes `op` (a short GEMM) as its transpose.
  void transposeContraction(linalg::LinalgOp op);
};

void Orienter::replaceByTransposed(Value value, Value transposed) {
  Value copy;
  while (!value.use_empty()) {
    OpOperand &use = *value.getUses().begin();
    Operation *owner = use.getOwner();
    if (isLinalgInput(use)) {
      auto generic = dyn_cast<linalg::GenericOp>(owner);
      if (generic && isTurnable(generic)) {
        turn(generic, value, transposed);
        continue;
      }
      unsigned number = use.getOperandNumber();
      if (!generic) {
        rewriter.setInsertionPoint(owner);
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(owner));
        if (failed(generalized)) {
          owner->emitError("cannot read a transposed operand");
          return;
        }
        generic = *generalized;
      }
      OpOperand &operand = generic->getOpOperand(number);
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      maps[number] = swapResults(maps[number]);
      rewriter.modifyOpInPlace(generic, [&] {
        generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        operand.set(transposed);
      });
      continue;
    }
    // Anything else reads one materialized transpose.
    if (!copy) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(transposed);
      Location loc = transposed.getLoc();
      auto type = cast<RankedTensorType>(value.getType());
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      copy = linalg::TransposeOp::create(rewriter, loc, transposed, empty,
                                         ArrayRef<int64_t>{1, 0})
                 ->getResult(0);
    }
    rewriter.modifyOpInPlace(owner, [&] { use.set(copy); });
  }
}

void Orienter::turn(linalg::GenericOp op, Value value, Value transposed) {
  MLIRContext *context = op.getContext();
  // New loops (p, q) are the old (j, i): old loop indices as new ones.
  AffineMap swap = AffineMap::get(
      2, 0, {getAffineDimExpr(1, context), getAffineDimExpr(0, context)},
      context);
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input).compose(swap);
    if (input->get() == value) {
      inputs.push_back(transposed);
      maps.push_back(swapResults(map));
    } else {
      inputs.push_back(input->get());
      maps.push_back(map);
    }
  }
  // The result, held transposed, is written in the new loops' order.
  maps.push_back(AffineMap::getMultiDimIdentityMap(2, context));
  rewriter.setInsertionPoint(op);
  Value result = op->getResult(0);
  RankedTensorType type = getTransposedType(result);
  Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                        type.getElementType());
  auto turned = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{type}, inputs, ValueRange{empty}, maps,
      op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), turned.getRegion(),
                              turned.getRegion().end());
  Value replacement = tileAcrossRows(turned);
  replaceByTransposed(result, replacement);
  Value init = op.getDpsInits()[0];
  rewriter.eraseOp(op);
  if (Operation *def = init.getDefiningOp())
    trellis::eraseWithDeadFillChain(rewriter, def);
}

Value Orienter::tileAcrossRows(linalg::GenericOp op) {
  // Only an op that reads an operand across its rows (a map (q, p) under
  // loops (p, q)) strides by a row in its inner loop.
  AffineMap across = AffineMap::get(2, 0,
                                    {getAffineDimExpr(1, op.getContext()),
                                     getAffineDimExpr(0, op.getContext())},
                                    op.getContext());
  int64_t columns =
      cast<RankedTensorType>(op->getResult(0).getType()).getDimSize(1);
  if (columns <= kRowsPerTile ||
      !llvm::any_of(op.getIndexingMapsArray(),
                    [&](AffineMap map) { return map == across; }))
    return op->getResult(0);
  scf::SCFTilingOptions options;
  options.setTileSizes(
      {rewriter.getIndexAttr(0), rewriter.getIndexAttr(kRowsPerTile)});
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return op->getResult(0);
  Value replacement = tiled->replacements[0];
  rewriter.replaceOp(op, replacement);
  return replacement;
}

void Orienter::transposeContraction(linalg::LinalgOp op) {
  FailureOr<trellis::GemmDims> dims = trellis::matchGemm(op);
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *context = op.getContext();
  // Same loops, inputs swapped (the BLAS's M is the first input's), the
  // result written as (n, m).
  AffineMap result = AffineMap::get(
      3, 0,
      {getAffineDimExpr(dims->n, context), getAffineDimExpr(dims->m, context)},
      context);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  RankedTensorType type = getTransposedType(op->getResult(0));
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  Value zero = linalg::FillOp::create(rewriter, fill.getLoc(),
                                      fill.getDpsInputs()[0], empty)
                   .getResult(0);
  Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
  auto transposed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{b, a}, ValueRange{zero},
      ArrayRef<AffineMap>{maps[1], maps[0], result}, op.getIteratorTypesArray(),
      [](OpBuilder &builder, Location loc, ValueRange args) {
        Value product = arith::MulFOp::create(builder, loc, args[0], args[1]);
        Value sum = arith::AddFOp::create(builder, loc, args[2], product);
        linalg::YieldOp::create(builder, loc, sum);
      });
  made.insert(transposed);
  replaceByTransposed(op->getResult(0), transposed->getResult(0));
  rewriter.eraseOp(op);
  trellis::eraseWithDeadFillChain(rewriter, fill);
}

/// A short f32 GEMM this pass computes as its transpose: M at most
/// kShortGemmM rows against more columns, B read transposed (its transpose
/// reads A's operand plain if A was read transposed, and keeps the form
/// otherwise, but leaves its result transposed for the next product).
bool isCandidate(linalg::LinalgOp op) {
  if (!isProductWithBTransposed(op) || !isMatrix(op->getResult(0)))
    return false;
  // The measurement that turns the pass on times f32 GEMMs.
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.getElementType().isF32())
    return false;
  return type.getDimSize(0) <= trellis::kShortGemmM &&
         type.getDimSize(1) > trellis::kShortGemmM;
}

struct TrellisOrientContractionsPass
    : trellis::impl::TrellisOrientContractionsBase<
          TrellisOrientContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!transposeShort)
      return;
    IRRewriter rewriter(&getContext());
    Orienter orienter{rewriter, {}};
    // One at a time, in program order: transposing a product makes the
    // next one read a transposed operand, which decides its own form.
    while (true) {
      linalg::LinalgOp next;
      getOperation()->walk([&](linalg::LinalgOp op) {
        if (!orienter.made.contains(op) && isCandidate(op)) {
          next = op;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (!next)
        break;
      orienter.transposeContraction(next);
    }
  }
};

} // namespace
