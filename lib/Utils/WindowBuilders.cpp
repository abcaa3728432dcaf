//===- WindowBuilders.cpp - Sliding-window pieces of vision layers --------===//

#include "trellis/Utils/WindowBuilders.h"

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace trellis::builders;

namespace {
SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(
      values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
}
} // namespace

Value trellis::builders::padSpatial(OpBuilder &b, Location loc, Value x,
                                    const Window2D &win, double value) {
  if (!win.top && !win.bottom && !win.left && !win.right)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> s = type.getShape();
  Value filled = filledTensor(
      b, loc,
      {s[0], s[1] + win.top + win.bottom, s[2] + win.left + win.right, s[3]},
      type.getElementType(), value);
  return tensor::InsertSliceOp::create(
      b, loc, x, filled, indexAttrs(b, {0, win.top, win.left, 0}),
      indexAttrs(b, s), indexAttrs(b, {1, 1, 1, 1}));
}

Value trellis::builders::buildIm2Col(OpBuilder &b, Location loc, Value xp,
                                     const Window2D &win) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(xp.getType());
  int64_t n = type.getDimSize(0), c = type.getDimSize(3);
  // Loops (n, i, j, p, q, c) read xp[n, i·sh + p·dh, j·sw + q·dw, c].
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  AffineMap gather = AffineMap::get(6, 0,
                                    {d[0], d[1] * win.sh + d[3] * win.dh,
                                     d[2] * win.sw + d[4] * win.dw, d[5]},
                                    ctx);
  Type t = type.getElementType();
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n, win.outH, win.outW, win.kh, win.kw, c}, t);
  SmallVector<utils::IteratorType> parallel(6, utils::IteratorType::parallel);
  Value cols = buildGeneric(
      b, loc, xp, gather, init, identity(ctx, 6), parallel,
      [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
  auto matrixType =
      RankedTensorType::get({n * win.outH * win.outW, win.kh * win.kw * c}, t);
  return tensor::CollapseShapeOp::create(
      b, loc, matrixType, cols,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
}

Value trellis::builders::buildCol2Im(OpBuilder &b, Location loc, Value cols,
                                     RankedTensorType xType,
                                     const Window2D &win) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> s = xType.getShape();
  int64_t n = s[0], c = s[3];
  Type t = xType.getElementType();
  auto cols6Type =
      RankedTensorType::get({n, win.outH, win.outW, win.kh, win.kw, c}, t);
  Value cols6 = tensor::ExpandShapeOp::create(
      b, loc, cols6Type, cols,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  int64_t hp = s[1] + win.top + win.bottom, wp = s[2] + win.left + win.right;
  Value acc = filledTensor(b, loc, {n, hp, wp, c}, t, 0.0);
  auto tapType = RankedTensorType::get({n, win.outH, win.outW, c}, t);
  AffineExpr d[4];
  bindDims(ctx, d[0], d[1], d[2], d[3]);
  AffineMap id = identity(ctx, 4);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  SmallVector<OpFoldResult> sizes = indexAttrs(b, tapType.getShape());
  SmallVector<OpFoldResult> strides = indexAttrs(b, {1, win.sh, win.sw, 1});
  // Tap (p, q) of every window reads xp[n, i·sh + p·dh, j·sw + q·dw, c]: the
  // strided slice from (p·dh, q·dw), to which its cotangents are added.
  for (int64_t p = 0; p < win.kh; ++p)
    for (int64_t q = 0; q < win.kw; ++q) {
      SmallVector<OpFoldResult> offsets =
          indexAttrs(b, {0, p * win.dh, q * win.dw, 0});
      Value current = tensor::ExtractSliceOp::create(b, loc, tapType, acc,
                                                     offsets, sizes, strides);
      AffineMap tap =
          AffineMap::get(4, 0,
                         {d[0], d[1], d[2], getAffineConstantExpr(p, ctx),
                          getAffineConstantExpr(q, ctx), d[3]},
                         ctx);
      Value sum = buildGeneric(b, loc, cols6, tap, current, id, parallel,
                               [](OpBuilder &nb, Location l, ValueRange a) {
                                 return addF(nb, l, a[1], a[0]);
                               });
      acc = tensor::InsertSliceOp::create(b, loc, sum, acc, offsets, sizes,
                                          strides);
    }
  if (hp == s[1] && wp == s[2])
    return acc;
  return tensor::ExtractSliceOp::create(
      b, loc, xType, acc, indexAttrs(b, {0, win.top, win.left, 0}),
      indexAttrs(b, s), indexAttrs(b, {1, 1, 1, 1}));
}
