//===- StructuredBuilders.cpp - Building linalg code on tensors -----------===//

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace trellis::builders {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}

Value subF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}

Value mulF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value i32Const(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}

Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value constantLike(OpBuilder &b, Location loc, Type type, double value) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped)
    return floatConst(b, loc, type, value);
  auto attr = DenseElementsAttr::get(
      shaped, b.getFloatAttr(shaped.getElementType(), value));
  return arith::ConstantOp::create(b, loc, attr);
}

Value constantLike(OpBuilder &b, Location loc, Value like, double value) {
  return constantLike(b, loc, like.getType(), value);
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

Value clampSigned(OpBuilder &b, Location loc, Value x, int64_t lo, int64_t hi) {
  Value low = arith::ConstantIntOp::create(b, loc, x.getType(), lo);
  Value high = arith::ConstantIntOp::create(b, loc, x.getType(), hi);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, x, low),
                                high);
}

Value loopIndexEquals(OpBuilder &b, Location loc, unsigned dim, Value value) {
  Value index = arith::IndexCastOp::create(
      b, loc, value.getType(), linalg::IndexOp::create(b, loc, dim));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, value);
}

Value sumStep(OpBuilder &b, Location loc, ValueRange a) {
  return addF(b, loc, a[0], a[1]);
}

Value mulAddStep(OpBuilder &b, Location loc, ValueRange a) {
  return addF(b, loc, mulF(b, loc, a[0], a[1]), a[2]);
}

//===----------------------------------------------------------------------===//
// Indexing maps
//===----------------------------------------------------------------------===//

AffineMap selectDims(MLIRContext *ctx, unsigned rank, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

AffineMap identity(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx);
}

AffineMap dropLast(MLIRContext *ctx, unsigned rank) {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d + 1 < rank; ++d)
    dims.push_back(d);
  return selectDims(ctx, rank, dims);
}

AffineMap lastOnly(MLIRContext *ctx, unsigned rank) {
  return selectDims(ctx, rank, {rank - 1});
}

//===----------------------------------------------------------------------===//
// Tensors and generics
//===----------------------------------------------------------------------===//

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value scalar = floatConst(b, loc, elementType, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value transposeLast2(OpBuilder &b, Location loc, Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, {type.getDimSize(0), type.getDimSize(2), type.getDimSize(1)},
      type.getElementType());
  return linalg::TransposeOp::create(b, loc, m, init,
                                     ArrayRef<int64_t>{0, 2, 1})
      .getResult()
      .front();
}

Value batchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get(
      {lt.getDimSize(0), lt.getDimSize(1), rt.getDimSize(2)},
      lt.getElementType());
  Value init = filledTensor(b, loc, type.getShape(), type.getElementType(), 0);
  return linalg::BatchMatmulOp::create(b, loc, TypeRange{type},
                                       ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

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

Value buildMap(OpBuilder &b, Location loc, RankedTensorType type,
               ValueRange inputs, ArrayRef<AffineMap> maps, ScalarFn body) {
  unsigned rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, maps, init,
                      identity(b.getContext(), rank), iterators, body);
}

Value buildElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                       ScalarFn body) {
  auto type = cast<RankedTensorType>(inputs.front().getType());
  SmallVector<AffineMap> maps(inputs.size(),
                              identity(b.getContext(), type.getRank()));
  return buildMap(b, loc, type, inputs, maps, body);
}

Value buildRowwiseMap(OpBuilder &b, Location loc, ValueRange elements,
                      ValueRange rows, ScalarFn body) {
  auto type = cast<RankedTensorType>(elements.front().getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  SmallVector<Value> inputs(elements.begin(), elements.end());
  llvm::append_range(inputs, rows);
  SmallVector<AffineMap> maps(elements.size(), identity(ctx, rank));
  maps.append(rows.size(), dropLast(ctx, rank));
  return buildMap(b, loc, type, inputs, maps, body);
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

Value extractAlong(OpBuilder &b, Location loc, Value x, unsigned dim,
                   OpFoldResult offset, int64_t size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[dim] = offset;
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc, x, offsets, getAsIndexOpFoldResult(b.getContext(), shape),
      strides);
}

Value insertAlong(OpBuilder &b, Location loc, Value part, Value whole,
                  unsigned dim, OpFoldResult offset) {
  auto type = cast<RankedTensorType>(part.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[dim] = offset;
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, loc, part, whole, offsets,
      getAsIndexOpFoldResult(b.getContext(), type.getShape()), strides);
}

//===----------------------------------------------------------------------===//
// Row reductions
//===----------------------------------------------------------------------===//

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

Value buildRowReduce(OpBuilder &b, Location loc, RankedTensorType type,
                     ValueRange inputs, ArrayRef<AffineMap> maps, double init,
                     ScalarFn combine) {
  unsigned rank = type.getRank();
  Value acc = filledTensor(b, loc, type.getShape().drop_back(),
                           type.getElementType(), init);
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value reduced =
      buildGeneric(b, loc, inputs, maps, acc, dropLast(b.getContext(), rank),
                   iterators, combine);
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

std::pair<Value, Value> buildRowMoments(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  double invK = 1.0 / static_cast<double>(type.getShape().back());
  Value sum = rowSumOfProduct(b, loc, x);
  Value sqDev = buildRowReduce(
      b, loc, type, {x, sum}, {identity(ctx, rank), dropLast(ctx, rank)}, 0.0,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value mean = mulF(nb, l, a[1], constantLike(nb, l, a[1], invK));
        Value dev = subF(nb, l, a[0], mean);
        return addF(nb, l, mulF(nb, l, dev, dev), a[2]);
      });
  return {sum, sqDev};
}

/// Rows per chunk of a two-stage column sum (buildColumnSum): below twice
/// this many rows the sum is one loop nest.
constexpr int64_t kColumnSumChunkRows = 512;

Value buildColumnSum(OpBuilder &b, Location loc, ValueRange matrices,
                     ValueRange columns, ScalarFn term) {
  auto type = cast<RankedTensorType>(matrices.front().getType());
  MLIRContext *ctx = b.getContext();
  int64_t rows = type.getDimSize(0), c = type.getDimSize(1);
  Type t = type.getElementType();
  // P chunks of at least kColumnSumChunkRows rows, P the largest divisor
  // of M up to 64; 1: one loop nest.
  int64_t chunks = 1;
  for (int64_t p = 64; p >= 2; --p)
    if (rows % p == 0 && rows / p >= kColumnSumChunkRows) {
      chunks = p;
      break;
    }
  auto step = [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
    return addF(nb, l, term(nb, l, a.drop_back()), a.back());
  };
  unsigned rank = chunks == 1 ? 2 : 3;
  AffineMap col = selectDims(ctx, rank, {rank - 1});
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (Value m : matrices) {
    if (chunks > 1)
      m = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({chunks, rows / chunks, c}, t), m,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    inputs.push_back(m);
    maps.push_back(identity(ctx, rank));
  }
  for (Value v : columns) {
    inputs.push_back(v);
    maps.push_back(col);
  }
  if (chunks == 1)
    return buildGeneric(
        b, loc, inputs, maps, filledTensor(b, loc, {c}, t, 0.0), col,
        {utils::IteratorType::reduction, utils::IteratorType::parallel}, step);
  Value partial = buildGeneric(
      b, loc, inputs, maps, filledTensor(b, loc, {chunks, c}, t, 0.0),
      selectDims(ctx, 3, {0, 2}),
      {utils::IteratorType::parallel, utils::IteratorType::reduction,
       utils::IteratorType::parallel},
      step);
  return sumRows(b, loc, partial);
}

std::pair<Value, Value> buildColumnMoments(OpBuilder &b, Location loc,
                                           Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  double invM = 1.0 / static_cast<double>(type.getDimSize(0));
  Value mean = buildElementwise(
      b, loc, sumRows(b, loc, m),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return mulF(nb, l, a[0], constantLike(nb, l, a[0], invM));
      });
  Value sqDev = buildColumnSum(b, loc, m, mean,
                               [](OpBuilder &nb, Location l, ValueRange a) {
                                 Value dev = subF(nb, l, a[0], a[1]);
                                 return mulF(nb, l, dev, dev);
                               });
  return {mean, sqDev};
}

/// Row maximum and Σ exp(x − max) over the last dimension of `x`: the shared
/// core of softmax, log-softmax, cross-entropy and attention.
std::pair<Value, Value> buildStableExpSum(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Value max =
      buildRowReduce(b, loc, type, x, identity(ctx, rank),
                     -std::numeric_limits<double>::infinity(),
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                     });
  Value sum = buildRowReduce(
      b, loc, type, {x, max}, {identity(ctx, rank), dropLast(ctx, rank)}, 0.0,
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value e = math::ExpOp::create(nb, nl, subF(nb, nl, a[0], a[1]));
        return addF(nb, nl, e, a[2]);
      });
  return {max, sum};
}

Value buildSoftmax(OpBuilder &b, Location loc, Value x, bool log) {
  auto [max, sum] = buildStableExpSum(b, loc, x);
  return buildRowwiseMap(
      b, loc, x, {max, sum},
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value shifted = subF(nb, nl, a[0], a[1]);
        if (log)
          return subF(nb, nl, shifted, math::LogOp::create(nb, nl, a[2]));
        return arith::DivFOp::create(
            nb, nl, math::ExpOp::create(nb, nl, shifted), a[2]);
      });
}

Value buildScaledTotal(OpBuilder &b, Location loc, Value x, double scale) {
  auto type = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Type elementType = type.getElementType();
  Value acc = filledTensor(b, loc, {}, elementType, 0.0);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  Value total =
      buildGeneric(b, loc, x, identity(ctx, rank), acc,
                   AffineMap::get(rank, 0, {}, ctx), iterators, sumStep);
  allowReassociation(total.getDefiningOp<linalg::GenericOp>());
  auto scalarType = RankedTensorType::get({}, elementType);
  return buildMap(b, loc, scalarType, total, identity(ctx, 0),
                  [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                    return mulF(nb, nl, a[0],
                                floatConst(nb, nl, elementType, scale));
                  });
}

//===----------------------------------------------------------------------===//
// Matrices
//===----------------------------------------------------------------------===//

SmallVector<ReassociationIndices> mergeLeading(unsigned rank) {
  ReassociationIndices leading;
  for (unsigned i = 0; i + 1 < rank; ++i)
    leading.push_back(i);
  return {leading, {static_cast<int64_t>(rank - 1)}};
}

/// `x` as the `rows x cols` matrix that merges its dims by `merge` (rank 2:
/// `x` itself; rank 1: a unit dimension added), and back.
static Value asMatrix(OpBuilder &b, Location loc, Value x, int64_t rows,
                      int64_t cols, ArrayRef<ReassociationIndices> merge) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 2)
    return x;
  auto matrix = RankedTensorType::get({rows, cols}, type.getElementType());
  if (type.getRank() == 1)
    return tensor::ExpandShapeOp::create(b, loc, matrix, x,
                                         {ReassociationIndices{0, 1}});
  return tensor::CollapseShapeOp::create(b, loc, matrix, x, merge);
}

static Value fromMatrixAs(OpBuilder &b, Location loc, Value m,
                          RankedTensorType type,
                          ArrayRef<ReassociationIndices> merge) {
  if (type.getRank() == 2)
    return m;
  if (type.getRank() == 1)
    return tensor::CollapseShapeOp::create(b, loc, type, m,
                                           {ReassociationIndices{0, 1}});
  return tensor::ExpandShapeOp::create(b, loc, type, m, merge);
}

/// Reassociation that merges all dimensions but the first: `Nx...` -> `NxM`.
static SmallVector<ReassociationIndices> mergeTrailing(unsigned rank) {
  ReassociationIndices rest;
  for (unsigned i = 1; i < rank; ++i)
    rest.push_back(i);
  return {ReassociationIndices{0}, rest};
}

static int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

Value toMatrix(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(x.getType()).getShape();
  return asMatrix(b, loc, x, product(s.drop_back()), s.back(),
                  mergeLeading(s.size()));
}

Value fromMatrix(OpBuilder &b, Location loc, Value m, RankedTensorType type) {
  return fromMatrixAs(b, loc, m, type, mergeLeading(type.getRank()));
}

Value flattenTrailing(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(x.getType()).getShape();
  return asMatrix(b, loc, x, s.front(), product(s.drop_front()),
                  mergeTrailing(s.size()));
}

Value unflattenTrailing(OpBuilder &b, Location loc, Value m,
                        RankedTensorType type) {
  return fromMatrixAs(b, loc, m, type, mergeTrailing(type.getRank()));
}

Value transpose2D(OpBuilder &b, Location loc, Value m) {
  auto type = cast<RankedTensorType>(m.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  return linalg::TransposeOp::create(b, loc, m, init, ArrayRef<int64_t>{1, 0})
      .getResult()
      .front();
}

Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get({lt.getDimSize(0), rt.getDimSize(1)},
                                    lt.getElementType());
  Value init = filledTensor(b, loc, type.getShape(), type.getElementType(), 0);
  return linalg::MatmulOp::create(b, loc, TypeRange{type}, ValueRange{lhs, rhs},
                                  ValueRange{init})
      .getResult(0);
}

Value sumRows(OpBuilder &b, Location loc, Value m) {
  return buildColumnSum(
      b, loc, m, {}, [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

} // namespace trellis::builders
