//===- NNOps.cpp - Verifiers and type inference of nn ops -----------------===//
//
// One check per constraint of docs/spec.md's `nn` section, cited by its id
// (`nn.dense-C2`); each message has a case in test/Dialect/NN/invalid.mlir.
// Constraints marked (ODS) in the spec are checked by the generated
// verifier, from the types and traits in dialects/NN/NNOps.td.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/NN/IR/NN.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <charconv>
#include <cstdlib>

using namespace mlir;
using namespace trellis::nn;

/// All float operands of a layer compute in one element type.
static LogicalResult verifySameElementType(Operation *op, ValueRange values) {
  Type elementType;
  for (Value v : values) {
    Type t = cast<ShapedType>(v.getType()).getElementType();
    if (!elementType)
      elementType = t;
    else if (t != elementType)
      return op->emitOpError("expects all float operands and results to have "
                             "one element type, got ")
             << elementType << " and " << t;
  }
  return success();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(shape, os, ",");
  os << "]";
  return s;
}

/// The result of a layer has the shape its operands and attributes give.
static LogicalResult verifyResultShape(Operation *op, Value result,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> shape = cast<ShapedType>(result.getType()).getShape();
  if (shape == expected)
    return success();
  return op->emitOpError("expects result shape ")
         << shapeString(expected) << ", got " << shapeString(shape);
}

/// A parameter vector (layer_norm scale and bias, dense bias) of length `n`.
static LogicalResult verifyVector(Operation *op, StringRef name, Value v,
                                  int64_t n) {
  auto type = cast<RankedTensorType>(v.getType());
  // (nn.dense-C5, nn.layer_norm-C4, nn.layer_norm-C6)
  if (type.getRank() != 1)
    return op->emitOpError() << "expects " << name << " of rank 1, got rank "
                             << type.getRank();
  // (nn.dense-C6, nn.layer_norm-C5, nn.layer_norm-C7)
  if (type.getDimSize(0) != n)
    return op->emitOpError() << "expects " << name << " of length " << n
                             << ", got " << type.getDimSize(0);
  return success();
}

//===----------------------------------------------------------------------===//
// DenseOp
//===----------------------------------------------------------------------===//

LogicalResult DenseOp::verify() {
  auto x = getX().getType(), w = getW().getType();
  if (x.getRank() < 1) // (nn.dense-C2)
    return emitOpError("expects x of rank at least 1");
  if (w.getRank() != 2) // (nn.dense-C3)
    return emitOpError("expects w of rank 2, got rank ") << w.getRank();
  int64_t k = x.getShape().back();
  if (w.getDimSize(0) != k) // (nn.dense-C4)
    return emitOpError("expects w's first dimension to equal x's last (")
           << k << "), got " << w.getDimSize(0);
  int64_t n = w.getDimSize(1);
  // (nn.dense-C5, nn.dense-C6)
  if (failed(verifyVector(*this, "b", getB(), n)))
    return failure();
  SmallVector<int64_t> expected(x.getShape().drop_back());
  expected.push_back(n);
  // (nn.dense-C7)
  if (failed(verifyResultShape(*this, getResult(), expected)))
    return failure();
  // (nn.dense-C8)
  return verifySameElementType(*this, {getX(), getW(), getB(), getResult()});
}

//===----------------------------------------------------------------------===//
// Normalisation, softmax and losses
//===----------------------------------------------------------------------===//

/// A float attribute's value for a program of `elementType`: f64 values and
/// any value in f32 programs as they are; an f32 value in an f64 program as
/// the shortest decimal that rounds to it (1e-12, not the f32 value
/// 9.9999998e-13), which is what was written.
static double readFloatAttr(const APFloat &attr, Type elementType) {
  if (&attr.getSemantics() != &APFloat::IEEEsingle() || !elementType.isF64())
    return attr.convertToDouble();
  float value = attr.convertToFloat();
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  if (ec != std::errc())
    return value;
  *end = '\0';
  return std::strtod(text, nullptr);
}

LogicalResult LayerNormOp::verify() {
  auto x = getX().getType();
  if (x.getRank() < 1) // (nn.layer_norm-C3)
    return emitOpError("expects x of rank at least 1");
  int64_t d = x.getShape().back();
  // (nn.layer_norm-C4, nn.layer_norm-C5; nn.layer_norm-C6, nn.layer_norm-C7)
  if (failed(verifyVector(*this, "scale", getScale(), d)) ||
      failed(verifyVector(*this, "bias", getBias(), d)))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0)) // (nn.layer_norm-C8)
    return emitOpError("expects a positive epsilon, got ")
           << getEpsilon().convertToDouble();
  // (nn.layer_norm-C9)
  if (failed(verifySameElementType(*this, {getX(), getScale(), getBias()})))
    return failure();
  // (nn.layer_norm-C10) An f64 epsilon is for f64 operands: in f32 it would
  // be rounded (to 0 below 1e-45), silently.
  FloatAttr epsilon = getEpsilonAttr();
  if (epsilon && epsilon.getType().isF64() && !x.getElementType().isF64())
    return emitOpError("expects an f32 epsilon for ")
           << x.getElementType() << " operands, got an f64 one";
  return success();
}

double LayerNormOp::getEpsilonValue() {
  return readFloatAttr(getEpsilon(), getX().getType().getElementType());
}

/// The constraints softmax and log_softmax share.
static LogicalResult verifyLastDimOp(Operation *op, RankedTensorType type) {
  if (type.getRank() < 1) // (nn.softmax-C3, nn.log_softmax-C3)
    return op->emitOpError("expects an operand of rank at least 1");
  if (type.getShape().back() == 0) // (nn.softmax-C4, nn.log_softmax-C4)
    return op->emitOpError("expects a non-empty last dimension");
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyLastDimOp(*this, getX().getType());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyLastDimOp(*this, getX().getType());
}

LogicalResult CrossEntropyOp::verify() {
  auto logits = getLogits().getType(), labels = getLabels().getType();
  if (logits.getRank() < 1) // (nn.cross_entropy-C2)
    return emitOpError("expects logits of rank at least 1 (...xC)");
  if (labels.getRank() != logits.getRank() - 1) // (nn.cross_entropy-C3)
    return emitOpError("expects labels of rank ")
           << logits.getRank() - 1 << " (one less than logits), got rank "
           << labels.getRank();
  ArrayRef<int64_t> leading = logits.getShape().drop_back();
  if (labels.getShape() != leading) // (nn.cross_entropy-C4)
    return emitOpError("expects one label per logits row: labels of shape ")
           << shapeString(leading) << ", got "
           << shapeString(labels.getShape());
  // (nn.cross_entropy-C5)
  if (logits.getNumElements() == 0)
    return emitOpError("expects non-empty leading and class dimensions");
  // (nn.cross_entropy-C6)
  return verifySameElementType(*this, {getLogits(), getResult()});
}

LogicalResult MeanOp::verify() {
  if (getX().getType().getNumElements() == 0) // (nn.mean-C2)
    return emitOpError("expects a non-empty operand");
  return verifySameElementType(*this, {getX(), getResult()}); // (nn.mean-C3)
}

//===----------------------------------------------------------------------===//
// Vision layers
//===----------------------------------------------------------------------===//

/// `[N, H', W']` of a window of `extent` (before dilation) sliding with
/// `strides` over the padded H and W dims of `x : NxHxWxC`, or a diagnostic
/// when the attribute values overflow or the window does not fit.
static FailureOr<SmallVector<int64_t>>
windowOutputShape(Operation *op, RankedTensorType x, ArrayRef<int64_t> extent,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                  ArrayRef<int64_t> dilations) {
  SmallVector<int64_t> shape{x.getDimSize(0)};
  for (unsigned i = 0; i < 2; ++i) {
    // Checked: huge attributes must be an error, not a signed overflow.
    std::optional<int64_t> padded =
        llvm::checkedAdd(x.getDimSize(1 + i), padding[2 * i]);
    if (padded)
      padded = llvm::checkedAdd(*padded, padding[2 * i + 1]);
    std::optional<int64_t> span = llvm::checkedMul(dilations[i], extent[i] - 1);
    if (span)
      span = llvm::checkedAdd(*span, int64_t{1});
    if (!padded || !span)
      return op->emitOpError("expects paddings and dilations whose window "
                             "extents fit in 64 bits");
    if (extent[i] < 1 || *span > *padded)
      return op->emitOpError("expects the ")
             << (dilations[i] != 1 ? "dilated " : "") << "window (" << *span << ") to fit the padded input (" << *padded
             << ") in dimension " << (1 + i);
    shape.push_back((*padded - *span) / strides[i] + 1);
  }
  return shape;
}

LogicalResult Conv2DOp::verify() {
  auto x = getX().getType(), w = getW().getType();
  if (x.getRank() != 4) // (nn.conv2d-C2)
    return emitOpError("expects x of rank 4 (NxHxWxC), got rank ")
           << x.getRank();
  if (w.getRank() != 4) // (nn.conv2d-C3)
    return emitOpError("expects w of rank 4 (KHxKWxCxF), got rank ")
           << w.getRank();
  if (w.getDimSize(2) != x.getDimSize(3)) // (nn.conv2d-C4)
    return emitOpError("expects w's third dimension to equal x's channels (")
           << x.getDimSize(3) << "), got " << w.getDimSize(2);
  int64_t f = w.getDimSize(3);
  if (failed(verifyVector(*this, "b", getB(), f))) // (nn.conv2d-C5)
    return failure();
  ArrayRef<int64_t> strides = getStrides(), padding = getPadding(),
                    dilations = getDilations();
  // (nn.conv2d-C6)
  if (strides.size() != 2 || dilations.size() != 2 || padding.size() != 4)
    return emitOpError("expects 2 strides, 2 dilations and 4 paddings, got ")
           << strides.size() << ", " << dilations.size() << " and "
           << padding.size();
  // (nn.conv2d-C7)
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return emitOpError("expects strides and dilations ≥ 1 and paddings ≥ 0");
  // (nn.conv2d-C8)
  FailureOr<SmallVector<int64_t>> expected = windowOutputShape(
      *this, x, w.getShape().take_front(2), strides, padding, dilations);
  if (failed(expected))
    return failure();
  expected->push_back(f);
  // (nn.conv2d-C9)
  if (failed(verifyResultShape(*this, getResult(), *expected)))
    return failure();
  // (nn.conv2d-C10)
  return verifySameElementType(*this, {getX(), getW(), getB(), getResult()});
}

trellis::builders::Window2D Conv2DOp::getGeometry() {
  ArrayRef<int64_t> w = getW().getType().getShape(),
                    y = getResult().getType().getShape(), s = getStrides(),
                    p = getPadding(), d = getDilations();
  return {w[0], w[1], s[0], s[1], d[0], d[1],
          p[0], p[1], p[2], p[3], y[1], y[2]};
}

/// The constraints max_pool2d and avg_pool2d share (their ids are the same
/// for both ops).
static LogicalResult verifyPool2D(Operation *op, Value input, Value result,
                                  ArrayRef<int64_t> window,
                                  std::optional<ArrayRef<int64_t>> stridesAttr,
                                  ArrayRef<int64_t> padding) {
  auto x = cast<RankedTensorType>(input.getType());
  if (x.getRank() != 4) // (nn.pool2d-C2)
    return op->emitOpError("expects x of rank 4 (NxHxWxC), got rank ")
           << x.getRank();
  ArrayRef<int64_t> strides = stridesAttr.value_or(window);
  // (nn.pool2d-C3)
  if (window.size() != 2 || strides.size() != 2 || padding.size() != 4)
    return op->emitOpError("expects a window of 2, 2 strides and 4 "
                           "paddings, got ")
           << window.size() << ", " << strides.size() << " and "
           << padding.size();
  // (nn.pool2d-C4)
  if (llvm::any_of(window, [](int64_t k) { return k < 1; }) ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return op->emitOpError("expects a window and strides ≥ 1");
  // (nn.pool2d-C5)
  for (unsigned i = 0; i < 4; ++i)
    if (padding[i] < 0 || padding[i] >= window[i / 2])
      return op->emitOpError("expects each padding in [0, window) so that "
                             "every window holds an input element, got ")
             << padding[i] << " for a window of " << window[i / 2];
  // (nn.pool2d-C6)
  FailureOr<SmallVector<int64_t>> expected =
      windowOutputShape(op, x, window, strides, padding, {1, 1});
  if (failed(expected))
    return failure();
  expected->push_back(x.getDimSize(3));
  // (nn.pool2d-C7)
  if (failed(verifyResultShape(op, result, *expected)))
    return failure();
  // (nn.pool2d-C8)
  return verifySameElementType(op, {input, result});
}

/// The window of a pooling op: its strides default to the window.
static trellis::builders::Window2D
poolWindow(ArrayRef<int64_t> window, std::optional<ArrayRef<int64_t>> strides,
           ArrayRef<int64_t> p, RankedTensorType result) {
  ArrayRef<int64_t> s = strides.value_or(window);
  return {window[0],
          window[1],
          s[0],
          s[1],
          1,
          1,
          p[0],
          p[1],
          p[2],
          p[3],
          result.getDimSize(1),
          result.getDimSize(2)};
}

LogicalResult MaxPool2DOp::verify() {
  return verifyPool2D(*this, getX(), getResult(), getWindow(), getStrides(),
                      getPadding());
}

LogicalResult AvgPool2DOp::verify() {
  return verifyPool2D(*this, getX(), getResult(), getWindow(), getStrides(),
                      getPadding());
}

trellis::builders::Window2D MaxPool2DOp::getGeometry() {
  return poolWindow(getWindow(), getStrides(), getPadding(),
                    getResult().getType());
}

trellis::builders::Window2D AvgPool2DOp::getGeometry() {
  return poolWindow(getWindow(), getStrides(), getPadding(),
                    getResult().getType());
}

LogicalResult BatchNormOp::verify() {
  auto x = getX().getType();
  if (x.getRank() < 1) // (nn.batch_norm-C2)
    return emitOpError("expects x of rank at least 1 (...xC)");
  int64_t c = x.getShape().back();
  // (nn.batch_norm-C3)
  if (failed(verifyVector(*this, "scale", getScale(), c)) ||
      failed(verifyVector(*this, "bias", getBias(), c)) ||
      failed(verifyVector(*this, "mean", getMean(), c)) ||
      failed(verifyVector(*this, "var", getVar(), c)))
    return failure();
  // (nn.batch_norm-C4)
  if (getY().getType() != x)
    return emitOpError("expects y of x's type ")
           << x << ", got " << getY().getType();
  // (nn.batch_norm-C5)
  if (getNewMean().getType() != getMean().getType() ||
      getNewVar().getType() != getVar().getType())
    return emitOpError("expects new_mean and new_var of the types of mean "
                       "and var");
  // (nn.batch_norm-C6)
  if (failed(verifySameElementType(
          *this, {getX(), getScale(), getBias(), getMean(), getVar()})))
    return failure();
  // (nn.batch_norm-C7)
  double eps = getEpsilon().convertToDouble();
  if (!(eps > 0.0))
    return emitOpError("expects a positive epsilon, got ") << eps;
  FloatAttr epsilon = getEpsilonAttr();
  if (epsilon && epsilon.getType().isF64() && !x.getElementType().isF64())
    return emitOpError("expects an f32 epsilon for ")
           << x.getElementType() << " operands, got an f64 one";
  // (nn.batch_norm-C8)
  double m = getMomentum().convertToDouble();
  if (!(m >= 0.0 && m <= 1.0))
    return emitOpError("expects momentum in [0, 1], got ") << m;
  // (nn.batch_norm-C9): the unbiased variance of the running update divides
  // by M − 1.
  if (getTraining() && x.getNumElements() / std::max<int64_t>(c, 1) < 2)
    return emitOpError("expects at least 2 positions per channel in "
                       "training, got ")
           << (c ? x.getNumElements() / c : 0);
  return success();
}

double BatchNormOp::getEpsilonValue() {
  return readFloatAttr(getEpsilon(), getX().getType().getElementType());
}

double BatchNormOp::getMomentumValue() {
  return readFloatAttr(getMomentum(), getX().getType().getElementType());
}

LogicalResult FlattenOp::verify() {
  auto x = getX().getType();
  if (x.getRank() < 1) // (nn.flatten-C2)
    return emitOpError("expects x of rank at least 1");
  std::optional<int64_t> m = 1;
  for (int64_t d : x.getShape().drop_front())
    if (m)
      m = llvm::checkedMul(*m, d);
  if (!m)
    return emitOpError("expects a flattened size that fits in 64 bits");
  SmallVector<int64_t> expected{x.getDimSize(0), *m};
  // (nn.flatten-C3)
  if (failed(verifyResultShape(*this, getResult(), expected)))
    return failure();
  // (nn.flatten-C4)
  return verifySameElementType(*this, {getX(), getResult()});
}

//===----------------------------------------------------------------------===//
// Embedding, attention, dropout
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  auto ids = getIds().getType(), table = getTable().getType();
  if (table.getRank() != 2) // (nn.embedding-C2)
    return emitOpError("expects a table of rank 2 (VxD), got rank ")
           << table.getRank();
  if (table.getDimSize(0) == 0) // (nn.embedding-C3)
    return emitOpError("expects a table with at least one row");
  SmallVector<int64_t> expected(ids.getShape());
  expected.push_back(table.getDimSize(1));
  // (nn.embedding-C4)
  if (failed(verifyResultShape(*this, getResult(), expected)))
    return failure();
  // (nn.embedding-C5)
  return verifySameElementType(*this, {getTable(), getResult()});
}

/// The operand constraints nn.attention and nn.attention_grad share: C2 to
/// C8 of both (nn.attention_grad-Ci is nn.attention-Ci for these).
template <typename OpTy>
static LogicalResult verifyAttentionOperands(OpTy op) {
  auto q = op.getQ().getType(), k = op.getK().getType(),
       v = op.getV().getType();
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"q", q},
                         {"k", k},
                         {"v", v}})
    if (t.getRank() != 3) // (nn.attention-C2)
      return op.emitOpError() << "expects " << name
                              << " of rank 3 (BxLxD), got rank " << t.getRank();
  if (k.getShape() != v.getShape()) // (nn.attention-C3)
    return op.emitOpError("expects k and v of one shape, got ")
           << shapeString(k.getShape()) << " and " << shapeString(v.getShape());
  // (nn.attention-C4)
  if (q.getDimSize(0) != k.getDimSize(0) || q.getDimSize(2) != k.getDimSize(2))
    return op.emitOpError("expects q and k to agree in batch and feature "
                          "dimensions, got ")
           << shapeString(q.getShape()) << " and " << shapeString(k.getShape());
  // (nn.attention-C5)
  if (op.getCausal() && q.getDimSize(1) != k.getDimSize(1))
    return op.emitOpError("expects as many queries as keys when causal, got ")
           << q.getDimSize(1) << " and " << k.getDimSize(1);
  int64_t heads = op.getNumHeads(), d = q.getDimSize(2);
  if (heads < 1) // (nn.attention-C6)
    return op.emitOpError("expects num_heads ≥ 1, got ") << heads;
  if (d % heads != 0) // (nn.attention-C7)
    return op.emitOpError("expects num_heads (")
           << heads << ") to divide the feature dimension (" << d << ")";
  // (nn.attention-C8)
  return verifySameElementType(op, {op.getQ(), op.getK(), op.getV()});
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyAttentionOperands(*this)))
    return failure();
  if (getResult().getType() != getQ().getType()) // (nn.attention-C9)
    return emitOpError("expects the result type to equal q's type");
  return success();
}

LogicalResult AttentionGradOp::verify() {
  // (nn.attention_grad-C2 to nn.attention_grad-C8)
  if (failed(verifyAttentionOperands(*this)))
    return failure();
  Type q = getQ().getType(), k = getK().getType();
  // (nn.attention_grad-C9)
  if (getOut().getType() != q || getDOut().getType() != q)
    return emitOpError("expects out and d_out of q's type");
  // (nn.attention_grad-C10)
  if (getDq().getType() != q || getDk().getType() != k ||
      getDv().getType() != getV().getType())
    return emitOpError("expects dq, dk, dv of the types of q, k, v");
  return success();
}

LogicalResult DropoutOp::verify() {
  if (getKey().getType().getDimSize(0) != 2) // (nn.dropout-C3)
    return emitOpError("expects a key of two 32-bit words, got ")
           << getKey().getType().getDimSize(0);
  float rate = getRate().convertToFloat();
  if (!(rate >= 0.0f && rate < 1.0f)) // (nn.dropout-C4)
    return emitOpError("expects 0 ≤ rate < 1, got ") << rate;
  return success();
}

//===----------------------------------------------------------------------===//
// Reversible layers
//===----------------------------------------------------------------------===//

/// The values the yield of `region` returns after its first `numChain`:
/// the layer state of a reversible op's body (none while the region is
/// still empty, as when a builder creates the op before its body).
static ValueRange yieldedState(Region &region, unsigned numChain) {
  if (region.empty() || region.front().empty())
    return {};
  auto yield = dyn_cast<YieldOp>(region.front().back());
  if (!yield || yield.getValues().size() < numChain)
    return {};
  return yield.getValues().drop_front(numChain);
}

/// Checks that the single block of `region` takes arguments of `argTypes`
/// and that its yield returns `yieldTypes` first (layer state may follow).
static LogicalResult verifyRegionSignature(Operation *op, Region &region,
                                           TypeRange argTypes,
                                           TypeRange yieldTypes) {
  Block &block = region.front();
  // (nn.reversible_half_residual-C3, nn.reversible_serial-C3)
  if (block.getArgumentTypes() != argTypes)
    return op->emitOpError("expects the body to take ")
           << argTypes.size() << " argument(s) of the types "
           << (region.getParentOp()->getName().getStringRef() ==
                       ReversibleSerialOp::getOperationName()
                   ? "of the inputs"
                   : "of the context values")
           << ", got " << block.getNumArguments();
  auto yield = cast<YieldOp>(block.getTerminator());
  // (nn.reversible_half_residual-C4, nn.reversible_serial-C4)
  ValueRange yielded = yield.getValues();
  if (yielded.size() < yieldTypes.size() ||
      yielded.take_front(yieldTypes.size()).getTypes() != yieldTypes)
    return op->emitOpError("expects the body to yield ")
           << yieldTypes.size() << " value(s) of type(s) matching "
           << (yieldTypes.size() == 1 ? "the accumulator" : "the inputs")
           << " before any layer state, got " << yielded.size();
  return success();
}

LogicalResult ReversibleHalfResidualOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getAcc().getType());
  llvm::append_range(types, adaptor.getCtx().getTypes());
  llvm::append_range(types, yieldedState(adaptor.getBody(), 1).getTypes());
  return success();
}

unsigned ReversibleHalfResidualOp::getNumStateResults() {
  return getNumResults() - 1 - getCtx().size();
}

LogicalResult ReversibleHalfResidualOp::verifyRegions() {
  // (nn.reversible_half_residual-C3, nn.reversible_half_residual-C4)
  if (failed(verifyRegionSignature(*this, getBody(), getCtx().getTypes(),
                                   getAcc().getType())))
    return failure();
  // Deliberately not verified (docs/spec.md, nn.reversible_half_residual):
  // F may read the accumulator's value (captured): y = acc + F(ctx, acc) is
  // well defined and so is its derivative. Only inversion (x = y − F) needs
  // F not to read acc, and inversion happens only inside reversible_serial,
  // whose linearity check already rejects any capture of its chain values
  // (nn.reversible_serial-C6).
  // An SSA-level check here was not stable: CSE, canonicalization and
  // checkpoint inlining turn valid programs into ones that read acc
  // (test/Property/regressions/).
  return success();
}

LogicalResult ReversibleSwapOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getB().getType());
  types.push_back(adaptor.getA().getType());
  return success();
}

LogicalResult ReversibleSerialOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  llvm::append_range(types, adaptor.getInputs().getTypes());
  llvm::append_range(
      types,
      yieldedState(adaptor.getBody(), adaptor.getInputs().size()).getTypes());
  return success();
}

unsigned ReversibleSerialOp::getNumStateResults() {
  return getNumResults() - getInputs().size();
}

LogicalResult ReversibleSerialOp::verifyRegions() {
  // (nn.reversible_serial-C3, nn.reversible_serial-C4)
  if (failed(verifyRegionSignature(*this, getBody(), getInputs().getTypes(),
                                   getInputs().getTypes())))
    return failure();
  Block &body = getBody().front();
  for (Operation &inner : body.without_terminator())
    if (!isa<ReversibleHalfResidualOp, ReversibleSwapOp, ReversibleSerialOp>(
            inner)) // (nn.reversible_serial-C5)
      return emitOpError("expects only reversible ops in its body, got ")
             << inner.getName();

  // Each value of the chain is consumed exactly once, by the next reversible
  // op or the yield: that keeps the chain a bijection of its inputs.
  auto checkLinear = [&](Value v) -> LogicalResult {
    unsigned direct = 0;
    for (OpOperand &use : v.getUses()) {
      if (use.getOwner()->getBlock() == &body)
        ++direct;
      else // (nn.reversible_serial-C6)
        return emitOpError("expects values of its body to flow only through "
                           "reversible ops, but one is captured by a nested "
                           "region (pass it as context instead)");
    }
    if (direct != 1) // (nn.reversible_serial-C7)
      return emitOpError("expects each value of its body to be used exactly "
                         "once, got ")
             << direct << " uses";
    return success();
  };
  for (Value arg : body.getArguments())
    if (failed(checkLinear(arg)))
      return failure();
  for (Operation &inner : body.without_terminator())
    for (Value result : inner.getResults())
      if (failed(checkLinear(result)))
        return failure();

  // Layer state leaves the chain: each state result of a layer goes to the
  // yield, after the chain values, and nothing else does.
  auto isState = [](Value v) {
    auto layer = v.getDefiningOp<trellis::ad::InvertibleOpInterface>();
    return layer && llvm::is_contained(layer.getStateResults(), v);
  };
  unsigned numChain = getInputs().size();
  for (Operation &inner : body.without_terminator())
    for (Value operand : inner.getOperands())
      if (isState(operand)) // (nn.reversible_serial-C8)
        return emitOpError("expects layer state to flow only to the yield, "
                           "but a state result feeds ")
               << inner.getName();
  for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands()))
    if (isState(v) != (i >= numChain)) // (nn.reversible_serial-C8)
      return emitOpError("expects the body to yield its ")
             << numChain << " chain value(s) first and layer state after "
             << "them, got " << (isState(v) ? "state" : "a chain value")
             << " at position " << i;
  return success();
}

#define GET_OP_CLASSES
#include "trellis/Dialect/NN/IR/NNOps.cpp.inc"
