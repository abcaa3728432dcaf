//===- PrepareContractions.cpp - Ready tensor contractions for a BLAS -----===//
//
// Two rewrites on tensors, before bufferization, where SSA makes them safe
// without alias analysis:
//
//  * a transpose feeding a contraction is folded into the contraction's
//    indexing map, so the BLAS reads the source with Trans instead of the
//    program materializing the transposed copy;
//  * a contraction initialized by a zero fill gets a fill of its own right
//    before it, so that after bufferization the fill and the contraction are
//    adjacent on one buffer and convert-linalg-to-blas can turn the pair into
//    one call with beta = 0 (instead of copying a shared zero buffer);
//  * so does every other linalg op that accumulates onto a fill (its body
//    reads the init: the row reductions of layer_norm, softmax and their
//    VJPs, contractions left to the loops), also when a reshape sits between
//    the fill and the op. Such ops often share one filled tensor (CSE
//    merges the fills), and bufferization would give each a copy of it (a
//    read and a write of the buffer, where a fill is only a write).
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISPREPARECONTRACTIONS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// If `value` is the result of a pure permutation copy on tensors (a
/// linalg.transpose, or any linalg op with one input and one init, parallel
/// loops, permutation maps and a body that yields the input), returns the
/// map from the copy's result indices to its source indices.
std::optional<AffineMap> getPermutationSource(Value value, Value &source) {
  auto copy = value.getDefiningOp<linalg::LinalgOp>();
  if (!copy || !copy.hasPureTensorSemantics() || copy.getNumDpsInputs() != 1 ||
      copy.getNumDpsInits() != 1 ||
      copy.getNumParallelLoops() != copy.getNumLoops() ||
      copy->getNumRegions() != 1 || copy->getRegion(0).empty())
    return std::nullopt;
  Block &body = *copy.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!llvm::hasSingleElement(body) || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return std::nullopt;
  AffineMap inMap = copy.getIndexingMapsArray()[0];
  AffineMap outMap = copy.getIndexingMapsArray()[1];
  if (!inMap.isPermutation() || !outMap.isPermutation())
    return std::nullopt;
  source = copy.getDpsInputs()[0];
  // result index -> loop -> source index.
  return inMap.compose(inversePermutation(outMap));
}

/// Folds permutation copies that feed the inputs of `op` into its indexing
/// maps. Returns the op now computing the contraction (a linalg.generic if
/// anything was folded).
linalg::LinalgOp foldTransposedInputs(RewriterBase &rewriter,
                                      linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs(op.getDpsInputs());
  bool changed = false;
  for (unsigned i = 0; i < 2; ++i) {
    Value source;
    std::optional<AffineMap> toSource = getPermutationSource(inputs[i], source);
    if (!toSource)
      continue;
    maps[i] = toSource->compose(maps[i]);
    inputs[i] = source;
    changed = true;
  }
  if (!changed)
    return op;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op;
    generic = *generalized;
  }
  rewriter.modifyOpInPlace(generic, [&] {
    generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    generic.getDpsInputOperand(0)->set(inputs[0]);
    generic.getDpsInputOperand(1)->set(inputs[1]);
  });
  return generic;
}

/// The linalg.fill (on tensors) that produces `value`, possibly through
/// reshapes (which keep a fill a fill), or null.
linalg::FillOp getFillThroughReshapes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto fill = dyn_cast<linalg::FillOp>(def))
      return fill.hasPureTensorSemantics() ? fill : nullptr;
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

/// Gives `use` (an init its owner accumulates onto) a fill of its own,
/// directly before the owner, when it is a linalg.fill result (possibly
/// reshaped) that is shared or computed elsewhere.
void ownFill(RewriterBase &rewriter, OpOperand &use) {
  Value value = use.get();
  Operation *owner = use.getOwner();
  linalg::FillOp fill = getFillThroughReshapes(value);
  if (!fill)
    return;
  if (value == fill.getResult(0) && fill->hasOneUse() &&
      fill->getNextNode() == owner)
    return;
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    return;
  rewriter.setInsertionPoint(owner);
  Value empty = tensor::EmptyOp::create(rewriter, fill.getLoc(),
                                        type.getShape(), type.getElementType());
  Value own = linalg::FillOp::create(rewriter, fill.getLoc(),
                                     fill.getDpsInputs()[0], empty)
                  .getResult(0);
  rewriter.modifyOpInPlace(owner, [&] { use.set(own); });
  if (Operation *def = value.getDefiningOp())
    trellis::eraseWithDeadFillChain(rewriter, def);
}

struct TrellisPrepareContractionsPass
    : trellis::impl::TrellisPrepareContractionsBase<
          TrellisPrepareContractionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && succeeded(trellis::matchGemm(op)))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> maybeDead;
    for (linalg::LinalgOp op : contractions) {
      for (Value input : op.getDpsInputs())
        if (Operation *def = input.getDefiningOp())
          maybeDead.push_back(def);
      linalg::LinalgOp folded = foldTransposedInputs(rewriter, op);
      ownFill(rewriter, *folded.getDpsInitOperand(0));
    }
    // Transposes whose every use was folded (and their tensor.empty).
    for (unsigned i = 0; i < maybeDead.size(); ++i) {
      Operation *def = maybeDead[i];
      if (!def || !def->use_empty() ||
          !isa<linalg::LinalgOp, tensor::EmptyOp>(def))
        continue;
      if (auto copy = dyn_cast<linalg::LinalgOp>(def);
          copy && !copy.hasPureTensorSemantics())
        continue;
      for (Value operand : def->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          maybeDead.push_back(producer);
      // The same op can be queued twice (two contractions read it).
      for (unsigned j = i + 1; j < maybeDead.size(); ++j)
        if (maybeDead[j] == def)
          maybeDead[j] = nullptr;
      rewriter.eraseOp(def);
    }
    // Every other linalg op whose body reads a fill-initialized init
    // (accumulates onto it), once the transposes are gone. (Not loops that
    // carry a shared fill as iter_args: with those uses gone, a fill that is
    // also the destination of an insert_slice inside the loop gets written
    // in place by eliminate-empty-tensors + one-shot-bufferize, which is
    // wrong from the second iteration on; see docs/performance.md.)
    SmallVector<OpOperand *> accumulated;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || isa<linalg::FillOp>(op))
        return;
      for (OpOperand &init : op.getDpsInitsMutable())
        if (op.payloadUsesValueFromOperand(&init))
          accumulated.push_back(&init);
    });
    for (OpOperand *use : accumulated)
      ownFill(rewriter, *use);
  }
};

} // namespace
