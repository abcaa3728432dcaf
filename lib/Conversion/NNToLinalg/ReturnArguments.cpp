//===- ReturnArguments.cpp - Return an updated argument's own buffer ------===//
//
// A step that updates a parameter in place returns the parameter's buffer.
// The ownership-based deallocation pipeline returns only buffers the
// function owns, so it clones an argument it returns: a copy of the whole
// weight after the update wrote it. The host owns the arguments' buffers and
// frees only those the compiled code allocated (docs/embedding.md), so an
// entry function can return its argument itself.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace trellis {
#define GEN_PASS_DEF_TRELLISRETURNARGUMENTS
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;

namespace {

/// The buffer `value` is a view of: the source through view-like ops.
Value getViewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True if `op` may write or free `buffer` (or memory it cannot name).
bool mayWriteOrFree(Operation *op, Value buffer) {
  if (isa<bufferization::CloneOp>(op) || isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](MemoryEffects::EffectInstance &effect) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
      return false;
    Value value = effect.getValue();
    return !value || getViewRoot(value) == buffer;
  });
}

/// True if `from` and `to` are in one block and nothing between them may
/// write or free `buffer`, so that what `from` copied of it is still there
/// at `to`.
bool unchangedBetween(Value buffer, Operation *from, Operation *to) {
  if (from->getBlock() != to->getBlock())
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode())
    if (mayWriteOrFree(op, buffer))
      return false;
  return true;
}

struct TrellisReturnArgumentsPass
    : trellis::impl::TrellisReturnArgumentsBase<TrellisReturnArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      // Only the host calls an entry: a caller in the module would own (and
      // free) what it returns.
      if (!func.isPublic() || func.isExternal() ||
          !SymbolTable::symbolKnownUseEmpty(func, module))
        continue;
      Block &entry = func.getBody().front();
      func.walk([&](func::ReturnOp ret) {
        for (OpOperand &operand : ret->getOpOperands()) {
          auto clone = operand.get().getDefiningOp<bufferization::CloneOp>();
          if (!clone || !clone->hasOneUse())
            continue;
          auto arg = dyn_cast<BlockArgument>(clone.getInput());
          if (!arg || arg.getOwner() != &entry ||
              arg.getType() != clone.getType() ||
              !unchangedBetween(arg, clone, ret))
            continue;
          operand.set(arg);
          clone.erase();
        }
      });
    }
  }
};

} // namespace
