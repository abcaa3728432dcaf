//===- Remat.cpp - Rematerialisation policies for layer chains -----------===//
//
// Wraps segments of a differentiated function's layer chain in ad.checkpoint
// regions, so that ad-differentiate stores only segment outputs and
// recomputes the rest (see dialects/AD/Passes.td for the policies).
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace trellis::ad {
#define GEN_PASS_DEF_ADREMAT
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"
} // namespace trellis::ad

using namespace mlir;
using namespace trellis::ad;

namespace {

/// Bytes of the float tensors `op` produces; 0 for what is not a layer.
int64_t layerBytes(Operation &op) {
  if (isa<arith::ConstantOp, tensor::EmptyOp, linalg::FillOp>(op) ||
      op.hasTrait<OpTrait::IsTerminator>())
    return 0;
  int64_t bytes = 0;
  for (Type t : op.getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      if (isa<FloatType>(tensor.getElementType()) && tensor.hasStaticShape())
        bytes += tensor.getNumElements() *
                 tensor.getElementType().getIntOrFloatBitWidth() / 8;
  return bytes;
}

/// Moves the ops [first, last] of a block into an ad.checkpoint that yields
/// the values used after it.
void wrapSegment(Operation *first, Operation *last) {
  Block *block = first->getBlock();
  SmallVector<Operation *> ops;
  for (auto it = first->getIterator();; ++it) {
    ops.push_back(&*it);
    if (&*it == last)
      break;
  }
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> escaping;
  for (Operation *op : ops)
    for (Value v : op->getResults())
      for (Operation *user : v.getUsers())
        if (!inside.contains(block->findAncestorOpInBlock(*user))) {
          escaping.insert(v);
          break;
        }
  if (escaping.empty())
    return;
  OpBuilder b(first);
  auto checkpoint = CheckpointOp::create(
      b, first->getLoc(), ValueRange(escaping.getArrayRef()).getTypes(),
      ValueRange{}, b.getStringAttr("remat"));
  Block *body = b.createBlock(&checkpoint.getBody());
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, first->getLoc(), escaping.getArrayRef());
  for (auto [v, r] : llvm::zip(escaping, checkpoint.getResults()))
    Value(v).replaceUsesWithIf(r, [&](OpOperand &use) {
      return !checkpoint->isProperAncestor(use.getOwner());
    });
}

struct ADRematPass : trellis::ad::impl::ADRematBase<ADRematPass> {
  using Base::Base;

  void runOnOperation() override {
    if (policy == "store")
      return;
    if (policy != "every" && policy != "budget") {
      getOperation().emitError("ad-remat: unknown policy '")
          << policy << "' (expected store, every or budget)";
      return signalPassFailure();
    }
    if (policy == "every" && every < 1) {
      getOperation().emitError("ad-remat: every must be at least 1");
      return signalPassFailure();
    }
    SymbolTable symbols(getOperation());
    llvm::SetVector<func::FuncOp> callees;
    getOperation().walk([&](Operation *op) {
      if (isa<GradOp, ValueAndGradOp, VJPOp>(op))
        if (auto fn = symbols.lookup<func::FuncOp>(
                op->getAttrOfType<FlatSymbolRefAttr>("callee").getValue()))
          callees.insert(fn);
    });
    for (func::FuncOp fn : callees)
      if (!fn.isExternal() && fn.getBody().hasOneBlock())
        rematerialize(fn);
  }

  void rematerialize(func::FuncOp fn) {
    SmallVector<Operation *> layers;
    SmallVector<int64_t> sizes;
    for (Operation &op : fn.getBody().front())
      if (int64_t bytes = layerBytes(op)) {
        layers.push_back(&op);
        sizes.push_back(bytes);
      }
    int64_t n = layers.size();
    if (n < 2)
      return;
    int64_t k = every.getValue();
    if (policy == "budget") {
      int64_t total = 0;
      for (int64_t s : sizes)
        total += s;
      if (total <= budget) {
        mlir::emitRemark(fn.getLoc(), "ad-remat: activations (")
            << total << " bytes) fit in the budget of " << budget.getValue()
            << " bytes; all stored";
        return;
      }
      // Estimated peak with segments of k layers: every segment's last
      // output stored, plus the largest segment's internals while it is
      // recomputed.
      int64_t bestK = 1, bestPeak = total;
      for (int64_t cand = 2; cand <= n; ++cand) {
        int64_t stored = 0, largest = 0;
        for (int64_t start = 0; start < n; start += cand) {
          int64_t end = std::min(n, start + cand), segment = 0;
          for (int64_t i = start; i < end; ++i)
            segment += sizes[i];
          stored += sizes[end - 1];
          largest = std::max(largest, segment);
        }
        if (stored + largest < bestPeak) {
          bestPeak = stored + largest;
          bestK = cand;
        }
      }
      if (bestK == 1) {
        mlir::emitRemark(fn.getLoc(),
                         "ad-remat: no segment length lowers the estimated "
                         "activation peak below storing everything (")
            << total << " bytes), which is above the budget of "
            << budget.getValue() << " bytes; all stored";
        return;
      }
      mlir::emitRemark(fn.getLoc(), "ad-remat: checkpointing every ")
          << bestK << " layers; estimated activation peak " << bestPeak
          << " bytes " << (bestPeak <= budget ? "within" : "ABOVE")
          << " the budget of " << budget.getValue()
          << " (all stored: " << total << ")";
      k = bestK;
    }
    if (k <= 1)
      return;
    for (int64_t start = 0; start < n; start += k)
      wrapSegment(layers[start], layers[std::min(n, start + k) - 1]);
  }
};

} // namespace
