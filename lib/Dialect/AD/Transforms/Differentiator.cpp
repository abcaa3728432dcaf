//===- Differentiator.cpp - The reverse-mode engine -----------------------===//
//
// A derivative function is the callee's body (the forward sweep, which keeps
// every value) followed by the reverse sweep: ops are visited in reverse
// program order, and each op whose results carry a cotangent asks its
// ReverseModeOpInterface rule for the cotangents of its operands. Fan-out is
// handled by accumulation: a value's cotangent is the sum of what each use
// contributed, complete by the time its defining op is visited.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/Transforms/Differentiator.h"

#include "trellis/Dialect/AD/IR/AD.h"

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace trellis;
using namespace trellis::ad;

/// Values of float element type carry cotangents; integers and indices do not.
static bool isDifferentiable(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

//===----------------------------------------------------------------------===//
// ReverseSweep
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> ReverseSweep::getOrBuildVJPFunction(func::FuncOp callee,
                                                           StringRef name) {
  auto module = callee->getParentOfType<ModuleOp>();
  if (auto vjp = module.lookupSymbol<func::FuncOp>(name))
    return vjp;
  return buildDerivativeFunction(callee, DerivativeKind::VJP, {}, name,
                                 /*inlineCallees=*/false);
}

void ReverseSweep::accumulate(Value value, Value cotangent) {
  if (!cotangent || !isDifferentiable(value))
    return;
  auto [it, inserted] = cotangents.try_emplace(value, cotangent);
  if (inserted)
    return;
  assert(builder && "accumulating outside a reverse sweep");
  it->second = arith::AddFOp::create(*builder, cotangent.getLoc(), it->second,
                                     cotangent);
}

void ReverseSweep::seed(OpBuilder &b, Value value, Value cotangent) {
  OpBuilder *saved = builder;
  builder = &b;
  accumulate(value, cotangent);
  builder = saved;
}

LogicalResult ReverseSweep::reverse(OpBuilder &b, ArrayRef<Operation *> ops) {
  OpBuilder *saved = builder;
  builder = &b;
  llvm::scope_exit restore([&] { builder = saved; });
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultCotangents;
    bool reached = false;
    for (Value result : op->getResults()) {
      resultCotangents.push_back(lookup(result));
      reached |= resultCotangents.back() != nullptr;
    }
    if (!reached)
      continue;
    auto rule = dyn_cast<ReverseModeOpInterface>(op);
    if (!rule)
      return op->emitOpError("cannot be differentiated: it has no "
                             "reverse-mode rule");
    SmallVector<Value> operandCotangents;
    if (failed(rule.buildReverse(b, *this, resultCotangents,
                                 operandCotangents)))
      return failure();
    if (operandCotangents.size() != op->getNumOperands())
      return op->emitOpError("reverse-mode rule returned ")
             << operandCotangents.size() << " cotangent(s) for "
             << op->getNumOperands() << " operand(s)";
    for (auto [operand, cotangent] :
         llvm::zip(op->getOperands(), operandCotangents)) {
      if (cotangent && cotangent.getType() != operand.getType())
        return op->emitOpError("reverse-mode rule returned a cotangent of "
                               "type ")
               << cotangent.getType() << " for an operand of type "
               << operand.getType();
      accumulate(operand, cotangent);
    }
  }
  return success();
}

FailureOr<SmallVector<Value>> ReverseSweep::recomputeAndReverse(
    OpBuilder &b, Block &body, ValueRange args, ValueRange yieldCotangents,
    SmallVectorImpl<Value> *yielded, const IRMapping *captures,
    const IRMapping *saved) {
  // The recomputation starts from barriers: fresh values whose cotangents
  // are this body's contribution alone, and which keep CSE from merging the
  // recomputation into the forward computation.
  IRMapping mapping;
  if (captures)
    for (auto [from, to] : captures->getValueMap())
      mapping.map(from, to);
  SmallVector<Value> barriers;
  for (auto [arg, value] : llvm::zip(body.getArguments(), args)) {
    barriers.push_back(
        BarrierOp::create(b, value.getLoc(), value.getType(), value));
    mapping.map(arg, barriers.back());
  }
  // Values the body captures from above go through barriers too: without
  // them a recomputation that reads only captured values would be
  // identical to the forward ops and CSE would merge the two.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(*body.getParent(), captured);
  SmallVector<std::pair<Value, Value>> capturedBarriers;
  for (Value v : captured) {
    if (mapping.contains(v))
      continue;
    // Integer and index constants (loop bounds, say) are read as they are:
    // they carry no cotangent, and rules need to see them as constants (the
    // scf.for rule takes its trip count from them).
    if (!isDifferentiable(v) && matchPattern(v, m_Constant()))
      continue;
    Value barrier = BarrierOp::create(b, v.getLoc(), v.getType(), v);
    mapping.map(v, barrier);
    capturedBarriers.emplace_back(v, barrier);
  }
  // A saved op is cloned too (its rule needs an op), but what follows reads
  // the stored value, so the clone is dead once its rule has run and the
  // cleanup erases it.
  SmallVector<Operation *> clones;
  DenseMap<Operation *, SmallVector<std::pair<Value, Value>>> storedResults;
  for (Operation &op : body.without_terminator()) {
    Operation *clone = b.clone(op, mapping);
    clones.push_back(clone);
    if (!saved)
      continue;
    for (auto [original, recomputed] :
         llvm::zip(op.getResults(), clone->getResults()))
      if (Value stored = saved->lookupOrNull(original)) {
        // Through a barrier, as the arguments: the ops recomputed from a
        // stored value must not merge with their forward twins.
        Value read =
            BarrierOp::create(b, stored.getLoc(), stored.getType(), stored);
        mapping.map(original, read);
        storedResults[clone].emplace_back(recomputed, read);
      }
  }

  Operation *terminator = body.getTerminator();
  for (auto [value, cotangent] :
       llvm::zip(terminator->getOperands(), yieldCotangents)) {
    Value recomputed = mapping.lookupOrDefault(value);
    if (yielded)
      yielded->push_back(recomputed);
    seed(b, recomputed, cotangent);
  }
  if (storedResults.empty()) {
    if (failed(reverse(b, clones)))
      return failure();
  } else {
    // One op at a time, so that a stored value's cotangent moves to the
    // result of the clone whose rule differentiates it.
    OpBuilder *savedBuilder = builder;
    builder = &b;
    for (Operation *clone : llvm::reverse(clones)) {
      for (auto [recomputed, stored] : storedResults.lookup(clone))
        if (Value cotangent = cotangents.lookup(stored)) {
          cotangents.erase(stored);
          accumulate(recomputed, cotangent);
        }
      if (failed(reverse(b, clone))) {
        builder = savedBuilder;
        return failure();
      }
      // A rule that reads its op's result (tanh's 1 − y²) reads the stored
      // value, so nothing of the clone stays live.
      for (auto [recomputed, stored] : storedResults.lookup(clone))
        recomputed.replaceAllUsesWith(stored);
    }
    builder = savedBuilder;
  }
  for (auto [value, barrier] : capturedBarriers)
    seed(b, value, lookup(barrier));
  return llvm::map_to_vector(barriers, [&](Value v) { return lookup(v); });
}

void trellis::ad::removeBarriers(Operation *root) {
  root->walk([](BarrierOp barrier) {
    barrier.replaceAllUsesWith(barrier.getInput());
    barrier.erase();
  });
}

//===----------------------------------------------------------------------===//
// Derivative functions
//===----------------------------------------------------------------------===//

/// Inlines every call in `fn` whose callee has a body, so the reverse sweep
/// sees straight-line code and nothing is recomputed.
static LogicalResult inlineCalls(func::FuncOp fn) {
  InlinerInterface interface(fn.getContext());
  auto cloneCallback = [](OpBuilder &, Region *src, Block *inlineBlock,
                          Block *postInsertBlock, IRMapping &mapper,
                          bool shouldClone) {
    Region *insertRegion = inlineBlock->getParent();
    if (shouldClone)
      src->cloneInto(insertRegion, postInsertBlock->getIterator(), mapper);
    else
      insertRegion->getBlocks().splice(postInsertBlock->getIterator(),
                                       src->getBlocks(), src->begin(),
                                       src->end());
  };
  // A bound on nesting turns recursion into an error instead of a hang.
  for (unsigned depth = 0; depth < 64; ++depth) {
    SmallVector<CallOpInterface> calls;
    fn.walk([&](CallOpInterface call) { calls.push_back(call); });
    bool inlined = false;
    for (CallOpInterface call : calls) {
      auto callee =
          dyn_cast_or_null<CallableOpInterface>(call.resolveCallable());
      if (!callee || !callee.getCallableRegion() ||
          callee.getCallableRegion()->empty())
        continue;
      if (failed(inlineCall(interface, cloneCallback, call, callee,
                            callee.getCallableRegion())))
        return call->emitOpError("could not be inlined for differentiation");
      call->erase();
      inlined = true;
    }
    if (!inlined)
      return success();
  }
  return fn.emitOpError("has calls nested more than 64 deep (recursion?); "
                        "cannot differentiate");
}

/// True for a float tensor whose shape is not fully known: the rules build
/// their temporaries (zeros, broadcasts, transposes) from static shapes.
static bool isDynamicFloatTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType()) &&
         !tensor.hasStaticShape();
}

/// Reports the first float tensor of `fn` (argument or op result) with a
/// dynamic or unranked shape: differentiation is defined for static shapes
/// only (docs/spec.md, "Types and shapes").
static LogicalResult checkStaticShapes(func::FuncOp fn) {
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    if (isDynamicFloatTensor(type))
      return fn.emitOpError("cannot be differentiated: argument #")
             << i << " has the type " << type
             << "; only statically shaped tensors are supported";
  WalkResult result = fn.walk([](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isDynamicFloatTensor(arg.getType()) &&
              !isa<func::FuncOp>(op)) {
            op->emitOpError("cannot be differentiated: a region argument has "
                            "the type ")
                << arg.getType()
                << "; only statically shaped tensors are supported";
            return WalkResult::interrupt();
          }
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (isDynamicFloatTensor(type)) {
        op->emitOpError("cannot be differentiated: result #")
            << i << " has the type " << type
            << "; only statically shaped tensors are supported";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FailureOr<func::FuncOp>
trellis::ad::buildDerivativeFunction(func::FuncOp callee, DerivativeKind kind,
                                     ArrayRef<int64_t> argnums,
                                     StringRef name, bool inlineCallees) {
  Location loc = callee.getLoc();
  FunctionType calleeType = callee.getFunctionType();
  ArrayRef<Type> inputs = calleeType.getInputs(),
                 outputs = calleeType.getResults();

  SmallVector<Type> argTypes(inputs), resultTypes;
  SmallVector<Type> gradTypes;
  for (int64_t i : argnums)
    gradTypes.push_back(inputs[i]);
  switch (kind) {
  case DerivativeKind::Grad:
    llvm::append_range(resultTypes, gradTypes);
    llvm::append_range(resultTypes, outputs.drop_front());
    break;
  case DerivativeKind::ValueAndGrad:
    llvm::append_range(resultTypes, outputs);
    llvm::append_range(resultTypes, gradTypes);
    break;
  case DerivativeKind::VJP:
    llvm::append_range(argTypes, outputs);
    llvm::append_range(resultTypes, outputs);
    llvm::append_range(resultTypes, inputs);
    break;
  }

  OpBuilder b(callee);
  b.setInsertionPointAfter(callee);
  auto fn = func::FuncOp::create(
      b, loc, name, FunctionType::get(callee.getContext(), argTypes,
                                      resultTypes));
  fn.setPrivate();
  auto fail = [&]() -> FailureOr<func::FuncOp> {
    fn.erase();
    return failure();
  };

  IRMapping mapping;
  callee.getBody().cloneInto(&fn.getBody(), mapping);
  if (!fn.getBody().hasOneBlock()) {
    callee.emitOpError("has more than one block; only structured control "
                       "flow can be differentiated");
    return fail();
  }
  Block &entry = fn.getBody().front();
  SmallVector<Location> cotangentLocs(outputs.size(), loc);
  if (kind == DerivativeKind::VJP)
    entry.addArguments(outputs, cotangentLocs);
  if (inlineCallees && failed(inlineCalls(fn)))
    return fail();
  if (failed(checkStaticShapes(callee)) || failed(checkStaticShapes(fn)))
    return fail();

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<Operation *> forward;
  for (Operation &op : entry.without_terminator())
    forward.push_back(&op);

  OpBuilder rb(ret);
  ReverseSweep sweep;
  if (kind == DerivativeKind::VJP) {
    for (auto [i, result] : llvm::enumerate(ret.getOperands()))
      sweep.seed(rb, result, entry.getArgument(inputs.size() + i));
  } else {
    Value loss = ret.getOperand(0);
    sweep.seed(rb, loss, builders::constantLike(rb, loc, loss.getType(), 1.0));
  }
  if (failed(sweep.reverse(rb, forward)))
    return fail();

  auto cotangentOf = [&](unsigned argIndex) -> Value {
    Value arg = entry.getArgument(argIndex);
    if (Value c = sweep.lookup(arg))
      return c;
    return builders::zerosLike(rb, loc, arg.getType());
  };
  SmallVector<Value> results;
  switch (kind) {
  case DerivativeKind::Grad:
    for (int64_t i : argnums)
      results.push_back(cotangentOf(i));
    llvm::append_range(results, ret.getOperands().drop_front());
    break;
  case DerivativeKind::ValueAndGrad:
    llvm::append_range(results, ret.getOperands());
    for (int64_t i : argnums)
      results.push_back(cotangentOf(i));
    break;
  case DerivativeKind::VJP:
    llvm::append_range(results, ret.getOperands());
    for (unsigned i = 0; i < inputs.size(); ++i)
      results.push_back(cotangentOf(i));
    break;
  }
  func::ReturnOp::create(rb, loc, results);
  ret.erase();
  return fn;
}
