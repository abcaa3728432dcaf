//===- ChooseDestinations.cpp - Destinations that live no longer ----------===//
//
// trellis-choose-destinations (dialects/Conversion/Passes.td): before
// bufferization, an element-wise op writes over an operand that dies there,
// and every other writer of a shared tensor.empty gets one of its own right
// before it, so that no buffer is held between unrelated writers.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISCHOOSEDESTINATIONS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// True if nothing reads `value` after `op` (an op of `value`'s block):
/// every user, or the user's ancestor in that block, is `op` or before it,
/// and so are the users of the reshapes and slices that view `value`.
bool diesAt(Value value, Operation *op) {
  Block *block = op->getBlock();
  for (Operation *user : value.getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || (top != op && !top->isBeforeInBlock(op)))
      return false;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
            tensor::ExtractSliceOp, tensor::CastOp>(user) &&
        !diesAt(user->getResult(0), op))
      return false;
  }
  return true;
}

/// The tensor whose buffer `value` is, through the reshapes of `block`
/// that view it (a GEMM's 2-d result reshaped to its layer's shape).
Value reshapedRoot(Value value, Block *block) {
  while (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() != block ||
        !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// For an element-wise `generic` writing a new empty tensor it does not
/// read: an input of the result's type and indexing map, produced by a
/// linalg op of the same block (directly or through reshapes of its
/// result), not already another destination of it, whose buffer dies at
/// `generic` and is read by it as that input under that map only; else
/// null.
Value dyingOperand(linalg::GenericOp generic, OpOperand &init) {
  if (generic.getNumReductionLoops() ||
      !init.get().getDefiningOp<tensor::EmptyOp>() ||
      !generic.getMatchingBlockArgument(&init).use_empty())
    return {};
  AffineMap map = generic.getMatchingIndexingMap(&init);
  Block *block = generic->getBlock();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Value value = input->get();
    Value root = reshapedRoot(value, block);
    auto producer = root.getDefiningOp<linalg::LinalgOp>();
    if (value.getType() != init.get().getType() || !producer ||
        producer->getBlock() != block ||
        llvm::is_contained(generic.getDpsInits(), value))
      continue;
    // Read as `value` under the result's map only, not through another
    // view of the same buffer.
    bool sameMap = llvm::all_of(generic->getOpOperands(), [&](OpOperand &o) {
      return reshapedRoot(o.get(), block) != root ||
             (o.get() == value && generic.getMatchingIndexingMap(&o) == map);
    });
    if (sameMap && diesAt(root, generic))
      return value;
  }
  return {};
}

struct TrellisChooseDestinationsPass
    : trellis::impl::TrellisChooseDestinationsBase<
          TrellisChooseDestinationsPass> {
  void runOnOperation() override {
    llvm::SetVector<Operation *> replaced;
    getOperation()->walk([&](linalg::GenericOp generic) {
      for (OpOperand &init : generic.getDpsInitsMutable())
        if (Value operand = dyingOperand(generic, init)) {
          replaced.insert(init.get().getDefiningOp());
          init.set(operand);
        }
    });
    for (Operation *empty : replaced)
      if (empty->use_empty())
        empty->erase();
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      // The uses by each op of the empty's block (its own or in its
      // regions): one clone each, right before the op.
      Block *block = empty->getBlock();
      llvm::MapVector<Operation *, SmallVector<OpOperand *>> byUser;
      for (OpOperand &use : empty->getUses())
        if (Operation *user = block->findAncestorOpInBlock(*use.getOwner()))
          byUser[user].push_back(&use);
      OpBuilder builder(empty);
      for (auto &[user, uses] : byUser) {
        builder.setInsertionPoint(user);
        Operation *clone = builder.clone(*empty);
        for (OpOperand *use : uses)
          use->set(clone->getResult(0));
      }
      if (empty->use_empty())
        empty->erase();
    }
  }
};

} // namespace
