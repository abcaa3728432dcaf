//===- ADOps.cpp - Verifiers of ad ops ------------------------------------===//
//
// One check per constraint of docs/spec.md's `ad` section, cited by its id
// (`ad.grad-C2`); each message has a case in test/Dialect/AD/invalid.mlir.
// grad, value_and_grad and vjp check their callee when the enclosing symbol
// table verifies (SymbolUserOpInterface).
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/IR/AD.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace trellis::ad;

/// A float scalar or a 0-d float tensor: what a loss may be.
static bool isScalarFloat(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return tensor.getRank() == 0 && isa<FloatType>(tensor.getElementType());
  return isa<FloatType>(t);
}

/// Values of float element type get cotangents; integers do not.
static bool isDifferentiableType(Type t) {
  return isa<FloatType>(getElementTypeOrSelf(t));
}

static FailureOr<FunctionOpInterface>
lookupCallee(Operation *op, FlatSymbolRefAttr callee,
             SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(op, callee);
  if (!fn) // (ad.grad-C2, ad.value_and_grad-C2, ad.vjp-C2)
    return op->emitOpError("references an undefined function ") << callee;
  if (fn.isExternal()) // (ad.grad-C3, ad.value_and_grad-C3, ad.vjp-C3)
    return op->emitOpError("cannot differentiate the external function ")
           << callee;
  return fn;
}

static LogicalResult verifyArgTypes(Operation *op, FunctionOpInterface fn,
                                    TypeRange args) {
  ArrayRef<Type> inputs = fn.getArgumentTypes();
  if (inputs.size() != args.size()) // (ad.grad-C4, ad.value_and_grad-C4)
    return op->emitOpError("passes ")
           << args.size() << " argument(s) to a function taking "
           << inputs.size();
  // (ad.grad-C5, ad.value_and_grad-C5, ad.vjp-C5)
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inputs, args)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError("argument #")
             << i << " has type " << std::get<1>(pair)
             << " but the function takes " << std::get<0>(pair);
  return success();
}

/// (ad.grad-C11, ad.value_and_grad-C11, ad.vjp-C7)
static LogicalResult verifyResultTypes(Operation *op, TypeRange expected) {
  if (op->getResultTypes() != expected) {
    InFlightDiagnostic diag = op->emitOpError("expects result types (");
    llvm::interleaveComma(expected, diag);
    diag << ")";
    return diag;
  }
  return success();
}

/// The checks shared by ad.grad and ad.value_and_grad, whose constraint ids
/// are the same; `valueFirst` puts the loss (and the aux values) before the
/// gradients.
template <typename OpTy>
static LogicalResult verifyGradientOp(OpTy op, SymbolTableCollection &symbols,
                                      bool valueFirst) {
  FailureOr<FunctionOpInterface> fn =
      lookupCallee(op, op.getCalleeAttr(), symbols);
  if (failed(fn))
    return failure();
  if (failed(verifyArgTypes(op, *fn, op.getArgs().getTypes())))
    return failure();
  ArrayRef<Type> fnResults = fn->getResultTypes();
  // (ad.grad-C6, ad.value_and_grad-C6)
  if (fnResults.empty() || !isScalarFloat(fnResults.front()))
    return op.emitOpError("expects the function's first result to be a "
                          "scalar float loss");
  // (ad.grad-C7, ad.value_and_grad-C7)
  if (!op.getHasAux() && fnResults.size() != 1)
    return op.emitOpError("expects a function with a single result unless "
                          "has_aux is set, got ")
           << fnResults.size();

  SmallVector<Type> grads;
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t i : op.getDiffArgIndices()) {
    // (ad.grad-C8, ad.value_and_grad-C8)
    if (i < 0 || i >= static_cast<int64_t>(op.getArgs().size()))
      return op.emitOpError("argnums entry ")
             << i << " is out of range for " << op.getArgs().size()
             << " argument(s)";
    if (!seen.insert(i).second) // (ad.grad-C9, ad.value_and_grad-C9)
      return op.emitOpError("argnums entry ") << i << " is repeated";
    Type t = op.getArgs()[i].getType();
    if (!isDifferentiableType(t)) // (ad.grad-C10, ad.value_and_grad-C10)
      return op.emitOpError("cannot differentiate with respect to argument #")
             << i << " of non-float type " << t;
    grads.push_back(t);
  }
  SmallVector<Type> expected;
  if (valueFirst)
    expected.push_back(fnResults.front());
  if (!valueFirst)
    llvm::append_range(expected, grads);
  llvm::append_range(expected, fnResults.drop_front());
  if (valueFirst)
    llvm::append_range(expected, grads);
  // (ad.grad-C11, ad.value_and_grad-C11)
  return verifyResultTypes(op, expected);
}

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGradientOp(*this, symbols, /*valueFirst=*/false);
}

LogicalResult
ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyGradientOp(*this, symbols, /*valueFirst=*/true);
}

LogicalResult VJPOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FailureOr<FunctionOpInterface> fn =
      lookupCallee(*this, getCalleeAttr(), symbols);
  if (failed(fn))
    return failure();
  ArrayRef<Type> inputs = fn->getArgumentTypes(),
                 outputs = fn->getResultTypes();
  // (ad.vjp-C4)
  if (getOperands().size() != inputs.size() + outputs.size())
    return emitOpError("expects ")
           << inputs.size() << " primal(s) and " << outputs.size()
           << " cotangent(s), got " << getOperands().size() << " operand(s)";
  // (ad.vjp-C5; its count check cannot fail after ad.vjp-C4)
  if (failed(verifyArgTypes(*this, *fn,
                            getOperands().take_front(inputs.size()).getTypes())))
    return failure();
  // (ad.vjp-C6)
  for (auto [i, pair] : llvm::enumerate(llvm::zip(
           outputs, getOperands().drop_front(inputs.size()).getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("cotangent #")
             << i << " has type " << std::get<1>(pair)
             << " but the function's result has type " << std::get<0>(pair);
  SmallVector<Type> expected(outputs);
  llvm::append_range(expected, inputs);
  return verifyResultTypes(*this, expected); // (ad.vjp-C7)
}

LogicalResult CheckpointOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getArgumentTypes() != getInputs().getTypes()) // (ad.checkpoint-C2)
    return emitOpError("expects the body to take the types of the inputs");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes()) // (ad.checkpoint-C3)
    return emitOpError("expects the body to yield the types of the results");
  return success();
}


LogicalResult CheckpointOp::buildReverse(OpBuilder &b, ReverseContext &ctx,
                                         ValueRange resultCotangents,
                                         SmallVectorImpl<Value> &cotangents) {
  // Recompute the body from the inputs and differentiate the recomputation.
  FailureOr<SmallVector<Value>> inputs = ctx.recomputeAndReverse(
      b, getBody().front(), getInputs(), resultCotangents);
  if (failed(inputs))
    return failure();
  cotangents.assign(inputs->begin(), inputs->end());
  return success();
}

LogicalResult BarrierOp::buildReverse(OpBuilder &, ReverseContext &,
                                      ValueRange resultCotangents,
                                      SmallVectorImpl<Value> &cotangents) {
  // The identity's cotangent is the result's. A derivative function still
  // holds barriers when an outer ad op differentiates it again (the pass
  // removes them only at its end); in that outer sweep they keep doing
  // their job, separating its recomputations from its forward code.
  cotangents.assign(resultCotangents.begin(), resultCotangents.end());
  return success();
}

#define GET_OP_CLASSES
#include "trellis/Dialect/AD/IR/ADOps.cpp.inc"
