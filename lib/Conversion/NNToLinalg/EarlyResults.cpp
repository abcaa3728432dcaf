//===- EarlyResults.cpp - Compute a function's results when they can be --===//
//
// A training step returns its new parameters, each computed by an
// element-wise update from the parameter and its gradient. The derivative
// produces every gradient before the step's own code begins, so the
// updates run after the whole backward pass, when the gradient computed
// first has long left the cache. Moved to right after the last definition
// of their operands, they read each gradient while it is still there.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISEARLYRESULTS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// True if `op` is an element-wise linalg op on tensors whose every result
/// only the block's return reads.
bool isReturnedElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  Operation *terminator = op->getBlock()->getTerminator();
  if (!isa<func::ReturnOp>(terminator))
    return false;
  return llvm::all_of(op->getUsers(),
                      [&](Operation *user) { return user == terminator; });
}

struct TrellisEarlyResultsPass
    : trellis::impl::TrellisEarlyResultsBase<TrellisEarlyResultsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isa<func::FuncOp>(op->getParentOp()) && isReturnedElementwise(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      Block *block = op->getBlock();
      // The inits this pass moves along: an empty tensor only `op` writes.
      SmallVector<Operation *> inits;
      for (Value init : op.getDpsInits())
        if (auto empty = init.getDefiningOp<tensor::EmptyOp>();
            empty && empty->getBlock() == block && empty->hasOneUse() &&
            empty->getNumOperands() == 0)
          inits.push_back(empty);
      // The last op of the block that defines another operand, or a value
      // the body reads from above.
      llvm::SetVector<Value> read(op->operand_begin(), op->operand_end());
      getUsedValuesDefinedAbove(op->getRegions(), read);
      Operation *last = nullptr;
      for (Value operand : read) {
        Operation *def = operand.getDefiningOp();
        if (!def || llvm::is_contained(inits, def))
          continue;
        Operation *inBlock = block->findAncestorOpInBlock(*def);
        if (inBlock && (!last || last->isBeforeInBlock(inBlock)))
          last = inBlock;
      }
      // With no operand defined in the block, the op goes first; its inits
      // right before it.
      if (last)
        op->moveAfter(last);
      else
        op->moveBefore(&block->front());
      for (Operation *init : inits)
        init->moveBefore(op);
    }
  }
};

} // namespace
