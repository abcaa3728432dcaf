//===- BuildInverse.cpp - Inverse functions of invertible computations ---===//
//
// @f(x..., params...) -> y...  with y the results of one invertible op (or of
// a loop of invertible steps) applied to x  ==>  @f__inverse(y..., params...)
// -> x_rec..., built with InvertibleOpInterface::reverseFromOutputs — the
// reconstruction the reverse sweep runs — so x_rec − x measures its drift.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/AD/Transforms/Differentiator.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace trellis::ad {
#define GEN_PASS_DEF_ADBUILDINVERSE
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"
} // namespace trellis::ad

using namespace mlir;
using namespace trellis::ad;

namespace {

/// The invertible op or loop producing all of `fn`'s results from its
/// leading arguments, or null.
Operation *findInvertible(func::FuncOp fn) {
  if (!fn.getBody().hasOneBlock())
    return nullptr;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  Operation *def = ret.getNumOperands() ? ret.getOperand(0).getDefiningOp()
                                        : nullptr;
  if (!def || ValueRange(def->getResults()) != ret.getOperands())
    return nullptr;
  ValueRange state = isa<scf::ForOp>(def)
                         ? ValueRange(cast<scf::ForOp>(def).getInitArgs())
                         : ValueRange(def->getOperands());
  if (state != fn.getArguments().take_front(state.size()))
    return nullptr;
  // An op returning layer state besides its chain (batch norm in a RevNet
  // block) is not a bijection of the function's results.
  if (auto step = dyn_cast<InvertibleOpInterface>(def))
    return step.getNumStateResults() == 0 ? def : nullptr;
  if (auto loop = dyn_cast<scf::ForOp>(def)) {
    Block &body = *loop.getBody();
    for (Operation &op : body.without_terminator())
      if (auto step = dyn_cast<InvertibleOpInterface>(op))
        if (step->getOperands() == ValueRange(loop.getRegionIterArgs()) &&
            body.getTerminator()->getOperands() ==
                ValueRange(step->getResults()) &&
            loop.getStaticTripCount())
          return def;
  }
  return nullptr;
}

/// Reconstructs the inputs of `op` (cloned from `fn`) from `outputs`; values
/// `fn` defines are found through `mapping`.
FailureOr<SmallVector<Value>> invert(OpBuilder &b, Operation *op,
                                     ValueRange outputs, IRMapping &mapping) {
  SmallVector<Value> nulls(outputs.size(), Value());
  ReverseSweep sweep;
  SmallVector<Value> inputs, cotangents;
  if (auto step = dyn_cast<InvertibleOpInterface>(op)) {
    if (failed(step.reverseFromOutputs(b, sweep, outputs, nulls, &mapping,
                                       inputs, cotangents)))
      return failure();
    return inputs;
  }
  auto loop = cast<scf::ForOp>(op);
  Location loc = loop.getLoc();
  int64_t count = loop.getStaticTripCount()->getSExtValue();
  ReverseLoop rl = buildReverseLoop(
      b, loc, count, mapping.lookupOrDefault(loop.getLowerBound()),
      mapping.lookupOrDefault(loop.getStep()), outputs);
  scf::ForOp reverse = rl.loop;
  OpBuilder &nb = rl.body;
  Value iv = rl.iv;
  IRMapping inner = mapping;
  inner.map(loop.getInductionVar(), iv);
  InvertibleOpInterface step;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto s = dyn_cast<InvertibleOpInterface>(op))
      step = s;
    else
      nb.clone(op, inner);
  }
  SmallVector<Value> stepNulls(outputs.size(), Value());
  if (failed(step.reverseFromOutputs(nb, sweep, reverse.getRegionIterArgs(),
                                     stepNulls, &inner, inputs, cotangents)))
    return failure();
  scf::YieldOp::create(nb, loc, inputs);
  return SmallVector<Value>(reverse.getResults());
}

struct ADBuildInversePass
    : trellis::ad::impl::ADBuildInverseBase<ADBuildInversePass> {
  void runOnOperation() override {
    SmallVector<std::pair<func::FuncOp, Operation *>> work;
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (Operation *op = findInvertible(fn))
        work.emplace_back(fn, op);
    for (auto [fn, op] : work) {
      remarkOnReconstructionDrift(op);
      // A declaration of the inverse (to call it before it exists) gets
      // the body; otherwise the function is created.
      std::string name = (fn.getSymName() + "__inverse").str();
      auto inverse = getOperation().lookupSymbol<func::FuncOp>(name);
      if (inverse && (!inverse.isExternal() ||
                      inverse.getFunctionType() != fn.getFunctionType())) {
        inverse.emitOpError("ad-build-inverse: expected a declaration of "
                            "type ")
            << fn.getFunctionType();
        return signalPassFailure();
      }
      if (!inverse) {
        OpBuilder b(fn);
        b.setInsertionPointAfter(fn);
        inverse = func::FuncOp::create(b, fn.getLoc(), name,
                                       fn.getFunctionType());
      } else {
        inverse.setVisibility(fn.getVisibility());
      }
      Block *entry = inverse.addEntryBlock();
      OpBuilder ib = OpBuilder::atBlockEnd(entry);
      // Everything the computation reads besides its state: recompute it.
      IRMapping mapping;
      mapping.map(fn.getArguments(), entry->getArguments());
      for (Operation &other : fn.getBody().front().without_terminator())
        if (&other != op)
          ib.clone(other, mapping);
      unsigned numState = op->getNumResults();
      FailureOr<SmallVector<Value>> inputs =
          invert(ib, op, entry->getArguments().take_front(numState), mapping);
      if (failed(inputs))
        return signalPassFailure();
      // Same signature as @f: the reconstructed state comes back first,
      // the untouched parameters after it.
      SmallVector<Value> results(*inputs);
      func::ReturnOp::create(ib, fn.getLoc(), results);
    }
    // The reconstruction's recomputations went through barriers.
    removeBarriers(getOperation());
  }
};

} // namespace
