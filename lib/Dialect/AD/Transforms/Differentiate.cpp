//===- Differentiate.cpp - The ad-differentiate pass ----------------------===//

#include "trellis/Dialect/AD/IR/AD.h"
#include "trellis/Dialect/AD/Transforms/Differentiator.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace trellis::ad {
#define GEN_PASS_DEF_ADDIFFERENTIATE
#include "trellis/Dialect/AD/Transforms/Passes.h.inc"
} // namespace trellis::ad

using namespace mlir;
using namespace trellis::ad;

namespace {

/// Whether `fn` or a function it calls holds an ad op still to be lowered.
bool reachesADOps(func::FuncOp fn, SymbolTable &symbols,
                  llvm::DenseSet<Operation *> &visited) {
  if (!visited.insert(fn).second)
    return false;
  bool found = false;
  fn.walk([&](Operation *op) {
    if (isa<DerivativeOpInterface>(op)) {
      found = true;
      return WalkResult::interrupt();
    }
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
        if (reachesADOps(callee, symbols, visited)) {
          found = true;
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return found;
}

/// Replaces each ad.checkpoint by its body (identity semantics): once the
/// reverse sweep has its own recomputation, the forward needs no region.
void inlineCheckpoints(Operation *root) {
  // Post-order: inner checkpoints are inlined into their parent's body
  // before the parent itself is inlined.
  SmallVector<CheckpointOp> checkpoints;
  root->walk([&](CheckpointOp op) { checkpoints.push_back(op); });
  for (CheckpointOp op : checkpoints) {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    IRMapping mapping;
    mapping.map(body.getArguments(), op.getInputs());
    OpBuilder b(op);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    SmallVector<Value> results;
    for (Value v : yield.getValues())
      results.push_back(mapping.lookupOrDefault(v));
    op.replaceAllUsesWith(results);
    op.erase();
  }
}

struct ADDifferentiatePass
    : trellis::ad::impl::ADDifferentiateBase<ADDifferentiatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringMap<func::FuncOp> cache;
    SmallVector<func::FuncOp> generated;

    // Innermost first: an ad op is lowered once its callee reaches no other
    // ad op, so gradients of functions that take gradients work.
    while (true) {
      SmallVector<DerivativeOpInterface> pending;
      module.walk([&](DerivativeOpInterface op) { pending.push_back(op); });
      if (pending.empty())
        break;
      bool progress = false;
      for (DerivativeOpInterface op : pending) {
        auto callee =
            symbols.lookup<func::FuncOp>(op.getCalleeAttr().getValue());
        if (!callee) {
          op->emitOpError("expects its callee to be a func.func");
          return signalPassFailure();
        }
        llvm::DenseSet<Operation *> visited;
        if (reachesADOps(callee, symbols, visited))
          continue;
        if (failed(lower(op, callee, symbols, cache, generated)))
          return signalPassFailure();
        progress = true;
      }
      if (!progress) {
        pending.front()->emitOpError(
            "differentiates a function that (transitively) contains itself");
        return signalPassFailure();
      }
    }

    inlineCheckpoints(module);

    // Dead adjoints and duplicated work out of the generated functions.
    OpPassManager cleanup(func::FuncOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
    for (func::FuncOp fn : generated)
      if (failed(runPipeline(cleanup, fn)))
        return signalPassFailure();
    removeBarriers(module);
  }

  LogicalResult lower(DerivativeOpInterface op, func::FuncOp callee,
                      SymbolTable &symbols,
                      llvm::StringMap<func::FuncOp> &cache,
                      SmallVectorImpl<func::FuncOp> &generated) {
    DerivativeKind kind = op.getDerivativeKind();
    // "grad", "value_and_grad", "vjp".
    StringRef suffix = op->getName().stripDialect();
    SmallVector<int64_t> argnums = op.getDiffArgIndices();
    ValueRange args = op.getDerivativeOperands();

    // One derivative function per (callee, kind, argnums).
    std::string key = (callee.getSymName() + "__" + suffix).str();
    for (int64_t i : argnums)
      key += "_" + std::to_string(i);
    func::FuncOp fn = cache.lookup(key);
    if (!fn) {
      std::string name = key;
      for (unsigned n = 0; symbols.lookup(name); ++n)
        name = key + "_" + std::to_string(n);
      FailureOr<func::FuncOp> built =
          buildDerivativeFunction(callee, kind, argnums, name, inlineCallees);
      if (failed(built))
        return op->emitOpError("could not be differentiated (see above)");
      fn = *built;
      symbols.insert(fn);
      cache[key] = fn;
      generated.push_back(fn);
    }
    OpBuilder b(op);
    auto call = func::CallOp::create(b, op->getLoc(), fn, args);
    op->replaceAllUsesWith(call.getResults());
    op->erase();
    return success();
  }
};

} // namespace
