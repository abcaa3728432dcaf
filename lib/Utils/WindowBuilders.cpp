//===- WindowBuilders.cpp - Sliding-window pieces of vision layers --------===//

#include "trellis/Utils/WindowBuilders.h"

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

namespace {
/// The loops (n, i, j, p, q, c) of a window reduction read xp[n, i·sh + p,
/// j·sw + q, c] and write out[n, i, j, c]. Like linalg's pooling ops, they
/// also read a `KHxKW` shape-only operand (an empty tensor, never loaded)
/// through (p, q), which bounds the window loops.
struct WindowLoops {
  Value window;
  AffineMap read, windowMap, out;
  SmallVector<utils::IteratorType> iterators;
};

WindowLoops windowLoops(OpBuilder &b, Location loc, Type elementType,
                        const Window2D &win) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  using utils::IteratorType;
  return {
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{win.kh, win.kw},
                              elementType),
      AffineMap::get(
          6, 0, {d[0], d[1] * win.sh + d[3], d[2] * win.sw + d[4], d[5]}, ctx),
      AffineMap::get(6, 0, {d[3], d[4]}, ctx),
      AffineMap::get(6, 0, {d[0], d[1], d[2], d[5]}, ctx),
      {IteratorType::parallel, IteratorType::parallel, IteratorType::parallel,
       IteratorType::reduction, IteratorType::reduction,
       IteratorType::parallel}};
}
} // namespace

Value trellis::builders::buildWindowReduce(OpBuilder &b, Location loc, Value xp,
                                           const Window2D &win, double init,
                                           ScalarFn combine) {
  auto type = cast<RankedTensorType>(xp.getType());
  WindowLoops loops = windowLoops(b, loc, type.getElementType(), win);
  Value acc = filledTensor(
      b, loc, {type.getDimSize(0), win.outH, win.outW, type.getDimSize(3)},
      type.getElementType(), init);
  return buildGeneric(b, loc, {xp, loops.window}, {loops.read, loops.windowMap},
                      acc, loops.out, loops.iterators,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        return combine(nb, l, {a[0], a[2]});
                      });
}

Value trellis::builders::buildWindowArgMax(OpBuilder &b, Location loc, Value x,
                                           const Window2D &win) {
  auto type = cast<RankedTensorType>(x.getType());
  Type t = type.getElementType();
  Value xp = padSpatial(b, loc, x, win, 0.0);
  WindowLoops loops = windowLoops(b, loc, t, win);
  SmallVector<int64_t> shape{type.getDimSize(0), win.outH, win.outW,
                             type.getDimSize(3)};
  Value best = filledTensor(b, loc, shape, t, 0.0);
  Value tap = tensor::EmptyOp::create(b, loc, shape, b.getI32Type());
  tap = linalg::FillOp::create(b, loc, i32Const(b, loc, -1), tap).getResult(0);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{best.getType(), tap.getType()},
      ValueRange{xp, loops.window}, ValueRange{best, tap},
      ArrayRef<AffineMap>{loops.read, loops.windowMap, loops.out, loops.out},
      loops.iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
        // Element (row, col) of x is real when row = i·sh + p − top is in
        // [0, H) and col likewise.
        auto coordinate = [&](unsigned outDim, unsigned tapDim, int64_t stride,
                              int64_t pad) -> Value {
          Value i = linalg::IndexOp::create(nb, l, outDim);
          Value p = linalg::IndexOp::create(nb, l, tapDim);
          Value pos = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, i, indexConst(nb, l, stride)),
              p);
          return arith::SubIOp::create(nb, l, pos, indexConst(nb, l, pad));
        };
        auto inRange = [&](Value v, int64_t size) -> Value {
          Value lo = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, v,
                                           indexConst(nb, l, 0));
          Value hi = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, v,
                                           indexConst(nb, l, size));
          return arith::AndIOp::create(nb, l, lo, hi);
        };
        Value real = arith::AndIOp::create(
            nb, l,
            inRange(coordinate(1, 3, win.sh, win.top), type.getDimSize(1)),
            inRange(coordinate(2, 4, win.sw, win.left), type.getDimSize(2)));
        Value v = a[0], cur = a[2], curTap = a[3];
        Value unset = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            curTap, i32Const(nb, l, 0));
        Value greater =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, cur);
        // A NaN wins over numbers, and the first NaN over later ones.
        Value vNaN =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
        Value curNumber =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ORD, cur, cur);
        Value wins = arith::OrIOp::create(
            nb, l, arith::OrIOp::create(nb, l, unset, greater),
            arith::AndIOp::create(nb, l, vNaN, curNumber));
        Value take = arith::AndIOp::create(nb, l, real, wins);
        Value p = arith::IndexCastOp::create(nb, l, nb.getI32Type(),
                                             linalg::IndexOp::create(nb, l, 3));
        Value q = arith::IndexCastOp::create(nb, l, nb.getI32Type(),
                                             linalg::IndexOp::create(nb, l, 4));
        Value here = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, p, i32Const(nb, l, win.kw)), q);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, take, v, cur),
                       arith::SelectOp::create(nb, l, take, here, curTap)});
      });
  return generic.getResult(1);
}

Value trellis::builders::buildTapScatter(OpBuilder &b, Location loc,
                                         RankedTensorType xType,
                                         const Window2D &win,
                                         TapUpdateFn update) {
  ArrayRef<int64_t> s = xType.getShape();
  int64_t n = s[0], c = s[3];
  Type t = xType.getElementType();
  int64_t hp = s[1] + win.top + win.bottom, wp = s[2] + win.left + win.right;
  // A bufferization.alloc_tensor, not a tensor.empty: CSE would merge an
  // empty-and-zero-fill of this shape with the zero padding of x (conv2d's
  // recomputed im2col), and bufferization would then copy the shared buffer.
  auto accType = RankedTensorType::get({n, hp, wp, c}, t);
  Value acc = linalg::FillOp::create(
                  b, loc, floatConst(b, loc, t, 0.0),
                  bufferization::AllocTensorOp::create(b, loc, accType,
                                                       ValueRange{})
                      .getResult())
                  .getResult(0);
  auto tapType = RankedTensorType::get({n, win.outH, win.outW, c}, t);
  SmallVector<OpFoldResult> sizes = indexAttrs(b, tapType.getShape());
  SmallVector<OpFoldResult> strides = indexAttrs(b, {1, win.sh, win.sw, 1});
  // Tap (p, q) of every window reads xp[n, i·sh + p·dh, j·sw + q·dw, c]: the
  // strided slice from (p·dh, q·dw), which its update rewrites in place.
  for (int64_t p = 0; p < win.kh; ++p)
    for (int64_t q = 0; q < win.kw; ++q) {
      SmallVector<OpFoldResult> offsets =
          indexAttrs(b, {0, p * win.dh, q * win.dw, 0});
      Value current = tensor::ExtractSliceOp::create(b, loc, tapType, acc,
                                                     offsets, sizes, strides);
      acc = tensor::InsertSliceOp::create(b, loc, update(b, loc, current, p, q),
                                          acc, offsets, sizes, strides);
    }
  if (hp == s[1] && wp == s[2])
    return acc;
  return tensor::ExtractSliceOp::create(
      b, loc, xType, acc, indexAttrs(b, {0, win.top, win.left, 0}),
      indexAttrs(b, s), indexAttrs(b, {1, 1, 1, 1}));
}

Value trellis::builders::buildTiledWindowAdjoint(OpBuilder &b, Location loc,
                                                 RankedTensorType xType,
                                                 const Window2D &win,
                                                 ValueRange perWindow,
                                                 TileElementFn element) {
  ArrayRef<int64_t> s = xType.getShape();
  bool tiles = win.sh == win.kh && win.sw == win.kw && win.dh == 1 &&
               win.dw == 1 && !win.top && !win.bottom && !win.left &&
               !win.right && s[1] == win.outH * win.kh &&
               s[2] == win.outW * win.kw;
  if (!tiles)
    return Value();
  MLIRContext *ctx = b.getContext();
  auto tiledType = RankedTensorType::get(
      {s[0], win.outH, win.kh, win.outW, win.kw, s[3]}, xType.getElementType());
  // Loops (n, i, p, j, q, c): element (n, i·kh + p, j·kw + q, c) of x is
  // tap (p, q) of window (n, i, j, c).
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  AffineMap window = AffineMap::get(6, 0, {d[0], d[1], d[3], d[5]}, ctx);
  SmallVector<AffineMap> maps(perWindow.size(), window);
  maps.push_back(identity(ctx, 6));
  Value init = tensor::EmptyOp::create(b, loc, tiledType.getShape(),
                                       tiledType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{tiledType}, perWindow, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto index = [&](unsigned dim) {
          return arith::IndexCastOp::create(
              nb, l, nb.getI32Type(), linalg::IndexOp::create(nb, l, dim));
        };
        Value tap = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, index(2), i32Const(nb, l, win.kw)),
            index(4));
        linalg::YieldOp::create(nb, l, element(nb, l, a.drop_back(), tap));
      });
  return tensor::CollapseShapeOp::create(
      b, loc, xType, generic.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3, 4}, {5}});
}

Value trellis::builders::buildCol2Im(OpBuilder &b, Location loc, Value cols,
                                     RankedTensorType xType,
                                     const Window2D &win) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> s = xType.getShape();
  int64_t n = s[0], c = s[3];
  auto cols6Type = RankedTensorType::get(
      {n, win.outH, win.outW, win.kh, win.kw, c}, xType.getElementType());
  Value cols6 = tensor::ExpandShapeOp::create(
      b, loc, cols6Type, cols,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  AffineExpr d[4];
  bindDims(ctx, d[0], d[1], d[2], d[3]);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  return buildTapScatter(
      b, loc, xType, win,
      [&](OpBuilder &nb, Location l, Value current, int64_t p, int64_t q) {
        AffineMap tap =
            AffineMap::get(4, 0,
                           {d[0], d[1], d[2], getAffineConstantExpr(p, ctx),
                            getAffineConstantExpr(q, ctx), d[3]},
                           ctx);
        return buildGeneric(nb, l, cols6, tap, current, identity(ctx, 4),
                            parallel,
                            [](OpBuilder &bb, Location ll, ValueRange a) {
                              return addF(bb, ll, a[1], a[0]);
                            });
      });
}
