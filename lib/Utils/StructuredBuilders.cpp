//===- StructuredBuilders.cpp - Building linalg code on tensors -----------===//

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace trellis::builders {

Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}

Value subF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}

Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}

Value addIntoSlice(OpBuilder &b, Location loc, Value acc, Value update,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                   ArrayRef<OpFoldResult> strides) {
  auto sliceType = cast<RankedTensorType>(update.getType());
  Value current = tensor::ExtractSliceOp::create(b, loc, sliceType, acc,
                                                 offsets, sizes, strides);
  unsigned rank = sliceType.getRank();
  AffineMap id = identity(b.getContext(), rank);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  Value sum = buildGeneric(b, loc, update, id, current, id, parallel,
                           [](OpBuilder &nb, Location l, ValueRange args) {
                             return addF(nb, l, args[1], args[0]);
                           });
  return tensor::InsertSliceOp::create(b, loc, sum, acc, offsets, sizes,
                                       strides);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value i32Const(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}

/// A tensor of `shape` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value scalar = floatConst(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

/// (d0, ..., d{rank-1}) -> (d{i} for i in `dims`).
AffineMap selectDims(MLIRContext *ctx, unsigned rank, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

AffineMap identity(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx);
}

/// Drops the last loop: the map of a per-row value in a row-wise loop nest.
AffineMap dropLast(MLIRContext *ctx, unsigned rank) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d + 1 < rank; ++d)
    dims.push_back(d);
  return selectDims(ctx, rank, dims);
}

AffineMap lastOnly(MLIRContext *ctx, unsigned rank) {
  return selectDims(ctx, rank, {rank - 1});
}

/// A linalg.generic writing into `init` through `initMap`; the body gets the
/// input elements followed by the current output element.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps, Value init, AffineMap initMap,
                   ArrayRef<utils::IteratorType> iterators, ScalarFn body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(initMap);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return op.getResult(0);
}

/// An elementwise generic producing `type`; inputs are read through `maps`
/// (identity for same-shaped operands, projections for broadcasts).
Value buildMap(OpBuilder &b, Location loc, RankedTensorType type,
               ValueRange inputs, ArrayRef<AffineMap> maps, ScalarFn body) {
  unsigned rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, maps, init,
                      identity(b.getContext(), rank), iterators, body);
}

/// Marks the floating-point ops of a reduction's body `reassoc` and
/// `contract`. Without reassociation LLVM must add the terms one after the
/// other and keeps the loop scalar; with it the loop vectorizer sums in
/// vector lanes (and, with `contract`, fuses a product into the sum). The
/// summation order then differs from the sequential one by rounding.
static void allowReassociation(linalg::GenericOp op) {
  auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  op.getRegion().walk([&](arith::ArithFastMathInterface fmf) {
    Operation *inner = fmf.getOperation();
    auto attr = arith::FastMathFlagsAttr::get(
        inner->getContext(), fmf.getFastMathFlagsAttr().getValue() | flags);
    inner->setAttr(fmf.getFastMathAttrName(), attr);
  });
}

/// Reduces the last dimension of a loop nest shaped like `type`, starting
/// from `init`; `combine` gets the input elements and the accumulator.
Value buildRowReduce(OpBuilder &b, Location loc, RankedTensorType type,
                     ValueRange inputs, ArrayRef<AffineMap> maps, double init,
                     ScalarFn combine) {
  unsigned rank = type.getRank();
  Value acc = filledTensor(b, loc, type.getShape().drop_back(),
                           type.getElementType(), init);
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value reduced = buildGeneric(b, loc, inputs, maps, acc,
                               dropLast(b.getContext(), rank), iterators,
                               combine);
  allowReassociation(reduced.getDefiningOp<linalg::GenericOp>());
  return reduced;
}

Value rowSumOfProduct(OpBuilder &b, Location loc, ValueRange factors) {
  auto type = cast<RankedTensorType>(factors.front().getType());
  SmallVector<AffineMap> maps(factors.size(),
                              identity(b.getContext(), type.getRank()));
  return buildRowReduce(b, loc, type, factors, maps, 0.0,
                        [&](OpBuilder &nb, Location nl, ValueRange a) {
                          Value p = a[0];
                          for (Value f : a.drop_front().drop_back())
                            p = mulF(nb, nl, p, f);
                          return addF(nb, nl, p, a.back());
                        });
}

/// Row maximum and Σ exp(x − max) over the last dimension of `x`: the shared
/// core of softmax, log-softmax, cross-entropy and attention.
std::pair<Value, Value> buildStableExpSum(OpBuilder &b, Location loc,
                                          Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Value max = buildRowReduce(
      b, loc, type, x, identity(ctx, rank),
      -std::numeric_limits<double>::infinity(),
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
      });
  Value sum = buildRowReduce(
      b, loc, type, {x, max}, {identity(ctx, rank), dropLast(ctx, rank)}, 0.0,
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value shifted = arith::SubFOp::create(nb, nl, a[0], a[1]);
        Value e = math::ExpOp::create(nb, nl, shifted);
        return arith::AddFOp::create(nb, nl, e, a[2]);
      });
  return {max, sum};
}

/// softmax (or log-softmax) over the last dimension of `x`.
Value buildSoftmax(OpBuilder &b, Location loc, Value x, bool log) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  auto [max, sum] = buildStableExpSum(b, loc, x);
  return buildMap(
      b, loc, type, {x, max, sum},
      {identity(ctx, rank), dropLast(ctx, rank), dropLast(ctx, rank)},
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value shifted = arith::SubFOp::create(nb, nl, a[0], a[1]);
        if (log)
          return arith::SubFOp::create(nb, nl, shifted,
                                       math::LogOp::create(nb, nl, a[2]));
        return arith::DivFOp::create(nb, nl,
                                     math::ExpOp::create(nb, nl, shifted),
                                     a[2]);
      });
}

/// Sums all elements of `x` into a 0-d tensor and multiplies by `scale`.
Value buildScaledTotal(OpBuilder &b, Location loc, Value x, double scale) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Type elementType = type.getElementType();
  Value acc = filledTensor(b, loc, {}, elementType, 0.0);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  Value total = buildGeneric(
      b, loc, x, identity(ctx, rank), acc, AffineMap::get(rank, 0, {}, ctx),
      iterators, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::AddFOp::create(nb, nl, a[0], a[1]);
      });
  allowReassociation(total.getDefiningOp<linalg::GenericOp>());
  auto scalarType = RankedTensorType::get({}, elementType);
  return buildMap(b, loc, scalarType, total, identity(ctx, 0),
                  [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return arith::MulFOp::create(
                        nb, nl, a[0], floatConst(nb, nl, elementType, scale));
                  });
}

/// Reassociation that merges all dimensions but the last: `...xK` -> `MxK`.
SmallVector<ReassociationIndices> mergeLeading(unsigned rank) {
  ReassociationIndices leading;
  for (unsigned i = 0; i + 1 < rank; ++i)
    leading.push_back(i);
  return {leading, {static_cast<int64_t>(rank - 1)}};
}

Value constantLike(OpBuilder &b, Location loc, Type type, double value) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped)
    return floatConst(b, loc, type, value);
  auto attr = DenseElementsAttr::get(
      shaped, b.getFloatAttr(shaped.getElementType(), value));
  return arith::ConstantOp::create(b, loc, attr);
}

Value zerosLike(OpBuilder &b, Location loc, Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  Type elementType = getElementTypeOrSelf(type);
  if (isa<IntegerType>(elementType)) {
    auto zero = b.getIntegerAttr(elementType, 0);
    if (!shaped)
      return arith::ConstantOp::create(b, loc, zero);
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(shaped, zero));
  }
  if (!shaped)
    return floatConst(b, loc, type, 0.0);
  return filledTensor(b, loc, shaped.getShape(), elementType, 0.0);
}

Value toMatrix(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t k = type.getShape().back();
  unsigned rank = type.getRank();
  if (rank == 2)
    return x;
  int64_t m = 1;
  for (int64_t d : type.getShape().drop_back())
    m *= d;
  auto matrix = RankedTensorType::get({m, k}, type.getElementType());
  if (rank == 1)
    return tensor::ExpandShapeOp::create(b, loc, matrix, x,
                                         {ReassociationIndices{0, 1}});
  return tensor::CollapseShapeOp::create(b, loc, matrix, x,
                                         mergeLeading(rank));
}

Value fromMatrix(OpBuilder &b, Location loc, Value m, RankedTensorType type) {
  unsigned rank = type.getRank();
  if (rank == 2)
    return m;
  if (rank == 1)
    return tensor::CollapseShapeOp::create(b, loc, type, m,
                                           {ReassociationIndices{0, 1}});
  return tensor::ExpandShapeOp::create(b, loc, type, m, mergeLeading(rank));
}

Value transpose2D(OpBuilder &b, Location loc, Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  return linalg::TransposeOp::create(b, loc, m, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()
      .front();
}

Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get({lt.getDimSize(0), rt.getDimSize(1)},
                                    lt.getElementType());
  Value init = filledTensor(b, loc, type.getShape(), type.getElementType(), 0);
  return linalg::MatmulOp::create(b, loc, TypeRange{type},
                                  ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

Value sumRows(OpBuilder &b, Location loc, Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  MLIRContext *ctx = b.getContext();
  Value init = filledTensor(b, loc, {type.getDimSize(1)},
                            type.getElementType(), 0.0);
  return buildGeneric(
      b, loc, m, identity(ctx, 2), init, selectDims(ctx, 2, {1}),
      {utils::IteratorType::reduction, utils::IteratorType::parallel},
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::AddFOp::create(nb, nl, a[0], a[1]);
      });
}

Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  auto type = cast<RankedTensorType>(x.getType());
  auto split = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), heads,
       type.getDimSize(2) / heads},
      type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, split, x,
                                       {{0}, {1}, {2, 3}});
}

Value mergeHeads(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto merged = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1),
       type.getDimSize(2) * type.getDimSize(3)},
      type.getElementType());
  return tensor::CollapseShapeOp::create(
      b, loc, merged, x, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// A contraction over the last of five loops, written into `shape`.
static Value contract5(OpBuilder &b, Location loc, Value x, Value y,
                       ArrayRef<unsigned> xDims, ArrayRef<unsigned> yDims,
                       ArrayRef<int64_t> shape) {
  MLIRContext *ctx = b.getContext();
  Type t = cast<RankedTensorType>(x.getType()).getElementType();
  using IT = utils::IteratorType;
  SmallVector<IT> iterators(4, IT::parallel);
  iterators.push_back(IT::reduction);
  Value init = filledTensor(b, loc, shape, t, 0.0);
  return buildGeneric(
      b, loc, {x, y}, {selectDims(ctx, 5, xDims), selectDims(ctx, 5, yDims)},
      init, selectDims(ctx, 5, {0, 1, 2, 3}), iterators,
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value prod = arith::MulFOp::create(nb, nl, a[0], a[1]);
        return arith::AddFOp::create(nb, nl, prod, a[2]);
      });
}

Value contractFeatures(OpBuilder &b, Location loc, Value x, Value y) {
  // loops (b, h, i, j, e)
  auto xt = cast<RankedTensorType>(x.getType());
  auto yt = cast<RankedTensorType>(y.getType());
  return contract5(b, loc, x, y, {0, 2, 1, 4}, {0, 3, 1, 4},
                   {xt.getDimSize(0), xt.getDimSize(2), xt.getDimSize(1),
                    yt.getDimSize(1)});
}

Value contractKeys(OpBuilder &b, Location loc, Value p, Value v) {
  // loops (b, i, h, e, j)
  auto pt = cast<RankedTensorType>(p.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  return contract5(b, loc, p, v, {0, 2, 1, 4}, {0, 4, 2, 3},
                   {pt.getDimSize(0), pt.getDimSize(2), pt.getDimSize(1),
                    vt.getDimSize(3)});
}

Value contractQueries(OpBuilder &b, Location loc, Value p, Value y) {
  // loops (b, j, h, e, i)
  auto pt = cast<RankedTensorType>(p.getType());
  auto yt = cast<RankedTensorType>(y.getType());
  return contract5(b, loc, p, y, {0, 2, 4, 1}, {0, 4, 2, 3},
                   {pt.getDimSize(0), pt.getDimSize(3), pt.getDimSize(1),
                    yt.getDimSize(3)});
}

Value buildAttentionProbs(OpBuilder &b, Location loc, Value q, Value k,
                          bool causal) {
  MLIRContext *ctx = b.getContext();
  auto qType = cast<RankedTensorType>(q.getType());
  Type t = qType.getElementType();
  Value scores = contractFeatures(b, loc, q, k);
  // Scale by 1/√Dh and mask future keys with −∞ when causal.
  double scale = 1.0 / std::sqrt(static_cast<double>(qType.getDimSize(3)));
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Value masked = buildMap(
      b, loc, scoresType, scores, identity(ctx, 4),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = arith::MulFOp::create(nb, l, a[0], floatConst(nb, l, t, scale));
        if (!causal)
          return s;
        Value query = linalg::IndexOp::create(nb, l, 2);
        Value key = linalg::IndexOp::create(nb, l, 3);
        Value future =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt, key, query);
        Value ninf =
            floatConst(nb, l, t, -std::numeric_limits<double>::infinity());
        return arith::SelectOp::create(nb, l, future, ninf, s);
      });
  return buildSoftmax(b, loc, masked, /*log=*/false);
}

} // namespace trellis::builders
