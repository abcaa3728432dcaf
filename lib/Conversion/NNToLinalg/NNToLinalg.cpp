//===- NNToLinalg.cpp - Lower nn layers to linalg on tensors --------------===//
//
// Every nn op becomes destination-style tensor code. Matmuls stay named
// (linalg.matmul) so later passes can hand them to a BLAS; everything else is
// a linalg.generic whose body is the op's scalar meaning. Numerically careful
// forms throughout: the row maximum is subtracted before exp, cross-entropy
// is logsumexp minus the picked logit, layer_norm adds epsilon to the
// variance.
//
//===----------------------------------------------------------------------===//

#include "trellis/Conversion/NNToLinalg/NNToLinalg.h"

#include "Attention.h"

#include "trellis/Dialect/NN/IR/NN.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

namespace trellis {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "trellis/Conversion/Passes.h.inc"
} // namespace trellis

using namespace mlir;
using namespace trellis;
using namespace trellis::nn;
using namespace trellis::builders;

namespace {

//===----------------------------------------------------------------------===//
// Threefry-2x32 (20 rounds, the variant JAX uses) in arith ops on i32.
//===----------------------------------------------------------------------===//

std::pair<Value, Value> buildThreefry2x32(OpBuilder &b, Location loc, Value k0,
                                          Value k1, Value c0, Value c1) {
  static constexpr unsigned kRotations[2][4] = {{13, 15, 26, 6},
                                                {17, 29, 16, 24}};
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto rotl = [&](Value x, unsigned r) -> Value {
    Value left = arith::ShLIOp::create(b, loc, x, i32Const(b, loc, r));
    Value right = arith::ShRUIOp::create(b, loc, x, i32Const(b, loc, 32 - r));
    return arith::OrIOp::create(b, loc, left, right);
  };
  Value ks[3] = {k0, k1,
                 arith::XOrIOp::create(
                     b, loc, arith::XOrIOp::create(b, loc, k0, k1),
                     i32Const(b, loc, 0x1BD11BDA))};
  Value x0 = add(c0, ks[0]), x1 = add(c1, ks[1]);
  for (unsigned group = 0; group < 5; ++group) {
    for (unsigned r : kRotations[group % 2]) {
      x0 = add(x0, x1);
      x1 = arith::XOrIOp::create(b, loc, rotl(x1, r), x0);
    }
    x0 = add(x0, ks[(group + 1) % 3]);
    x1 = add(add(x1, ks[(group + 2) % 3]), i32Const(b, loc, group + 1));
  }
  return {x0, x1};
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct DenseLowering : OpConversionPattern<DenseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DenseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    Value x2 = toMatrix(rewriter, loc, adaptor.getX());
    auto y2Type = RankedTensorType::get(
        {cast<RankedTensorType>(x2.getType()).getDimSize(0),
         resultType.getShape().back()},
        resultType.getElementType());
    // The matmul accumulates onto the broadcast bias.
    Value init = buildMap(rewriter, loc, y2Type, adaptor.getB(),
                          lastOnly(getContext(), 2),
                          [](OpBuilder &, Location, ValueRange a) -> Value {
                            return a[0];
                          });
    Value y2 = linalg::MatmulOp::create(rewriter, loc, TypeRange{y2Type},
                                        ValueRange{x2, adaptor.getW()},
                                        ValueRange{init})
                   .getResult(0);
    Value y = fromMatrix(rewriter, loc, y2, resultType);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Unary elementwise layers: the body is the op's scalar function.
template <typename OpTy>
struct UnaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  static Value scalar(OpTy op, OpBuilder &b, Location loc, Value x);

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value y = buildMap(rewriter, op.getLoc(), type, adaptor.getX(),
                       identity(rewriter.getContext(), type.getRank()),
                       [&](OpBuilder &b, Location loc, ValueRange a) {
                         return scalar(op, b, loc, a[0]);
                       });
    rewriter.replaceOp(op, y);
    return success();
  }
};

template <>
Value UnaryLowering<ReluOp>::scalar(ReluOp, OpBuilder &b, Location loc,
                                    Value x) {
  return arith::MaximumFOp::create(b, loc, x,
                                   floatConst(b, loc, x.getType(), 0.0));
}

template <>
Value UnaryLowering<TanhOp>::scalar(TanhOp, OpBuilder &b, Location loc,
                                    Value x) {
  return math::TanhOp::create(b, loc, x);
}

template <>
Value UnaryLowering<GeluOp>::scalar(GeluOp op, OpBuilder &b, Location loc,
                                    Value x) {
  Type t = x.getType();
  Value half = floatConst(b, loc, t, 0.5);
  if (!op.getApproximate()) {
    // x·Φ(x) = ½·x·erfc(−x/√2): the erfc form keeps its relative accuracy
    // for negative x, where 1 + erf(x/√2) cancels.
    Value arg = arith::MulFOp::create(b, loc, x,
                                      floatConst(b, loc, t, -M_SQRT1_2));
    Value cdf2 = math::ErfcOp::create(b, loc, arg);
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                                 cdf2);
  }
  // ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
  Value one = floatConst(b, loc, t, 1.0);
  Value x3 =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
  Value poly = arith::AddFOp::create(
      b, loc, x,
      arith::MulFOp::create(b, loc, floatConst(b, loc, t, 0.044715), x3));
  Value inner = math::TanhOp::create(
      b, loc,
      arith::MulFOp::create(b, loc,
                            floatConst(b, loc, t, std::sqrt(2.0 / M_PI)), poly));
  Value factor = arith::MulFOp::create(
      b, loc, half, arith::AddFOp::create(b, loc, one, inner));
  return arith::MulFOp::create(b, loc, x, factor);
}

template <typename OpTy, bool Log>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildSoftmax(rewriter, op.getLoc(), adaptor.getX(), Log));
    return success();
  }
};

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = op.getX().getType();
    unsigned rank = type.getRank();
    Type t = type.getElementType();
    double invD = 1.0 / static_cast<double>(type.getShape().back());
    Value x = adaptor.getX();
    AffineMap id = identity(ctx, rank), row = dropLast(ctx, rank);

    Value sum = buildRowReduce(rewriter, loc, type, x, id, 0.0,
                               [](OpBuilder &b, Location l, ValueRange a) {
                                 return arith::AddFOp::create(b, l, a[0], a[1])
                                     .getResult();
                               });
    // Two-pass variance: Σ (x − mean)², which stays accurate for large means.
    Value sqDev = buildRowReduce(
        rewriter, loc, type, {x, sum}, {id, row}, 0.0,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value mean = arith::MulFOp::create(b, l, a[1], floatConst(b, l, t, invD));
          Value dev = arith::SubFOp::create(b, l, a[0], mean);
          return arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, dev, dev), a[2]);
        });
    double eps = op.getEpsilon().convertToDouble();
    Value y = buildMap(
        rewriter, loc, type,
        {x, sum, sqDev, adaptor.getScale(), adaptor.getBias()},
        {id, row, row, lastOnly(ctx, rank), lastOnly(ctx, rank)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value invDC = floatConst(b, l, t, invD);
          Value mean = arith::MulFOp::create(b, l, a[1], invDC);
          Value var = arith::MulFOp::create(b, l, a[2], invDC);
          Value denom = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, floatConst(b, l, t, eps)));
          Value norm = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], mean), denom);
          return arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, norm, a[3]), a[4]);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct CrossEntropyLowering : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto type = op.getLogits().getType();
    Value logits = adaptor.getLogits();
    auto [max, sum] = buildStableExpSum(rewriter, loc, logits);

    // The logit of the label, as a masked row sum (no gather, no
    // out-of-bounds read for a bad label).
    Value picked = buildRowReduce(
        rewriter, loc, type, {logits, adaptor.getLabels()},
        {identity(ctx, 2), dropLast(ctx, 2)}, 0.0,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value c = arith::IndexCastOp::create(
              b, l, b.getI32Type(), linalg::IndexOp::create(b, l, 1));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, c,
                                            a[1]);
          Value zero = floatConst(b, l, a[0].getType(), 0.0);
          return arith::AddFOp::create(
              b, l, arith::SelectOp::create(b, l, hit, a[0], zero), a[2]);
        });
    auto rowType =
        RankedTensorType::get({type.getDimSize(0)}, type.getElementType());
    Value perRow = buildMap(
        rewriter, loc, rowType, {max, sum, picked},
        {identity(ctx, 1), identity(ctx, 1), identity(ctx, 1)},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value lse = arith::AddFOp::create(b, l, a[0],
                                            math::LogOp::create(b, l, a[1]));
          return arith::SubFOp::create(b, l, lse, a[2]);
        });
    double invB = 1.0 / static_cast<double>(type.getDimSize(0));
    rewriter.replaceOp(op, buildScaledTotal(rewriter, loc, perRow, invB));
    return success();
  }
};

struct MeanLowering : OpConversionPattern<MeanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double n = static_cast<double>(op.getX().getType().getNumElements());
    rewriter.replaceOp(
        op, buildScaledTotal(rewriter, op.getLoc(), adaptor.getX(), 1.0 / n));
    return success();
  }
};

struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto resultType = op.getResult().getType();
    unsigned rank = resultType.getRank();
    int64_t rows = op.getTable().getType().getDimSize(0);
    Value table = adaptor.getTable();
    Value y = buildMap(
        rewriter, loc, resultType, adaptor.getIds(), dropLast(ctx, rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          // Clamp to [0, V) as XLA's gather does: never read outside.
          Value lo = arith::ConstantIntOp::create(b, l, b.getI32Type(), 0);
          Value hi = arith::ConstantIntOp::create(b, l, b.getI32Type(),
                                                  rows - 1);
          Value id = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, a[0], lo), hi);
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// How an attention op (nn.attention or nn.attention_grad) is lowered.
template <typename OpTy>
AttentionLoweringOptions attentionOptions(OpTy op, int64_t chunk) {
  return {static_cast<int64_t>(op.getNumHeads()), op.getCausal(), chunk};
}

/// Attention and its VJP, whole or in chunks (Attention.cpp).
struct AttentionLowering : OpConversionPattern<AttentionOp> {
  AttentionLowering(MLIRContext *ctx, int64_t chunk)
      : OpConversionPattern(ctx), chunk(chunk) {}
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    AttentionLoweringOptions how = attentionOptions(op, chunk);
    rewriter.replaceOp(op, buildAttention(rewriter, op.getLoc(), how,
                                          adaptor.getQ(), adaptor.getK(),
                                          adaptor.getV()));
    return success();
  }
  int64_t chunk;
};

struct AttentionGradLowering : OpConversionPattern<AttentionGradOp> {
  AttentionGradLowering(MLIRContext *ctx, int64_t chunk)
      : OpConversionPattern(ctx), chunk(chunk) {}
  LogicalResult
  matchAndRewrite(AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    AttentionLoweringOptions how = attentionOptions(op, chunk);
    std::array<Value, 3> grads = buildAttentionGrad(
        rewriter, op.getLoc(), how, adaptor.getQ(), adaptor.getK(),
        adaptor.getV(), adaptor.getOut(), adaptor.getDOut());
    rewriter.replaceOp(op, grads);
    return success();
  }
  int64_t chunk;
};

struct DropoutLowering : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getX().getType();
    unsigned rank = type.getRank();
    Type t = type.getElementType();
    double rate = op.getRate().convertToDouble();

    // The key as two signless words. arith works on signless integers only
    // and tensor.bitcast has no bufferization, so a `ui32` word is
    // reinterpreted after extraction; the cast folds away in the LLVM
    // dialect, where both are i32.
    Value key = adaptor.getKey();
    auto word = [&](int64_t i) -> Value {
      Value idx = arith::ConstantIndexOp::create(rewriter, loc, i);
      Value w = tensor::ExtractOp::create(rewriter, loc, key, ValueRange{idx});
      if (w.getType().isSignlessInteger())
        return w;
      return UnrealizedConversionCastOp::create(rewriter, loc,
                                                rewriter.getI32Type(), w)
          .getResult(0);
    };
    Value k0 = word(0), k1 = word(1);

    // Keep when the first random word ≥ round(rate·2³²) (unsigned).
    uint64_t threshold =
        static_cast<uint64_t>(std::llround(rate * 4294967296.0));
    threshold = std::min<uint64_t>(threshold, 0xFFFFFFFFull);
    double keepScale = 1.0 / (1.0 - rate);
    ArrayRef<int64_t> shape = type.getShape();
    Value y = buildMap(
        rewriter, loc, type, adaptor.getX(),
        identity(getContext(), rank),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          // Row-major linear index of the element, split into two words.
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (unsigned dim = 0; dim < rank; ++dim) {
            Value extent = arith::ConstantIndexOp::create(b, l, shape[dim]);
            linear = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, linear, extent),
                linalg::IndexOp::create(b, l, dim));
          }
          Value wide = arith::IndexCastUIOp::create(b, l, b.getI64Type(), linear);
          Value lo = arith::TruncIOp::create(b, l, b.getI32Type(), wide);
          Value hi = arith::TruncIOp::create(
              b, l, b.getI32Type(),
              arith::ShRUIOp::create(
                  b, l, wide,
                  arith::ConstantIntOp::create(b, l, b.getI64Type(), 32)));
          Value bits = buildThreefry2x32(b, l, k0, k1, lo, hi).first;
          Value keep = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::uge, bits,
              i32Const(b, l, static_cast<uint32_t>(threshold)));
          Value scaled =
              arith::MulFOp::create(b, l, a[0], floatConst(b, l, t, keepScale));
          return arith::SelectOp::create(b, l, keep, scaled,
                                         floatConst(b, l, t, 0.0));
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Moves the single block of `region` before `op` with `args` for its
/// arguments and returns the values its terminator yielded.
SmallVector<Value> inlineBody(ConversionPatternRewriter &rewriter,
                              Operation *op, Region &region, ValueRange args) {
  Block &body = region.front();
  Operation *yield = body.getTerminator();
  rewriter.inlineBlockBefore(&body, op, args);
  SmallVector<Value> yielded(yield->getOperands());
  rewriter.eraseOp(yield);
  return yielded;
}

struct ReversibleHalfResidualLowering
    : OpConversionPattern<ReversibleHalfResidualOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReversibleHalfResidualOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> yielded =
        inlineBody(rewriter, op, op.getBody(), adaptor.getCtx());
    auto type = cast<RankedTensorType>(op.getAcc().getType());
    Value sum = buildMap(
        rewriter, op.getLoc(), type, {adaptor.getAcc(), yielded.front()},
        {identity(getContext(), type.getRank()),
         identity(getContext(), type.getRank())},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, a[0], a[1]);
        });
    SmallVector<Value> results{sum};
    llvm::append_range(results, adaptor.getCtx());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ReversibleSwapLowering : OpConversionPattern<ReversibleSwapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReversibleSwapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, {adaptor.getB(), adaptor.getA()});
    return success();
  }
};

struct ReversibleSerialLowering : OpConversionPattern<ReversibleSerialOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReversibleSerialOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, inlineBody(rewriter, op, op.getBody(),
                                      adaptor.getInputs()));
    return success();
  }
};

struct ConvertNNToLinalgPass
    : trellis::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  using ConvertNNToLinalgBase::ConvertNNToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NNDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (attentionChunk < 0) {
      getOperation()->emitError("convert-nn-to-linalg: attention-chunk must "
                                "be ≥ 0, got ")
          << static_cast<int64_t>(attentionChunk);
      return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    populateNNToLinalgPatterns(patterns, attentionChunk);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void trellis::populateNNToLinalgPatterns(RewritePatternSet &patterns,
                                         int64_t attentionChunk) {
  patterns.add<DenseLowering, UnaryLowering<ReluOp>, UnaryLowering<TanhOp>,
               UnaryLowering<GeluOp>, SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>, LayerNormLowering,
               CrossEntropyLowering, MeanLowering, EmbeddingLowering,
               DropoutLowering,
               ReversibleHalfResidualLowering, ReversibleSwapLowering,
               ReversibleSerialLowering>(patterns.getContext());
  patterns.add<AttentionLowering, AttentionGradLowering>(patterns.getContext(),
                                                         attentionChunk);
}
