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

namespace {
/// What an ad.checkpoint's `policy` keeps from the forward pass.
struct CheckpointPolicy {
  enum Kind { Nothing, Dots, Names } kind = Nothing;
  /// The `ad.name`s of the ops whose results are kept (Names).
  SmallVector<StringRef> names;
};
} // namespace

/// The attribute naming an op for `save:` policies.
static constexpr StringLiteral kNameAttr = "ad.name";

/// Parses a policy string; fails on anything else.
static FailureOr<CheckpointPolicy> parsePolicy(StringRef text) {
  CheckpointPolicy policy;
  // `remat` is what ad-remat writes on the checkpoints it makes.
  if (text == "nothing_saveable" || text == "remat")
    return policy;
  if (text == "dots_saveable") {
    policy.kind = CheckpointPolicy::Dots;
    return policy;
  }
  if (!text.consume_front("save:"))
    return failure();
  policy.kind = CheckpointPolicy::Names;
  SmallVector<StringRef> names;
  text.split(names, ',');
  for (StringRef name : names) {
    if (name.empty())
      return failure();
    policy.names.push_back(name);
  }
  return policy;
}

/// The matrix products `dots_saveable` keeps (JAX's "dots": contractions).
static bool isDot(Operation *op) {
  return llvm::is_contained({"nn.dense", "linalg.matmul", "linalg.batch_matmul",
                             "linalg.matvec", "linalg.vecmat",
                             "linalg.batch_matvec", "linalg.dot"},
                            op->getName().getStringRef());
}

LogicalResult CheckpointOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getArgumentTypes() != getInputs().getTypes()) // (ad.checkpoint-C2)
    return emitOpError("expects the body to take the types of the inputs");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes()) // (ad.checkpoint-C3)
    return emitOpError("expects the body to yield the types of the results");
  if (std::optional<StringRef> text = getPolicy()) {
    FailureOr<CheckpointPolicy> policy = parsePolicy(*text);
    if (failed(policy)) // (ad.checkpoint-C4)
      return emitOpError("expects policy 'nothing_saveable', "
                         "'dots_saveable' or 'save:NAME[,NAME...]', got '")
             << *text << "'";
  }
  // (ad.checkpoint-C5), that each saved name names an op of the body, is
  // checked when the checkpoint is differentiated (buildReverse): passes
  // that lower the body's ops before then drop their attributes.
  return success();
}

/// The ops of `body` whose results `policy` keeps.
static SmallVector<Operation *> savedOps(Block &body,
                                         const CheckpointPolicy &policy) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator()) {
    auto name = op.getAttrOfType<StringAttr>(kNameAttr);
    bool keep = policy.kind == CheckpointPolicy::Dots
                    ? isDot(&op)
                    : policy.kind == CheckpointPolicy::Names && name &&
                          llvm::is_contained(policy.names, name.getValue());
    if (keep && op.getNumResults() > 0)
      ops.push_back(&op);
  }
  return ops;
}

LogicalResult CheckpointOp::buildReverse(OpBuilder &b, ReverseContext &ctx,
                                         ValueRange resultCotangents,
                                         SmallVectorImpl<Value> &cotangents) {
  CheckpointPolicy policy;
  if (std::optional<StringRef> text = getPolicy())
    policy = *parsePolicy(*text); // verified
  for (StringRef name : policy.names) // (ad.checkpoint-C5)
    if (llvm::none_of(getBody().front().without_terminator(),
                      [&](Operation &op) {
                        auto attr = op.getAttrOfType<StringAttr>(kNameAttr);
                        return attr && attr.getValue() == name;
                      }))
      return emitOpError("policy saves '")
             << name << "', but no op of the body has " << kNameAttr << " = \""
             << name << "\"";
  SmallVector<Operation *> saved = savedOps(getBody().front(), policy);
  if (saved.empty()) {
    // Recompute the body from the inputs and differentiate the
    // recomputation.
    FailureOr<SmallVector<Value>> inputs = ctx.recomputeAndReverse(
        b, getBody().front(), getInputs(), resultCotangents);
    if (failed(inputs))
      return failure();
    cotangents.assign(inputs->begin(), inputs->end());
    return success();
  }

  // The forward checkpoint is rebuilt to yield what the policy keeps as
  // well (this one becomes dead); the recomputation reads the kept values
  // instead of recomputing them.
  OpBuilder fb(*this);
  SmallVector<Type> types(getResultTypes());
  for (Operation *op : saved)
    llvm::append_range(types, op->getResultTypes());
  auto stored =
      CheckpointOp::create(fb, getLoc(), types, getInputs(), getPolicyAttr());
  IRMapping mapping;
  getBody().cloneInto(&stored.getBody(), mapping);
  auto yield = cast<YieldOp>(stored.getBody().front().getTerminator());
  SmallVector<Value> yields(yield.getValues());
  for (Operation *op : saved)
    for (Value v : op->getResults())
      yields.push_back(mapping.lookup(v));
  yield.getValuesMutable().assign(yields);
  replaceAllUsesWith(stored.getResults().take_front(getNumResults()));

  IRMapping keep;
  unsigned next = getNumResults();
  for (Operation *op : saved)
    for (Value v : op->getResults())
      keep.map(v, stored.getResult(next++));
  FailureOr<SmallVector<Value>> inputs =
      ctx.recomputeAndReverse(b, getBody().front(), getInputs(),
                              resultCotangents, nullptr, nullptr, &keep);
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
