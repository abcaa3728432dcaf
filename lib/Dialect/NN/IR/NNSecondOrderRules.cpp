//===- NNSecondOrderRules.cpp - Rules of the ops first-order rules emit ---===//
//
// nn.attention's reverse rule emits nn.attention_grad, an opaque VJP that its
// lowering recomputes whole or chunk by chunk. A function that takes such a
// gradient and is differentiated again (a Hessian-vector product) needs the
// VJP of that VJP: the rule here rebuilds attention_grad from differentiable
// pieces (head reshapes, batch matmuls, nn.softmax, row reductions) at the
// reverse point and runs a nested reverse sweep over them. The pieces hold
// the `Lq x Lk` probabilities, which is what a second derivative costs.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/NN/IR/NN.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace trellis;
using namespace trellis::ad;
using namespace trellis::builders;
using namespace trellis::nn;

namespace {

/// Attention's per-head view of its operands.
struct HeadLayout {
  int64_t batch, heads, headDim;
  Type element;

  /// `x : BxLxD` as `(B·H)xLxDh`.
  Value split(OpBuilder &b, Location loc, Value x) const {
    auto type = cast<RankedTensorType>(x.getType());
    int64_t len = type.getDimSize(1);
    auto expanded =
        RankedTensorType::get({batch, len, heads, headDim}, element);
    Value e = tensor::ExpandShapeOp::create(
        b, loc, expanded, x, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    Value init = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{batch, heads, len, headDim}, element);
    Value t = linalg::TransposeOp::create(b, loc, e, init,
                                          ArrayRef<int64_t>{0, 2, 1, 3})
                  .getResult()
                  .front();
    auto collapsed =
        RankedTensorType::get({batch * heads, len, headDim}, element);
    return tensor::CollapseShapeOp::create(
        b, loc, collapsed, t, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  }

  /// The inverse of split: `(B·H)xLxDh` back to `BxLxD`.
  Value merge(OpBuilder &b, Location loc, Value x) const {
    int64_t len = cast<RankedTensorType>(x.getType()).getDimSize(1);
    auto expanded =
        RankedTensorType::get({batch, heads, len, headDim}, element);
    Value e = tensor::ExpandShapeOp::create(
        b, loc, expanded, x, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
    Value init = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{batch, len, heads, headDim}, element);
    Value t = linalg::TransposeOp::create(b, loc, e, init,
                                          ArrayRef<int64_t>{0, 2, 1, 3})
                  .getResult()
                  .front();
    auto collapsed =
        RankedTensorType::get({batch, len, heads * headDim}, element);
    return tensor::CollapseShapeOp::create(
        b, loc, collapsed, t, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  }
};

/// `scores` with the future keys (j > i) set to −∞, through an arith.select
/// on a constant mask (the select's rule drops their cotangents).
Value maskFuture(OpBuilder &b, Location loc, Value scores) {
  auto type = cast<RankedTensorType>(scores.getType());
  int64_t lq = type.getDimSize(1), lk = type.getDimSize(2);
  SmallVector<bool> future;
  future.reserve(lq * lk);
  for (int64_t i = 0; i < lq; ++i)
    for (int64_t j = 0; j < lk; ++j)
      future.push_back(j > i);
  auto maskType = RankedTensorType::get({lq, lk}, b.getI1Type());
  Value mask = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(future)));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), b.getI1Type());
  Value wide =
      linalg::BroadcastOp::create(b, loc, mask, init, ArrayRef<int64_t>{0})
          .getResult()
          .front();
  Value ninf =
      constantLike(b, loc, type, -std::numeric_limits<double>::infinity());
  return arith::SelectOp::create(b, loc, wide, ninf, scores);
}

} // namespace

LogicalResult AttentionGradOp::buildReverse(OpBuilder &b, ReverseContext &ctx,
                                            ValueRange dres,
                                            SmallVectorImpl<Value> &d) {
  Location loc = getLoc();
  auto qType = getQ().getType();
  int64_t heads = static_cast<int64_t>(getNumHeads());
  HeadLayout layout{qType.getDimSize(0), heads, qType.getDimSize(2) / heads,
                    qType.getElementType()};
  double scale = 1.0 / std::sqrt(static_cast<double>(layout.headDim));

  // The ops built from here to `end` are attention_grad's decomposition.
  Block *block = b.getInsertionBlock();
  Block::iterator end = b.getInsertionPoint();
  Operation *before = end == block->begin() ? nullptr : &*std::prev(end);

  // Per head: P = softmax(mask(Q·Kᵀ·s)), dV = Pᵀ·dO, dP = dO·Vᵀ,
  // dS = P ⊙ (dP − rowsum(dO ⊙ O))·s, dQ = dS·K, dK = dSᵀ·Q. The row term
  // reads `out`, as the op's definition says.
  Value q = layout.split(b, loc, getQ()), k = layout.split(b, loc, getK()),
        v = layout.split(b, loc, getV()), o = layout.split(b, loc, getOut()),
        dO = layout.split(b, loc, getDOut());
  Value scores = batchMatmul(b, loc, q, transposeLast2(b, loc, k));
  scores = arith::MulFOp::create(b, loc, scores,
                                 constantLike(b, loc, scores.getType(), scale));
  if (getCausal())
    scores = maskFuture(b, loc, scores);
  Value p = SoftmaxOp::create(b, loc, scores.getType(), scores);
  Value dv = batchMatmul(b, loc, transposeLast2(b, loc, p), dO);
  Value dp = batchMatmul(b, loc, dO, transposeLast2(b, loc, v));
  Value rows = rowSumOfProduct(b, loc, {dO, o});
  Value ds = buildRowwiseMap(
      b, loc, {p, dp}, rows,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value centred = mulF(nb, l, a[0], subF(nb, l, a[1], a[2]));
        return mulF(nb, l, centred, floatConst(nb, l, layout.element, scale));
      });
  Value dq = batchMatmul(b, loc, ds, k);
  Value dk = batchMatmul(b, loc, transposeLast2(b, loc, ds), q);
  std::array<Value, 3> grads = {layout.merge(b, loc, dq),
                                layout.merge(b, loc, dk),
                                layout.merge(b, loc, dv)};

  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(
           before ? std::next(before->getIterator()) : block->begin(), end))
    ops.push_back(&op);

  std::unique_ptr<ReverseContext> sweep = ctx.createNested();
  for (auto [grad, cotangent] : llvm::zip(grads, dres))
    if (cotangent)
      sweep->seed(b, grad, cotangent);
  if (failed(sweep->reverse(b, ops)))
    return failure();
  // An operand passed twice (self-attention's q = k = v) got every use's
  // cotangent in one sum: it is returned once.
  d.assign(getNumOperands(), Value());
  for (auto [i, operand] : llvm::enumerate(getOperands()))
    if (llvm::find(getOperands(), operand) ==
        std::next(getOperands().begin(), i))
      d[i] = sweep->lookup(operand);
  return success();
}
