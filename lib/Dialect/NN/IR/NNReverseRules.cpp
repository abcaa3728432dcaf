//===- NNReverseRules.cpp - Reverse-mode rules of the nn layers -----------===//
//
// Hand-written vector-Jacobian products: cheaper than differentiating the
// layers' lowered form (softmax's VJP uses its output, layer_norm's the
// closed form) and built from the same structured pieces as the lowering.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/Dialect/NN/IR/NN.h"
#include "trellis/Utils/StructuredBuilders.h"
#include "trellis/Utils/WindowBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace trellis;
using namespace trellis::ad;
using namespace trellis::builders;
using namespace trellis::nn;

namespace {
using ValueVec = SmallVectorImpl<Value>;

/// Adds two optional cotangents.
Value sumOpt(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return addF(b, loc, x, y);
}

} // namespace

//===----------------------------------------------------------------------===//
// Dense layers and activations
//===----------------------------------------------------------------------===//

LogicalResult DenseOp::buildReverse(OpBuilder &b, ReverseContext &,
                                    ValueRange dres, ValueVec &d) {
  Location loc = getLoc();
  Value x2 = toMatrix(b, loc, getX()), dy2 = toMatrix(b, loc, dres[0]);
  Value dx2 = matmul(b, loc, dy2, transpose2D(b, loc, getW()));
  d.assign({fromMatrix(b, loc, dx2, getX().getType()),
            matmul(b, loc, transpose2D(b, loc, x2), dy2),
            sumRows(b, loc, dy2)});
  return success();
}

LogicalResult ReluOp::buildReverse(OpBuilder &b, ReverseContext &,
                                   ValueRange dres, ValueVec &d) {
  d.assign({buildElementwise(
      b, getLoc(), {getX(), dres[0]},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value pos = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                          a[0], constantLike(nb, l, a[0], 0));
        return arith::SelectOp::create(nb, l, pos, a[1],
                                       constantLike(nb, l, a[1], 0));
      })});
  return success();
}

LogicalResult TanhOp::buildReverse(OpBuilder &b, ReverseContext &,
                                   ValueRange dres, ValueVec &d) {
  d.assign({buildElementwise(
      b, getLoc(), {getResult(), dres[0]},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value y2 = mulF(nb, l, a[0], a[0]);
        return mulF(nb, l, a[1], subF(nb, l, constantLike(nb, l, y2, 1), y2));
      })});
  return success();
}

LogicalResult SigmoidOp::buildReverse(OpBuilder &b, ReverseContext &,
                                      ValueRange dres, ValueVec &d) {
  // dy·y·(1 − y), from the result: no exponential is recomputed.
  d.assign({buildElementwise(
      b, getLoc(), {getResult(), dres[0]},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value oneMinusY = subF(nb, l, constantLike(nb, l, a[0], 1), a[0]);
        return mulF(nb, l, a[1], mulF(nb, l, a[0], oneMinusY));
      })});
  return success();
}

LogicalResult GeluOp::buildReverse(OpBuilder &b, ReverseContext &,
                                   ValueRange dres, ValueVec &d) {
  bool approximate = getApproximate();
  d.assign({buildElementwise(
      b, getLoc(), {getX(), dres[0]},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value x = a[0], one = constantLike(nb, l, x, 1),
              half = constantLike(nb, l, x, 0.5);
        Value slope;
        if (approximate) {
          // t = tanh(c·(x + k·x³)); d = ½(1+t) + ½x(1−t²)·c·(1 + 3k·x²)
          const double c = std::sqrt(2.0 / M_PI), k = 0.044715;
          Value x2 = mulF(nb, l, x, x);
          Value inner = mulF(
              nb, l, constantLike(nb, l, x, c),
              addF(nb, l, x,
                   mulF(nb, l, constantLike(nb, l, x, k), mulF(nb, l, x2, x))));
          Value t = math::TanhOp::create(nb, l, inner);
          Value dInner = mulF(
              nb, l, constantLike(nb, l, x, c),
              addF(nb, l, one, mulF(nb, l, constantLike(nb, l, x, 3 * k), x2)));
          Value sech2 = subF(nb, l, one, mulF(nb, l, t, t));
          slope = addF(
              nb, l, mulF(nb, l, half, addF(nb, l, one, t)),
              mulF(nb, l, mulF(nb, l, half, x), mulF(nb, l, sech2, dInner)));
        } else {
          // Φ(x) + x·φ(x), with Φ(x) = ½·erfc(−x/√2) as in the lowering.
          Value cdf = mulF(
              nb, l, half,
              math::ErfcOp::create(
                  nb, l, mulF(nb, l, x, constantLike(nb, l, x, -M_SQRT1_2))));
          Value pdf =
              mulF(nb, l, constantLike(nb, l, x, 1.0 / std::sqrt(2.0 * M_PI)),
                   math::ExpOp::create(nb, l,
                                       mulF(nb, l, constantLike(nb, l, x, -0.5),
                                            mulF(nb, l, x, x))));
          slope = addF(nb, l, cdf, mulF(nb, l, x, pdf));
        }
        return mulF(nb, l, a[1], slope);
      })});
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation, softmax and losses
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::buildReverse(OpBuilder &b, ReverseContext &,
                                      ValueRange dres, ValueVec &d) {
  // dx = y ⊙ (dy − Σ dy ⊙ y)
  Location loc = getLoc();
  Value y = getResult(), dy = dres[0];
  Value s = rowSumOfProduct(b, loc, {dy, y});
  d.assign({buildRowwiseMap(
      b, loc, {y, dy}, s, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return mulF(nb, l, a[0], subF(nb, l, a[1], a[2]));
      })});
  return success();
}

LogicalResult LogSoftmaxOp::buildReverse(OpBuilder &b, ReverseContext &,
                                         ValueRange dres, ValueVec &d) {
  // dx = dy − exp(y) · Σ dy
  Location loc = getLoc();
  Value y = getResult(), dy = dres[0];
  Value s = rowSumOfProduct(b, loc, {dy});
  d.assign({buildRowwiseMap(
      b, loc, {y, dy}, s, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value p = math::ExpOp::create(nb, l, a[0]);
        return subF(nb, l, a[1], mulF(nb, l, p, a[2]));
      })});
  return success();
}

LogicalResult LayerNormOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = getX().getType();
  unsigned rank = type.getRank();
  double invD = 1.0 / static_cast<double>(type.getShape().back());
  double eps = getEpsilonValue();
  Value x = getX(), dy = dres[0], scale = getScale();
  AffineMap id = identity(ctx, rank), row = dropLast(ctx, rank),
            col = lastOnly(ctx, rank);

  // Per-row mean and 1/σ, recomputed as the forward computed them.
  auto [sum, sqDev] = buildRowMoments(b, loc, x);
  auto rowType =
      RankedTensorType::get(type.getShape().drop_back(), type.getElementType());
  AffineMap rowId = identity(ctx, rank - 1);
  Value mean =
      buildMap(b, loc, rowType, sum, rowId,
               [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                 return mulF(nb, l, a[0], constantLike(nb, l, a[0], invD));
               });
  Value rstd = buildMap(
      b, loc, rowType, sqDev, rowId,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value var = mulF(nb, l, a[0], constantLike(nb, l, a[0], invD));
        Value sd = math::SqrtOp::create(
            nb, l, addF(nb, l, var, constantLike(nb, l, var, eps)));
        return arith::DivFOp::create(nb, l, constantLike(nb, l, sd, 1.0), sd);
      });
  // xhat = (x − mean)·rstd; g = dy·scale.
  Value xhat =
      buildRowwiseMap(b, loc, x, {mean, rstd},
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return mulF(nb, l, subF(nb, l, a[0], a[1]), a[2]);
                      });
  Value gSum =
      buildRowReduce(b, loc, type, {dy, scale}, {id, col}, 0.0, mulAddStep);
  Value gxSum = buildRowReduce(
      b, loc, type, {dy, scale, xhat}, {id, col, id}, 0.0,
      [](OpBuilder &nb, Location l, ValueRange a) {
        return addF(nb, l, mulF(nb, l, mulF(nb, l, a[0], a[1]), a[2]), a[3]);
      });
  // dx = rstd·(g − mean(g) − xhat·mean(g·xhat))
  Value dx =
      buildMap(b, loc, type, {dy, scale, xhat, rstd, gSum, gxSum},
               {id, col, id, row, row, row},
               [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                 Value invDC = constantLike(nb, l, a[0], invD);
                 Value g = mulF(nb, l, a[0], a[1]);
                 Value centered = subF(nb, l, g, mulF(nb, l, a[4], invDC));
                 Value proj = mulF(nb, l, a[2], mulF(nb, l, a[5], invDC));
                 return mulF(nb, l, a[3], subF(nb, l, centered, proj));
               });
  Value dyXhat = buildElementwise(
      b, loc, {dy, xhat}, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return mulF(nb, l, a[0], a[1]);
      });
  d.assign({dx, sumRows(b, loc, toMatrix(b, loc, dyXhat)),
            sumRows(b, loc, toMatrix(b, loc, dy))});
  return success();
}

LogicalResult CrossEntropyOp::buildReverse(OpBuilder &b, ReverseContext &,
                                           ValueRange dres, ValueVec &d) {
  // dlogits = (softmax(logits) − onehot(labels)) · dloss / rows, rows the
  // number of leading positions the loss averages over.
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  Value logits = getLogits();
  auto type = getLogits().getType();
  unsigned rank = type.getRank();
  auto [max, sum] = buildStableExpSum(b, loc, logits);
  double invB = static_cast<double>(type.getShape().back()) /
                static_cast<double>(type.getNumElements());
  AffineMap row = dropLast(ctx, rank);
  Value dl = buildMap(
      b, loc, type, {logits, max, sum, getLabels(), dres[0]},
      {identity(ctx, rank), row, row, row, AffineMap::get(rank, 0, {}, ctx)},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value p = arith::DivFOp::create(
            nb, l, math::ExpOp::create(nb, l, subF(nb, l, a[0], a[1])), a[2]);
        Value hit = loopIndexEquals(nb, l, rank - 1, a[3]);
        Value onehot = arith::SelectOp::create(
            nb, l, hit, constantLike(nb, l, p, 1), constantLike(nb, l, p, 0));
        Value scale = mulF(nb, l, a[4], constantLike(nb, l, p, invB));
        return mulF(nb, l, subF(nb, l, p, onehot), scale);
      });
  d.assign({dl, Value()});
  return success();
}

LogicalResult MeanOp::buildReverse(OpBuilder &b, ReverseContext &,
                                   ValueRange dres, ValueVec &d) {
  auto type = getX().getType();
  double invN = 1.0 / static_cast<double>(type.getNumElements());
  d.assign({buildMap(b, getLoc(), type, dres[0],
                     AffineMap::get(type.getRank(), 0, {}, b.getContext()),
                     [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       return mulF(nb, l, a[0],
                                   constantLike(nb, l, a[0], invN));
                     })});
  return success();
}

//===----------------------------------------------------------------------===//
// Vision layers
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::buildReverse(OpBuilder &b, ReverseContext &,
                                     ValueRange dres, ValueVec &d) {
  // With cols = im2col(pad(x)) and y = cols·w2 + b: dw2 = colsᵀ·dy,
  // dcols = dy·w2ᵀ summed back into x (col2im), db = Σ dy.
  Location loc = getLoc();
  Window2D win = getGeometry();
  auto wType = getW().getType();
  Value cols = buildIm2Col(b, loc, padSpatial(b, loc, getX(), win, 0.0), win);
  Value dy2 = toMatrix(b, loc, dres[0]);
  Value w2 = toMatrix(b, loc, getW());
  Value dcols = matmul(b, loc, dy2, transpose2D(b, loc, w2));
  d.assign({buildCol2Im(b, loc, dcols, getX().getType(), win),
            fromMatrix(b, loc, matmul(b, loc, transpose2D(b, loc, cols), dy2),
                       wType),
            sumRows(b, loc, dy2)});
  return success();
}

LogicalResult MaxPool2DOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  // Each window's cotangent goes to its first maximum (PyTorch's choice).
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  Window2D win = getGeometry();
  Value argMax = buildWindowArgMax(b, loc, getX(), win);
  if (Value dx = buildTiledWindowAdjoint(
          b, loc, getX().getType(), win, {argMax, dres[0]},
          [](OpBuilder &nb, Location l, ValueRange a, Value tap) -> Value {
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              a[0], tap);
            return arith::SelectOp::create(nb, l, hit, a[1],
                                           constantLike(nb, l, a[1], 0.0));
          })) {
    d.assign({dx});
    return success();
  }
  AffineMap id = identity(ctx, 4);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  d.assign({buildTapScatter(
      b, loc, getX().getType(), win,
      [&](OpBuilder &nb, Location l, Value current, int64_t p, int64_t q) {
        return buildGeneric(
            nb, l, {argMax, dres[0]}, {id, id}, current, id, parallel,
            [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
              Value hit = arith::CmpIOp::create(
                  bb, ll, arith::CmpIPredicate::eq, a[0],
                  i32Const(bb, ll, static_cast<uint32_t>(p * win.kw + q)));
              Value zero = constantLike(bb, ll, a[1], 0.0);
              return addF(bb, ll,
                          arith::SelectOp::create(bb, ll, hit, a[1], zero),
                          a[2]);
            });
      })});
  return success();
}

LogicalResult AvgPool2DOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  // Every tap of a window gets dy/(kh·kw); the padding's share is dropped.
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  Window2D win = getGeometry();
  double inv = 1.0 / static_cast<double>(win.kh * win.kw);
  if (Value dx = buildTiledWindowAdjoint(
          b, loc, getX().getType(), win, dres[0],
          [&](OpBuilder &nb, Location l, ValueRange a, Value) -> Value {
            return mulF(nb, l, a[0], constantLike(nb, l, a[0], inv));
          })) {
    d.assign({dx});
    return success();
  }
  AffineMap id = identity(ctx, 4);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  d.assign({buildTapScatter(
      b, loc, getX().getType(), win,
      [&](OpBuilder &nb, Location l, Value current, int64_t, int64_t) {
        return buildGeneric(
            nb, l, dres[0], id, current, id, parallel,
            [&](OpBuilder &bb, Location ll, ValueRange a) -> Value {
              return addF(bb, ll,
                          mulF(bb, ll, a[0], constantLike(bb, ll, a[0], inv)),
                          a[1]);
            });
      })});
  return success();
}

Value BatchNormOp::buildRankMean(OpBuilder &b, Value v) {
  if (!getAxisName())
    return v;
  return coll::PmeanOp::create(b, getLoc(), v, getAxisNameAttr(),
                               DenseIntElementsAttr());
}

std::pair<Value, Value> BatchNormOp::buildBatchStatistics(OpBuilder &b,
                                                          Value x2) {
  Location loc = getLoc();
  double m = cast<RankedTensorType>(x2.getType()).getDimSize(0);
  auto [mean, sqDev] = buildColumnMoments(b, loc, x2);
  auto scaled = [&](Value v, double factor) {
    return buildElementwise(
        b, loc, v, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return mulF(nb, l, a[0], constantLike(nb, l, a[0], factor));
        });
  };
  Value var = scaled(sqDev, 1.0 / m);
  if (!getAxisName())
    return {mean, var};
  // Every rank holds M positions: the global mean is the mean of the ranks'
  // means, and the global variance the mean of var_r + (mean_r − mean)² (the
  // exact combination of equal-sized groups, no E[x²] − E[x]² cancellation).
  Value globalMean = buildRankMean(b, mean);
  Value spread =
      buildElementwise(b, loc, {var, mean, globalMean},
                       [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value dev = subF(nb, l, a[1], a[2]);
                         return addF(nb, l, a[0], mulF(nb, l, dev, dev));
                       });
  return {globalMean, buildRankMean(b, spread)};
}

Value BatchNormOp::buildStatisticsCount(OpBuilder &b, int64_t m) {
  Location loc = getLoc();
  Type t = getX().getType().getElementType();
  Value count = floatConst(b, loc, t, static_cast<double>(m));
  if (!getAxisName())
    return count;
  Value ranks =
      coll::AxisSizeOp::create(b, loc, b.getIndexType(), getAxisNameAttr());
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), ranks);
  return arith::MulFOp::create(b, loc, count,
                               arith::SIToFPOp::create(b, loc, t, asInt));
}

LogicalResult BatchNormOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  // new_mean and new_var are state: their cotangents are dropped, and mean
  // and var get none (with axis_name, see buildBatchStatistics). With
  // xhat = (x − μ)·rstd: dscale = Σ dy·xhat, dbias = Σ dy, and
  // dx = scale·rstd·dy in inference; in training, where μ and σ² depend on
  // x, dx = scale·rstd·(dy − dbias/M − xhat·dscale/M).
  d.assign(5, Value());
  if (!dres[0])
    return success();
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  Value x2 = toMatrix(b, loc, getX()), dy2 = toMatrix(b, loc, dres[0]);
  auto type2 = cast<RankedTensorType>(x2.getType());
  double m = static_cast<double>(type2.getDimSize(0));
  double eps = getEpsilonValue();
  Value mean = getMean(), var = getVar();
  if (getTraining())
    std::tie(mean, var) = buildBatchStatistics(b, x2);
  Value rstd = buildElementwise(
      b, loc, var, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value sd = math::SqrtOp::create(
            nb, l, addF(nb, l, a[0], constantLike(nb, l, a[0], eps)));
        return arith::DivFOp::create(nb, l, constantLike(nb, l, sd, 1.0), sd);
      });
  // dscale = rstd·Σ dy·(x − μ) and dbias = Σ dy, without materializing
  // x̂ or dy·x̂; dx recomputes x̂ = (x − μ)·rstd in its map.
  AffineMap id = identity(ctx, 2), col = selectDims(ctx, 2, {1});
  Value dbias = sumRows(b, loc, dy2);
  Value dscale = buildElementwise(
      b, loc,
      {buildColumnSum(b, loc, {dy2, x2}, mean,
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        return mulF(nb, l, a[0], subF(nb, l, a[1], a[2]));
                      }),
       rstd},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return mulF(nb, l, a[0], a[1]);
      });
  Value dx2;
  if (getTraining())
    // Synchronized: the sums over all ranks' positions, divided by M·R, are
    // the rank means of the local sums divided by M (the rank's own dscale
    // and dbias go to the gradient reduction as they are).
    dx2 = buildMap(b, loc, type2,
                   {dy2, x2, mean, getScale(), rstd, buildRankMean(b, dbias),
                    buildRankMean(b, dscale)},
                   {id, id, col, col, col, col, col},
                   [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     Value invM = constantLike(nb, l, a[0], 1.0 / m);
                     Value xhat = mulF(nb, l, subF(nb, l, a[1], a[2]), a[4]);
                     Value centered =
                         subF(nb, l, a[0], mulF(nb, l, a[5], invM));
                     Value proj = mulF(nb, l, xhat, mulF(nb, l, a[6], invM));
                     return mulF(nb, l, mulF(nb, l, a[3], a[4]),
                                 subF(nb, l, centered, proj));
                   });
  else
    dx2 = buildMap(b, loc, type2, {dy2, getScale(), rstd}, {id, col, col},
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return mulF(nb, l, a[0], mulF(nb, l, a[1], a[2]));
                   });
  d[0] = fromMatrix(b, loc, dx2, getX().getType());
  d[1] = dscale;
  d[2] = dbias;
  return success();
}

LogicalResult FlattenOp::buildReverse(OpBuilder &b, ReverseContext &,
                                      ValueRange dres, ValueVec &d) {
  d.assign({unflattenTrailing(b, getLoc(), dres[0], getX().getType())});
  return success();
}

//===----------------------------------------------------------------------===//
// Embedding, attention, dropout
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  // Scatter-add each position's cotangent row into its (clamped) table row.
  Location loc = getLoc();
  auto tableType = getTable().getType();
  int64_t rows = tableType.getDimSize(0), width = tableType.getDimSize(1);
  auto idsType = getIds().getType();
  int64_t positions = idsType.getNumElements();
  auto flatIdsType = RankedTensorType::get({positions}, b.getI32Type());
  Value ids = getIds();
  if (idsType.getRank() == 0)
    ids = tensor::ExpandShapeOp::create(b, loc, flatIdsType, ids,
                                        ArrayRef<ReassociationIndices>{});
  else if (idsType.getRank() > 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < idsType.getRank(); ++i)
      all.push_back(i);
    ids = tensor::CollapseShapeOp::create(b, loc, flatIdsType, ids, {all});
  }
  Value dy2 = toMatrix(b, loc, dres[0]);
  Value zeros = zerosLike(b, loc, tableType);
  Value lb = indexConst(b, loc, 0);
  Value ub = indexConst(b, loc, positions);
  Value step = indexConst(b, loc, 1);
  auto rowType = RankedTensorType::get({1, width}, tableType.getElementType());
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, ValueRange{zeros},
      [&](OpBuilder &nb, Location l, Value p, ValueRange iter) {
        Value id = clampSigned(
            nb, l, tensor::ExtractOp::create(nb, l, ids, ValueRange{p}), 0,
            rows - 1);
        Value r = arith::IndexCastOp::create(nb, l, nb.getIndexType(), id);
        SmallVector<OpFoldResult> sizes{nb.getIndexAttr(1),
                                        nb.getIndexAttr(width)};
        SmallVector<OpFoldResult> strides{nb.getIndexAttr(1),
                                          nb.getIndexAttr(1)};
        Value dyRow = tensor::ExtractSliceOp::create(
            nb, l, rowType, dy2, ArrayRef<OpFoldResult>{p, nb.getIndexAttr(0)},
            sizes, strides);
        SmallVector<OpFoldResult> at{r, nb.getIndexAttr(0)};
        scf::YieldOp::create(
            nb, l, addIntoSlice(nb, l, iter[0], dyRow, at, sizes, strides));
      });
  d.assign({Value(), loop.getResult(0)});
  return success();
}

LogicalResult AttentionOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  // One op for the whole VJP, so that its lowering can recompute the
  // probabilities chunk by chunk instead of holding them (NNToLinalg).
  auto grad = AttentionGradOp::create(
      b, getLoc(),
      TypeRange{getQ().getType(), getK().getType(), getV().getType()}, getQ(),
      getK(), getV(), getResult(), dres[0], getNumHeadsAttr(), getCausalAttr());
  d.assign(grad->result_begin(), grad->result_end());
  return success();
}

LogicalResult DropoutOp::buildReverse(OpBuilder &b, ReverseContext &,
                                      ValueRange dres, ValueVec &d) {
  // Dropout is linear in x with the same mask: dx = dropout(dy, key).
  d.assign({DropoutOp::create(b, getLoc(), dres[0].getType(), dres[0], getKey(),
                              getRateAttr()),
            Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// Reversible layers
//===----------------------------------------------------------------------===//

LogicalResult ReversibleSwapOp::buildReverse(OpBuilder &, ReverseContext &,
                                             ValueRange dres, ValueVec &d) {
  d.assign({dres[1], dres[0]});
  return success();
}

LogicalResult ReversibleHalfResidualOp::buildReverse(OpBuilder &b,
                                                     ReverseContext &ctx,
                                                     ValueRange dres,
                                                     ValueVec &d) {
  // acc' = acc + F(ctx): dacc = dacc'; dctx = dctx' + J_Fᵀ·dacc'. Layer
  // state has no cotangent; the recomputation's state is dead.
  d.assign(getNumOperands(), Value());
  d[0] = dres[0];
  SmallVector<Value> bodyCotangents(getCtx().size(), Value());
  if (dres[0]) {
    FailureOr<SmallVector<Value>> fromBody =
        ctx.recomputeAndReverse(b, getBody().front(), getCtx(), dres[0]);
    if (failed(fromBody))
      return failure();
    bodyCotangents = *fromBody;
  }
  for (unsigned i = 0; i < getCtx().size(); ++i)
    d[1 + i] = sumOpt(b, getLoc(), dres[1 + i], bodyCotangents[i]);
  return success();
}

// (a, b) = (second, first): the inputs are the outputs, exchanged.
LogicalResult ReversibleSwapOp::reverseFromOutputs(
    OpBuilder &, ReverseContext &, ValueRange outputs,
    ValueRange outputCotangents, const IRMapping *,
    SmallVectorImpl<Value> &inputs, SmallVectorImpl<Value> &inputCots) {
  inputs.assign({outputs[1], outputs[0]});
  inputCots.assign({outputCotangents[1], outputCotangents[0]});
  return success();
}

// acc = acc' − F(ctx): r = F(ctx) is recomputed and differentiated in one go
// (dctx += J_Fᵀ·dacc', weight cotangents flow to the captured weights). The
// state F yields again is dropped: the forward pass already returned it.
LogicalResult ReversibleHalfResidualOp::reverseFromOutputs(
    OpBuilder &b, ReverseContext &ctx, ValueRange outputs,
    ValueRange outputCotangents, const IRMapping *captures,
    SmallVectorImpl<Value> &inputs, SmallVectorImpl<Value> &inputCots) {
  Value accOut = outputs.front();
  Value dAccOut = outputCotangents.front();
  ValueRange ctxOut = outputs.drop_front();
  ValueRange dCtxOut = outputCotangents.drop_front();
  SmallVector<Value> residual;
  FailureOr<SmallVector<Value>> fromBody = ctx.recomputeAndReverse(
      b, getBody().front(), ctxOut, dAccOut, &residual, captures);
  if (failed(fromBody))
    return failure();
  inputs.assign({arith::SubFOp::create(b, getLoc(), accOut, residual.front())});
  inputs.append(ctxOut.begin(), ctxOut.end());
  inputCots.assign({dAccOut});
  for (auto [i, dctx] : llvm::enumerate(dCtxOut))
    inputCots.push_back(sumOpt(b, getLoc(), dctx, (*fromBody)[i]));
  return success();
}

// reverse_and_grad for a reversible body: walks the body's ops backwards
// starting from its outputs, reconstructing each op's inputs from its
// outputs instead of reading stored activations, and propagating
// cotangents. For a half-residual y = x + F(c): r = F(c) is recomputed and
// differentiated in one go (dc += J_Fᵀ·dy, weight cotangents flow to the
// captured weights), then x = y − r. Nothing of the forward body is read.
LogicalResult ReversibleSerialOp::reverseFromOutputs(
    OpBuilder &b, ReverseContext &ctx, ValueRange outputs,
    ValueRange outputCotangents, const IRMapping *captures,
    SmallVectorImpl<Value> &inputs, SmallVectorImpl<Value> &inputCots) {
  Block &body = getBody().front();
  llvm::DenseMap<Value, Value> known, cotangent;
  Operation *yield = body.getTerminator();
  for (auto [value, out, dout] :
       llvm::zip(yield->getOperands(), outputs, outputCotangents)) {
    known[value] = out;
    if (dout)
      cotangent[value] = dout;
  }
  auto get = [&](ValueRange values) {
    return llvm::map_to_vector(values, [&](Value v) { return known.lookup(v); });
  };
  auto getCot = [&](ValueRange values) {
    return llvm::map_to_vector(values,
                               [&](Value v) { return cotangent.lookup(v); });
  };
  auto set = [&](Value v, Value value, Value cot) {
    known[v] = value;
    if (cot)
      cotangent[v] = cot;
  };

  // Each layer reconstructs its inputs from its outputs (swap, half
  // residual, nested serial: InvertibleOpInterface). `outputs` are the
  // chain values only; layer state is not reconstructed.
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    auto layer = dyn_cast<InvertibleOpInterface>(op);
    if (!layer)
      return op.emitOpError("cannot be reversed inside a reversible_serial");
    SmallVector<Value> layerInputs, layerCots;
    if (failed(layer.reverseFromOutputs(b, ctx, get(layer.getChainResults()),
                                        getCot(layer.getChainResults()),
                                        captures, layerInputs, layerCots)))
      return failure();
    for (auto [i, v] : llvm::enumerate(op.getOperands()))
      set(v, layerInputs[i], layerCots[i]);
  }
  inputs = get(body.getArguments());
  inputCots = getCot(body.getArguments());
  return success();
}

LogicalResult ReversibleSerialOp::buildReverse(OpBuilder &b,
                                               ReverseContext &ctx,
                                               ValueRange dres, ValueVec &d) {
  // Only the serial's outputs are read: its inputs and every activation of
  // its body are reconstructed block by block, in reverse. Layer state (the
  // trailing results) has no cotangent.
  remarkOnReconstructionDrift(*this);
  SmallVector<Value> inputs, cotangents;
  unsigned numChain = getInputs().size();
  if (failed(reverseFromOutputs(b, ctx, getResults().take_front(numChain),
                                dres.take_front(numChain),
                                /*captures=*/nullptr, inputs, cotangents)))
    return failure();
  d.assign(cotangents.begin(), cotangents.end());
  return success();
}
