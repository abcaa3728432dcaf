//===- Attention.cpp - Lowering of attention and its VJP ------------------===//
//
// Heads are split as `BxLxD -> BxLxHxDh` (a reshape, no copy); index names
// below: b batch, h head, i query, j key, e feature within a head. Scores and
// probabilities are `BxHxLqxLk` (whole) or `BxHxCxC` (one tile of chunks).
//
// The chunked forward is the online softmax: per query chunk, a running row
// maximum m, row sum l and unnormalized output acc are updated key chunk by
// key chunk (acc ← acc·exp(m_old − m_new) + exp(S − m_new)·V_j), and divided
// by l at the end. The chunked VJP recomputes each tile's probabilities as
// exp(S − lse) from the per-row log-sum-exp, found by a first pass over the
// key chunks, and uses the row terms Σ_e dO·O (rather than Σ_j dP·P, which
// would need whole rows of P):
//   dV_j += P_ijᵀ·dO_i,  dS_ij = P_ij ⊙ (dO_i·V_jᵀ − rowdot_i) / √Dh,
//   dQ_i += dS_ij·K_j,   dK_j += dS_ijᵀ·Q_i.
// Its outer loop runs over key chunks, so dK_j and dV_j accumulate in a
// chunk-sized tensor and only dQ is carried whole.
//
// Lengths that are not multiples of the chunk are padded with zero rows:
// padded keys are masked, padded queries are dropped from the result (their
// zero cotangent rows contribute nothing to dK, dV). Under a causal mask,
// tiles above the diagonal are never visited and only diagonal tiles mask.
//
//===----------------------------------------------------------------------===//

#include "Attention.h"

#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace trellis;
using namespace trellis::builders;

namespace {

using IT = utils::IteratorType;

/// Rows of a head-split `BxLxHxDh` tensor; queries of `BxHxL` statistics.
constexpr unsigned kRowDim = 1, kStatDim = 2;

//===----------------------------------------------------------------------===//
// Heads and contractions
//===----------------------------------------------------------------------===//

/// `x : BxLxD` split into `heads` heads, `BxLxHxDh`.
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  auto type = cast<RankedTensorType>(x.getType());
  auto split = RankedTensorType::get({type.getDimSize(0), type.getDimSize(1),
                                      heads, type.getDimSize(2) / heads},
                                     type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, split, x, {{0}, {1}, {2, 3}});
}

/// The inverse of splitHeads: `BxLxHxDh -> BxLxD`.
Value mergeHeads(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto merged = RankedTensorType::get({type.getDimSize(0), type.getDimSize(1),
                                       type.getDimSize(2) * type.getDimSize(3)},
                                      type.getElementType());
  return tensor::CollapseShapeOp::create(
      b, loc, merged, x, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// 1/√Dh for heads split as `BxLxHxDh`.
double scaleOf(Value splitQ) {
  auto type = cast<RankedTensorType>(splitQ.getType());
  return 1.0 / std::sqrt(static_cast<double>(type.getDimSize(3)));
}

/// init[...] += Σ x·y over the last of five loops (x, y read through
/// `xDims`, `yDims`; init written through the first four loops). Without
/// `init`, the sum starts from zeros shaped by the first four loops.
Value contractInto(OpBuilder &b, Location loc, Value x, Value y,
                   ArrayRef<unsigned> xDims, ArrayRef<unsigned> yDims,
                   Value init) {
  MLIRContext *ctx = b.getContext();
  SmallVector<IT> iterators(4, IT::parallel);
  iterators.push_back(IT::reduction);
  if (!init) {
    // Each loop's extent is that of the first operand dim read through it.
    SmallVector<int64_t> shape(4, ShapedType::kDynamic);
    for (auto [operand, dims] : {std::pair(x, xDims), std::pair(y, yDims)})
      for (auto [dim, loop] : llvm::enumerate(dims))
        if (loop < 4 && ShapedType::isDynamic(shape[loop]))
          shape[loop] =
              cast<RankedTensorType>(operand.getType()).getDimSize(dim);
    init =
        filledTensor(b, loc, shape,
                     cast<RankedTensorType>(x.getType()).getElementType(), 0.0);
  }
  return buildGeneric(
      b, loc, {x, y}, {selectDims(ctx, 5, xDims), selectDims(ctx, 5, yDims)},
      init, selectDims(ctx, 5, {0, 1, 2, 3}), iterators, mulAddStep);
}

/// s[b,h,i,j] = Σ_e x[b,i,h,e]·y[b,j,h,e]: scores, or dO·Vᵀ
/// (loops b, h, i, j, e).
Value contractFeatures(OpBuilder &b, Location loc, Value x, Value y) {
  return contractInto(b, loc, x, y, {0, 2, 1, 4}, {0, 3, 1, 4}, Value());
}

/// init[b,i,h,e] += Σ_j p[b,h,i,j]·v[b,j,h,e]: P·V, or dS·K
/// (loops b, i, h, e, j; zeros without `init`).
Value contractKeys(OpBuilder &b, Location loc, Value p, Value v,
                   Value init = Value()) {
  return contractInto(b, loc, p, v, {0, 2, 1, 4}, {0, 4, 2, 3}, init);
}

/// init[b,j,h,e] += Σ_i p[b,h,i,j]·y[b,i,h,e]: Pᵀ·dO, or dSᵀ·Q
/// (loops b, j, h, e, i; zeros without `init`).
Value contractQueries(OpBuilder &b, Location loc, Value p, Value y,
                      Value init = Value()) {
  return contractInto(b, loc, p, y, {0, 2, 4, 1}, {0, 4, 2, 3}, init);
}

/// dS = P ⊙ (dP − rowDot) / √Dh for probabilities `p` and their cotangent
/// `dP` (`BxHxIxJ`, whole or one tile) and the row terms `rowDot` (`BxHxI`).
Value scoreCotangent(OpBuilder &b, Location loc, Value p, Value dP,
                     Value rowDot, double scale) {
  return buildRowwiseMap(b, loc, {p, dP}, rowDot,
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           Value g = mulF(nb, l, a[0], subF(nb, l, a[1], a[2]));
                           return mulF(nb, l, g,
                                       floatConst(nb, l, g.getType(), scale));
                         });
}

//===----------------------------------------------------------------------===//
// Whole
//===----------------------------------------------------------------------===//

/// softmax(q·kᵀ/√Dh) per head, future keys masked when `causal`:
/// `BxLqxHxDh, BxLkxHxDh -> BxHxLqxLk`.
Value buildAttentionProbs(OpBuilder &b, Location loc, Value q, Value k,
                          bool causal) {
  MLIRContext *ctx = b.getContext();
  Type t = cast<RankedTensorType>(q.getType()).getElementType();
  Value scores = contractFeatures(b, loc, q, k);
  // Scale by 1/√Dh and mask future keys with −∞ when causal.
  double scale = scaleOf(q);
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Value masked = buildMap(
      b, loc, scoresType, scores, identity(ctx, 4),
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value s = mulF(nb, l, a[0], floatConst(nb, l, t, scale));
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

Value buildWholeAttention(OpBuilder &b, Location loc,
                          const AttentionLoweringOptions &how, Value q, Value k,
                          Value v) {
  int64_t heads = how.numHeads;
  Value qs = splitHeads(b, loc, q, heads);
  Value ks = splitHeads(b, loc, k, heads);
  Value vs = splitHeads(b, loc, v, heads);
  Value probs = buildAttentionProbs(b, loc, qs, ks, how.causal);
  return mergeHeads(b, loc, contractKeys(b, loc, probs, vs));
}

std::array<Value, 3>
buildWholeAttentionGrad(OpBuilder &b, Location loc,
                        const AttentionLoweringOptions &how, Value q, Value k,
                        Value v, Value dOut) {
  // Recompute the probabilities P, then
  //   dV = Pᵀ·dO, dP = dO·Vᵀ, dS = P ⊙ (dP − Σ_j dP ⊙ P) / √Dh,
  //   dQ = dS·K, dK = dSᵀ·Q   (per batch and head).
  int64_t heads = how.numHeads;
  Value qs = splitHeads(b, loc, q, heads);
  Value ks = splitHeads(b, loc, k, heads);
  Value vs = splitHeads(b, loc, v, heads);
  Value dO = splitHeads(b, loc, dOut, heads);
  Value p = buildAttentionProbs(b, loc, qs, ks, how.causal);
  Value dV = contractQueries(b, loc, p, dO);
  Value dP = contractFeatures(b, loc, dO, vs);
  Value rowDot = rowSumOfProduct(b, loc, {dP, p});
  Value dS = scoreCotangent(b, loc, p, dP, rowDot, scaleOf(qs));
  Value dQ = contractKeys(b, loc, dS, ks);
  Value dK = contractQueries(b, loc, dS, qs);
  return {mergeHeads(b, loc, dQ), mergeHeads(b, loc, dK),
          mergeHeads(b, loc, dV)};
}

//===----------------------------------------------------------------------===//
// Chunked
//===----------------------------------------------------------------------===//

class ChunkedAttention {
public:
  ChunkedAttention(Location loc, const AttentionLoweringOptions &how, Value q,
                   Value k)
      : loc(loc), causal(how.causal), c(how.chunk), heads(how.numHeads) {
    auto qType = cast<RankedTensorType>(q.getType());
    auto kType = cast<RankedTensorType>(k.getType());
    t = qType.getElementType();
    batch = qType.getDimSize(0);
    lq = qType.getDimSize(1);
    lk = kType.getDimSize(1);
    headDim = qType.getDimSize(2) / heads;
    nq = (lq + c - 1) / c;
    nk = (lk + c - 1) / c;
    scale = 1.0 / std::sqrt(static_cast<double>(headDim));
    lowest = APFloat::getLargest(cast<FloatType>(t).getFloatSemantics(),
                                 /*Negative=*/true)
                 .convertToDouble();
  }

  Value forward(OpBuilder &b, Value q, Value k, Value v);
  std::array<Value, 3> backward(OpBuilder &b, Value q, Value k, Value v,
                                Value out, Value dOut);

private:
  /// Computes one tile (a query chunk against a key chunk at `offset` in the
  /// sequence being folded over) from the loop-carried values.
  using TileFn = llvm::function_ref<SmallVector<Value>(
      OpBuilder &, Value offset, bool masked, ValueRange carried)>;

  /// Applies `fn` to the chunks [lb, ub) without masks, in an scf.for, then
  /// (if `maskedOffset`) to the chunk at `maskedOffset` with masks.
  SmallVector<Value> foldChunks(OpBuilder &b, Value lb, Value ub,
                                bool loopMasked, Value maskedOffset,
                                ValueRange init, TileFn fn);
  /// Folds `fn` over the key chunks query chunk `iq` (at `i0`) attends to.
  SmallVector<Value> foldKeys(OpBuilder &b, Value iq, Value i0, ValueRange init,
                              TileFn fn);
  /// Folds `fn` over the query chunks that attend to key chunk `jk` (at
  /// `j0`); `keyMasked` if the key chunk holds padding.
  SmallVector<Value> foldQueries(OpBuilder &b, Value jk, Value j0,
                                 bool keyMasked, ValueRange init, TileFn fn);

  /// One step of the online softmax of query chunk `qi` (at `i0`) against
  /// key chunk `kj` (at `j0`): returns the new row maximum and sum, the
  /// tile's exp(S − m_new) and the factor exp(m_old − m_new).
  std::array<Value, 4> softmaxStep(OpBuilder &b, Value qi, Value i0, Value kj,
                                   Value j0, bool masked, Value m, Value l);
  /// exp(s/√Dh − stat) for a tile's scores `s` and a per-row statistic
  /// (the running maximum, or the log-sum-exp); zero for the keys hidden
  /// from query i of the chunk at `i0` when `masked`.
  Value expTile(OpBuilder &b, Value s, Value rowStat, bool masked, Value i0,
                Value j0);
  /// Per-row log-sum-exp of the scaled scores: `BxHxRq`.
  Value logSumExp(OpBuilder &b, Value qs, Value ks);

  /// Fills `whole` query chunk by query chunk in an scf.for: `fn` gets the
  /// chunk's index `iq`, offset `i0`, its rows `qi` of `qs` and the
  /// loop-carried `whole`, and returns `whole` with the chunk's part
  /// inserted.
  using QueryChunkFn = llvm::function_ref<Value(OpBuilder &, Value iq, Value i0,
                                                Value qi, Value whole)>;
  Value forEachQueryChunk(OpBuilder &b, Value qs, Value whole, QueryChunkFn fn);
  /// The online softmax's initial row maximum and sum for one chunk.
  SmallVector<Value> initialStats(OpBuilder &b, Location l) {
    return {filledTensor(b, l, statsShape(c), t, lowest),
            filledTensor(b, l, statsShape(c), t, 0.0)};
  }

  /// `x : BxLxD` padded with zero rows to `rows` and split: `BxRowsxHxDh`.
  Value prepare(OpBuilder &b, Value x, int64_t rows);
  /// The inverse of prepare: the first `length` rows, heads merged.
  Value finish(OpBuilder &b, Value x, int64_t length);
  /// Chunk-sized slices of a split tensor's rows and of row statistics.
  Value rows(OpBuilder &b, Value x, Value offset) {
    return extractAlong(b, loc, x, kRowDim, offset, c);
  }
  Value stats(OpBuilder &b, Value x, Value offset) {
    return extractAlong(b, loc, x, kStatDim, offset, c);
  }
  /// Scores of a tile: s[b,h,i,j] = Σ_e x[b,i,h,e]·y[b,j,h,e].
  Value scores(OpBuilder &b, Value x, Value y) {
    return contractFeatures(b, loc, x, y);
  }
  /// In the body of a generic over a tile (loops b, h, i, j): whether key j
  /// of the chunk at `j0` is visible from query i of the chunk at `i0`.
  Value visible(OpBuilder &b, Location l, Value i0, Value j0);
  Value chunkOffset(OpBuilder &b, Location l, Value chunk) {
    return arith::MulIOp::create(b, l, chunk, indexConst(b, l, c));
  }

  SmallVector<int64_t> splitShape(int64_t rows) const {
    return {batch, rows, heads, headDim};
  }
  SmallVector<int64_t> statsShape(int64_t rows) const {
    return {batch, heads, rows};
  }

  Location loc;
  bool causal;
  int64_t c, heads;
  Type t;
  int64_t batch = 0, lq = 0, lk = 0, headDim = 0, nq = 0, nk = 0;
  double scale = 0, lowest = 0;
};

Value ChunkedAttention::prepare(OpBuilder &b, Value x, int64_t rows) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getDimSize(1) != rows) {
    Value zeros = filledTensor(
        b, loc, {type.getDimSize(0), rows, type.getDimSize(2)}, t, 0.0);
    x = insertAlong(b, loc, x, zeros, 1, b.getIndexAttr(0));
  }
  return splitHeads(b, loc, x, heads);
}

Value ChunkedAttention::finish(OpBuilder &b, Value x, int64_t length) {
  Value merged = mergeHeads(b, loc, x);
  if (cast<RankedTensorType>(merged.getType()).getDimSize(1) == length)
    return merged;
  return extractAlong(b, loc, merged, 1, b.getIndexAttr(0), length);
}

Value ChunkedAttention::forEachQueryChunk(OpBuilder &b, Value qs, Value whole,
                                          QueryChunkFn fn) {
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, nq),
      indexConst(b, loc, 1), ValueRange{whole},
      [&](OpBuilder &nb, Location l, Value iq, ValueRange carried) {
        Value i0 = chunkOffset(nb, l, iq);
        scf::YieldOp::create(nb, l,
                             fn(nb, iq, i0, rows(nb, qs, i0), carried[0]));
      });
  return loop.getResult(0);
}

Value ChunkedAttention::visible(OpBuilder &b, Location l, Value i0, Value j0) {
  Value key = arith::AddIOp::create(b, l, j0, linalg::IndexOp::create(b, l, 3));
  if (!causal)
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, key,
                                 indexConst(b, l, lk));
  Value query =
      arith::AddIOp::create(b, l, i0, linalg::IndexOp::create(b, l, 2));
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, key, query);
}

SmallVector<Value> ChunkedAttention::foldChunks(OpBuilder &b, Value lb,
                                                Value ub, bool loopMasked,
                                                Value maskedOffset,
                                                ValueRange init, TileFn fn) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, indexConst(b, loc, 1), init,
      [&](OpBuilder &nb, Location l, Value chunk, ValueRange carried) {
        scf::YieldOp::create(
            nb, l, fn(nb, chunkOffset(nb, l, chunk), loopMasked, carried));
      });
  SmallVector<Value> results(loop.getResults());
  if (maskedOffset)
    results = fn(b, maskedOffset, /*masked=*/true, results);
  return results;
}

SmallVector<Value> ChunkedAttention::foldKeys(OpBuilder &b, Value iq, Value i0,
                                              ValueRange init, TileFn fn) {
  // Causal: the key chunks before the diagonal in full, the diagonal masked,
  // nothing after it.
  if (causal)
    return foldChunks(b, indexConst(b, loc, 0), iq, false, i0, init, fn);
  bool padded = nk * c != lk;
  return foldChunks(
      b, indexConst(b, loc, 0), indexConst(b, loc, padded ? nk - 1 : nk), false,
      padded ? indexConst(b, loc, (nk - 1) * c) : Value(), init, fn);
}

SmallVector<Value> ChunkedAttention::foldQueries(OpBuilder &b, Value jk,
                                                 Value j0, bool keyMasked,
                                                 ValueRange init, TileFn fn) {
  if (!causal)
    return foldChunks(b, indexConst(b, loc, 0), indexConst(b, loc, nq),
                      keyMasked, Value(), init, fn);
  // Causal: the diagonal chunk masked, then the later query chunks in full.
  SmallVector<Value> diagonal = fn(b, j0, /*masked=*/true, init);
  Value next = arith::AddIOp::create(b, loc, jk, indexConst(b, loc, 1));
  return foldChunks(b, next, indexConst(b, loc, nq), false, Value(), diagonal,
                    fn);
}

Value ChunkedAttention::expTile(OpBuilder &b, Value s, Value rowStat,
                                bool masked, Value i0, Value j0) {
  return buildRowwiseMap(
      b, loc, s, rowStat,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value x = mulF(nb, nl, a[0], floatConst(nb, nl, t, scale));
        Value e = math::ExpOp::create(nb, nl, subF(nb, nl, x, a[1]));
        if (!masked)
          return e;
        return arith::SelectOp::create(nb, nl, visible(nb, nl, i0, j0), e,
                                       floatConst(nb, nl, t, 0.0));
      });
}

std::array<Value, 4> ChunkedAttention::softmaxStep(OpBuilder &b, Value qi,
                                                   Value i0, Value kj, Value j0,
                                                   bool masked, Value m,
                                                   Value l) {
  MLIRContext *ctx = b.getContext();
  AffineMap id4 = identity(ctx, 4), row = dropLast(ctx, 4);
  SmallVector<IT> rowIterators = {IT::parallel, IT::parallel, IT::parallel,
                                  IT::reduction};
  Value s = scores(b, qi, kj);

  // m_new = max(m_old, max_j s/√Dh over the visible keys).
  Value mNew =
      buildGeneric(b, loc, s, id4, m, row, rowIterators,
                   [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                     Value x = mulF(nb, nl, a[0], floatConst(nb, nl, t, scale));
                     Value larger = arith::MaximumFOp::create(nb, nl, x, a[1]);
                     if (!masked)
                       return larger;
                     return arith::SelectOp::create(
                         nb, nl, visible(nb, nl, i0, j0), larger, a[1]);
                   });
  Value p = expTile(b, s, mNew, masked, i0, j0);
  Value alpha = buildElementwise(
      b, loc, {m, mNew}, [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return math::ExpOp::create(nb, nl, subF(nb, nl, a[0], a[1]));
      });
  Value lScaled = buildElementwise(
      b, loc, {l, alpha}, [](OpBuilder &nb, Location nl, ValueRange a) {
        return mulF(nb, nl, a[0], a[1]);
      });
  Value lNew =
      buildGeneric(b, loc, p, id4, lScaled, row, rowIterators, sumStep);
  return {mNew, lNew, p, alpha};
}

Value ChunkedAttention::forward(OpBuilder &b, Value q, Value k, Value v) {
  MLIRContext *ctx = b.getContext();
  Value qs = prepare(b, q, nq * c), ks = prepare(b, k, nk * c),
        vs = prepare(b, v, nk * c);
  auto accType = RankedTensorType::get(splitShape(c), t);
  // acc[b,i,h,e] scaled by a per-row factor f[b,h,i].
  AffineMap id4 = identity(ctx, 4), perRow = selectDims(ctx, 4, {0, 2, 1});
  Value out = forEachQueryChunk(
      b, qs, tensor::EmptyOp::create(b, loc, splitShape(nq * c), t),
      [&](OpBuilder &nb, Value iq, Value i0, Value qi, Value whole) {
        SmallVector<Value> init = initialStats(nb, loc);
        init.push_back(filledTensor(nb, loc, splitShape(c), t, 0.0));
        SmallVector<Value> state = foldKeys(
            nb, iq, i0, init,
            [&](OpBuilder &tb, Value j0, bool masked, ValueRange s) {
              auto [mNew, lNew, p, alpha] = softmaxStep(
                  tb, qi, i0, rows(tb, ks, j0), j0, masked, s[0], s[1]);
              Value accScaled =
                  buildMap(tb, loc, accType, {s[2], alpha}, {id4, perRow},
                           [](OpBuilder &eb, Location el, ValueRange a) {
                             return mulF(eb, el, a[0], a[1]);
                           });
              Value acc = contractKeys(tb, loc, p, rows(tb, vs, j0), accScaled);
              return SmallVector<Value>{mNew, lNew, acc};
            });
        Value o = buildMap(
            nb, loc, accType, {state[2], state[1]}, {id4, perRow},
            [](OpBuilder &eb, Location el, ValueRange a) {
              return arith::DivFOp::create(eb, el, a[0], a[1]).getResult();
            });
        return insertAlong(nb, loc, o, whole, kRowDim, i0);
      });
  return finish(b, out, lq);
}

Value ChunkedAttention::logSumExp(OpBuilder &b, Value qs, Value ks) {
  return forEachQueryChunk(
      b, qs, tensor::EmptyOp::create(b, loc, statsShape(nq * c), t),
      [&](OpBuilder &nb, Value iq, Value i0, Value qi, Value whole) {
        SmallVector<Value> state =
            foldKeys(nb, iq, i0, initialStats(nb, loc),
                     [&](OpBuilder &tb, Value j0, bool masked, ValueRange s) {
                       auto [mNew, lNew, p, alpha] =
                           softmaxStep(tb, qi, i0, rows(tb, ks, j0), j0, masked,
                                       s[0], s[1]);
                       return SmallVector<Value>{mNew, lNew};
                     });
        Value chunkLse = buildElementwise(
            nb, loc, {state[0], state[1]},
            [](OpBuilder &eb, Location el, ValueRange a) {
              return addF(eb, el, a[0], math::LogOp::create(eb, el, a[1]));
            });
        return insertAlong(nb, loc, chunkLse, whole, kStatDim, i0);
      });
}

std::array<Value, 3> ChunkedAttention::backward(OpBuilder &b, Value q, Value k,
                                                Value v, Value out,
                                                Value dOut) {
  MLIRContext *ctx = b.getContext();
  Value qs = prepare(b, q, nq * c), ks = prepare(b, k, nk * c),
        vs = prepare(b, v, nk * c), os = prepare(b, out, nq * c),
        dos = prepare(b, dOut, nq * c);

  // rowdot[b,h,i] = Σ_e dO[b,i,h,e]·O[b,i,h,e]   (loops b, h, i, e).
  AffineMap split = selectDims(ctx, 4, {0, 2, 1, 3});
  Value rowDot = buildGeneric(
      b, loc, {dos, os}, {split, split},
      filledTensor(b, loc, statsShape(nq * c), t, 0.0), dropLast(ctx, 4),
      {IT::parallel, IT::parallel, IT::parallel, IT::reduction}, mulAddStep);
  Value lse = logSumExp(b, qs, ks);

  auto tile = [&](OpBuilder &tb, Value kj, Value vj, Value j0, Value i0,
                  bool masked, ValueRange carried) -> SmallVector<Value> {
    Value qi = rows(tb, qs, i0), doi = rows(tb, dos, i0);
    Value s = scores(tb, qi, kj);
    Value p = expTile(tb, s, stats(tb, lse, i0), masked, i0, j0);
    Value dVj = contractQueries(tb, loc, p, doi, carried[2]);
    Value dP = scores(tb, doi, vj);
    Value dS = scoreCotangent(tb, loc, p, dP, stats(tb, rowDot, i0), scale);
    Value dQi = contractKeys(tb, loc, dS, kj, rows(tb, carried[0], i0));
    Value dKj = contractQueries(tb, loc, dS, qi, carried[1]);
    return {insertAlong(tb, loc, dQi, carried[0], kRowDim, i0), dKj, dVj};
  };

  // Key chunk `jk` at `j0`: folds its query chunks, then stores dK_j, dV_j.
  auto keyChunk = [&](OpBuilder &nb, Value jk, Value j0, bool keyMasked,
                      ValueRange carried) -> SmallVector<Value> {
    Value kj = rows(nb, ks, j0), vj = rows(nb, vs, j0);
    // dK_j and dV_j accumulate in their rows of dK and dV.
    auto zeroRows = [&](Value whole) -> Value {
      Value zero = floatConst(nb, loc, t, 0.0);
      return linalg::FillOp::create(nb, loc, zero, rows(nb, whole, j0))
          .getResult(0);
    };
    SmallVector<Value> init = {carried[0], zeroRows(carried[1]),
                               zeroRows(carried[2])};
    SmallVector<Value> r =
        foldQueries(nb, jk, j0, keyMasked, init,
                    [&](OpBuilder &tb, Value i0, bool masked, ValueRange s) {
                      return tile(tb, kj, vj, j0, i0, masked, s);
                    });
    return {r[0], insertAlong(nb, loc, r[1], carried[1], kRowDim, j0),
            insertAlong(nb, loc, r[2], carried[2], kRowDim, j0)};
  };

  SmallVector<Value> init = {
      filledTensor(b, loc, splitShape(nq * c), t, 0.0),
      tensor::EmptyOp::create(b, loc, splitShape(nk * c), t),
      tensor::EmptyOp::create(b, loc, splitShape(nk * c), t)};
  // Without a causal mask, a key chunk that holds padding is masked in
  // every tile: it is peeled off the loop.
  bool keyPadded = !causal && nk * c != lk;
  int64_t fullKeyChunks = keyPadded ? nk - 1 : nk;
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, fullKeyChunks),
      indexConst(b, loc, 1), init,
      [&](OpBuilder &nb, Location l, Value jk, ValueRange carried) {
        scf::YieldOp::create(
            nb, l, keyChunk(nb, jk, chunkOffset(nb, l, jk), false, carried));
      });
  SmallVector<Value> grads(loop.getResults());
  if (keyPadded)
    grads = keyChunk(b, indexConst(b, loc, nk - 1),
                     indexConst(b, loc, (nk - 1) * c), true, grads);
  return {finish(b, grads[0], lq), finish(b, grads[1], lk),
          finish(b, grads[2], lk)};
}

} // namespace

Value trellis::buildAttention(OpBuilder &b, Location loc,
                              const AttentionLoweringOptions &how, Value q,
                              Value k, Value v) {
  int64_t lq = cast<RankedTensorType>(q.getType()).getDimSize(1);
  int64_t lk = cast<RankedTensorType>(k.getType()).getDimSize(1);
  if (!how.isChunked(lq, lk))
    return buildWholeAttention(b, loc, how, q, k, v);
  return ChunkedAttention(loc, how, q, k).forward(b, q, k, v);
}

std::array<Value, 3>
trellis::buildAttentionGrad(OpBuilder &b, Location loc,
                            const AttentionLoweringOptions &how, Value q,
                            Value k, Value v, Value out, Value dOut) {
  int64_t lq = cast<RankedTensorType>(q.getType()).getDimSize(1);
  int64_t lk = cast<RankedTensorType>(k.getType()).getDimSize(1);
  if (!how.isChunked(lq, lk))
    return buildWholeAttentionGrad(b, loc, how, q, k, v, dOut);
  return ChunkedAttention(loc, how, q, k).backward(b, q, k, v, out, dOut);
}
