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
#include "trellis/Utils/WindowBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
                 arith::XOrIOp::create(b, loc,
                                       arith::XOrIOp::create(b, loc, k0, k1),
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

/// Replaces an `OpTy` with what `Lower(op, adaptor, rewriter)` builds (a
/// value, or a range of them): each layer's lowering is one function.
template <typename OpTy, auto Lower>
struct Lowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, Lower(op, adaptor, rewriter));
    return success();
  }
};

Value lowerDense(DenseOp op, DenseOp::Adaptor adaptor,
                 ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto resultType = op.getResult().getType();
  Value x2 = toMatrix(rewriter, loc, adaptor.getX());
  auto y2Type =
      RankedTensorType::get({cast<RankedTensorType>(x2.getType()).getDimSize(0),
                             resultType.getShape().back()},
                            resultType.getElementType());
  // The matmul accumulates onto the broadcast bias.
  Value init = buildMap(
      rewriter, loc, y2Type, adaptor.getB(), lastOnly(rewriter.getContext(), 2),
      [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
  Value y2 =
      linalg::MatmulOp::create(rewriter, loc, TypeRange{y2Type},
                               ValueRange{x2, adaptor.getW()}, ValueRange{init})
          .getResult(0);
  return fromMatrix(rewriter, loc, y2, resultType);
}

Value lowerConv2D(Conv2DOp op, Conv2DOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) {
  // im2col, then one GEMM onto the broadcast bias (docs/vision.md).
  Location loc = op.getLoc();
  Window2D win = op.getGeometry();
  auto resultType = op.getResult().getType();
  Value cols = buildIm2Col(
      rewriter, loc, padSpatial(rewriter, loc, adaptor.getX(), win, 0.0), win);
  auto y2Type = RankedTensorType::get(
      {cast<RankedTensorType>(cols.getType()).getDimSize(0),
       resultType.getShape().back()},
      resultType.getElementType());
  Value init = buildMap(
      rewriter, loc, y2Type, adaptor.getB(), lastOnly(rewriter.getContext(), 2),
      [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
  Value y2 = linalg::MatmulOp::create(
                 rewriter, loc, TypeRange{y2Type},
                 ValueRange{cols, toMatrix(rewriter, loc, adaptor.getW())},
                 ValueRange{init})
                 .getResult(0);
  return fromMatrix(rewriter, loc, y2, resultType);
}

Value lowerMaxPool2D(MaxPool2DOp op, MaxPool2DOp::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter) {
  // −∞ padding never wins; maximumf propagates a NaN, as PyTorch does.
  Location loc = op.getLoc();
  Window2D win = op.getGeometry();
  double lowest = -std::numeric_limits<double>::infinity();
  return buildWindowReduce(
      rewriter, loc, padSpatial(rewriter, loc, adaptor.getX(), win, lowest),
      win, lowest, [](OpBuilder &b, Location l, ValueRange a) -> Value {
        return arith::MaximumFOp::create(b, l, a[0], a[1]);
      });
}

Value lowerAvgPool2D(AvgPool2DOp op, AvgPool2DOp::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter) {
  // Σ x/(kh·kw) over the zero-padded window (padding counts).
  Location loc = op.getLoc();
  Window2D win = op.getGeometry();
  double inv = 1.0 / static_cast<double>(win.kh * win.kw);
  return buildWindowReduce(
      rewriter, loc, padSpatial(rewriter, loc, adaptor.getX(), win, 0.0), win,
      0.0, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        return addF(b, l, mulF(b, l, a[0], constantLike(b, l, a[0], inv)),
                    a[1]);
      });
}

SmallVector<Value> lowerBatchNorm(BatchNormOp op, BatchNormOp::Adaptor adaptor,
                                  ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto type = op.getX().getType();
  Value x2 = toMatrix(rewriter, loc, adaptor.getX());
  int64_t m = cast<RankedTensorType>(x2.getType()).getDimSize(0);
  double eps = op.getEpsilonValue(), momentum = op.getMomentumValue();
  Value mean = adaptor.getMean(), var = adaptor.getVar();
  Value newMean = mean, newVar = var;
  if (op.getTraining()) {
    auto [batchMean, batchVar] = op.buildBatchStatistics(rewriter, x2);
    // PyTorch's running update, with the unbiased batch variance: the
    // variance's weight is m·n/(n − 1), n the count the statistics are over
    // (M, or M times the ranks of axis_name, known when the program runs).
    Type t = type.getElementType();
    Value varWeight;
    if (!op.getAxisName()) {
      varWeight = floatConst(rewriter, loc, t,
                             momentum * static_cast<double>(m) /
                                 static_cast<double>(m - 1));
    } else {
      Value count = op.buildStatisticsCount(rewriter, m);
      Value less = arith::SubFOp::create(rewriter, loc, count,
                                         floatConst(rewriter, loc, t, 1.0));
      varWeight = arith::MulFOp::create(
          rewriter, loc, floatConst(rewriter, loc, t, momentum),
          arith::DivFOp::create(rewriter, loc, count, less));
    }
    auto blend = [&](Value old, Value batch, Value weight) {
      return buildElementwise(
          rewriter, loc, {old, batch},
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value keep =
                mulF(b, l, a[0], constantLike(b, l, a[0], 1 - momentum));
            return addF(b, l, keep, mulF(b, l, a[1], weight));
          });
    };
    newMean = blend(mean, batchMean, floatConst(rewriter, loc, t, momentum));
    newVar = blend(var, batchVar, varWeight);
    mean = batchMean;
    var = batchVar;
  }
  // Per channel once: a = scale / sqrt(var + eps); per element only
  // (x − mean)·a + bias (no square root or division in the big loop).
  Value a = buildElementwise(
      rewriter, loc, {adaptor.getScale(), var},
      [&](OpBuilder &b, Location l, ValueRange v) -> Value {
        Value sd = math::SqrtOp::create(
            b, l, addF(b, l, v[1], constantLike(b, l, v[1], eps)));
        return arith::DivFOp::create(b, l, v[0], sd);
      });
  AffineMap id = identity(ctx, 2), col = selectDims(ctx, 2, {1});
  Value y2 =
      buildMap(rewriter, loc, cast<RankedTensorType>(x2.getType()),
               {x2, mean, a, adaptor.getBias()}, {id, col, col, col},
               [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                 return addF(b, l, mulF(b, l, subF(b, l, v[0], v[1]), v[2]),
                             v[3]);
               });
  return {fromMatrix(rewriter, loc, y2, type), newMean, newVar};
}

Value lowerFlatten(FlattenOp op, FlattenOp::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter) {
  return flattenTrailing(rewriter, op.getLoc(), adaptor.getX());
}

/// The scalar functions of the unary elementwise layers.
Value scalarOf(ReluOp, OpBuilder &b, Location loc, Value x) {
  return arith::MaximumFOp::create(b, loc, x,
                                   floatConst(b, loc, x.getType(), 0.0));
}

Value scalarOf(TanhOp, OpBuilder &b, Location loc, Value x) {
  return math::TanhOp::create(b, loc, x);
}

Value scalarOf(SigmoidOp, OpBuilder &b, Location loc, Value x) {
  // 1 / (1 + e^-x): for x very negative e^-x is +inf and the result 0.
  Type t = x.getType();
  Value one = floatConst(b, loc, t, 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value scalarOf(GeluOp op, OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value half = floatConst(b, loc, t, 0.5);
  if (!op.getApproximate()) {
    // x·Φ(x) = ½·x·erfc(−x/√2): the erfc form keeps its relative accuracy
    // for negative x, where 1 + erf(x/√2) cancels.
    Value arg =
        arith::MulFOp::create(b, loc, x, floatConst(b, loc, t, -M_SQRT1_2));
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
      arith::MulFOp::create(
          b, loc, floatConst(b, loc, t, std::sqrt(2.0 / M_PI)), poly));
  Value factor = arith::MulFOp::create(
      b, loc, half, arith::AddFOp::create(b, loc, one, inner));
  return arith::MulFOp::create(b, loc, x, factor);
}

/// Unary elementwise layers: the body is the op's scalar function.
template <typename OpTy>
Value lowerUnary(OpTy op, typename OpTy::Adaptor adaptor,
                 ConversionPatternRewriter &rewriter) {
  return buildElementwise(rewriter, op.getLoc(), adaptor.getX(),
                          [&](OpBuilder &b, Location loc, ValueRange a) {
                            return scalarOf(op, b, loc, a[0]);
                          });
}

template <typename OpTy, bool Log>
Value lowerSoftmax(OpTy op, typename OpTy::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter) {
  return buildSoftmax(rewriter, op.getLoc(), adaptor.getX(), Log);
}

Value lowerLayerNorm(LayerNormOp op, LayerNormOp::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto type = op.getX().getType();
  unsigned rank = type.getRank();
  Type t = type.getElementType();
  double invD = 1.0 / static_cast<double>(type.getShape().back());
  Value x = adaptor.getX();
  AffineMap id = identity(ctx, rank), row = dropLast(ctx, rank);
  auto [sum, sqDev] = buildRowMoments(rewriter, loc, x);
  double eps = op.getEpsilonValue();
  return buildMap(
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
}

Value lowerCrossEntropy(CrossEntropyOp op, CrossEntropyOp::Adaptor adaptor,
                        ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto type = op.getLogits().getType();
  unsigned rank = type.getRank();
  Value logits = adaptor.getLogits();
  auto [max, sum] = buildStableExpSum(rewriter, loc, logits);

  // The logit of the label, as a masked row sum (no gather, no
  // out-of-bounds read for a bad label).
  Value picked = buildRowReduce(
      rewriter, loc, type, {logits, adaptor.getLabels()},
      {identity(ctx, rank), dropLast(ctx, rank)}, 0.0,
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value hit = loopIndexEquals(b, l, rank - 1, a[1]);
        Value zero = floatConst(b, l, a[0].getType(), 0.0);
        return addF(b, l, arith::SelectOp::create(b, l, hit, a[0], zero), a[2]);
      });
  Value perRow =
      buildElementwise(rewriter, loc, {max, sum, picked},
                       [](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value lse =
                             addF(b, l, a[0], math::LogOp::create(b, l, a[1]));
                         return subF(b, l, lse, a[2]);
                       });
  // The mean over all leading positions.
  double invRows = static_cast<double>(type.getShape().back()) /
                   static_cast<double>(type.getNumElements());
  return buildScaledTotal(rewriter, loc, perRow, invRows);
}

Value lowerMean(MeanOp op, MeanOp::Adaptor adaptor,
                ConversionPatternRewriter &rewriter) {
  double n = static_cast<double>(op.getX().getType().getNumElements());
  return buildScaledTotal(rewriter, op.getLoc(), adaptor.getX(), 1.0 / n);
}

/// The runtime's one-line error exit (trellis/ExecutionEngine/
/// CollectivesRuntime.h, which every JIT host and trellis-aot link): prints
/// "trellis: rank R: <message>" and ends the process, or the job under MPI.
constexpr StringLiteral kAbortFunction = "trellis_coll_abort";

/// Emits, before `op`, a check that ends the run with `message` when
/// `failed` (an i1) is true: a call of kAbortFunction with the message as a
/// NUL-terminated LLVM global. Declares both in the enclosing module.
void emitRunTimeCheck(ConversionPatternRewriter &rewriter, Operation *op,
                      Value failed, StringRef message) {
  Location loc = op->getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  MLIRContext *ctx = rewriter.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto abortType =
      rewriter.getFunctionType({ptrType, rewriter.getI32Type()}, {});
  std::string text = (message + Twine('\0')).str();
  std::string name;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    if (!module.lookupSymbol(kAbortFunction))
      func::FuncOp::create(rewriter, loc, kAbortFunction, abortType)
          .setPrivate();
    for (unsigned i = 0;; ++i) {
      name = ("__trellis_check_message_" + Twine(i)).str();
      if (!module.lookupSymbol(name))
        break;
    }
    auto arrayType = LLVM::LLVMArrayType::get(
        IntegerType::get(ctx, 8), static_cast<unsigned>(text.size()));
    LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Private, name,
                           rewriter.getStringAttr(text));
  }
  scf::IfOp::create(rewriter, loc, failed, [&](OpBuilder &b, Location l) {
    Value text = LLVM::AddressOfOp::create(b, l, ptrType, name);
    func::CallOp::create(b, l, kAbortFunction, TypeRange{},
                         ValueRange{text, i32Const(b, l, 1)});
    scf::YieldOp::create(b, l);
  });
}

/// `file:line:col` of `loc`, or "unknown location".
std::string describeLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  return "unknown location";
}

/// nn.embedding {checked = true}: whether any id lies outside [0, rows), as
/// an OR-reduction of all ids into an i1.
Value anyIdOutOfRange(OpBuilder &b, Location loc, Value ids, int64_t rows) {
  MLIRContext *ctx = b.getContext();
  auto idsType = cast<RankedTensorType>(ids.getType());
  unsigned rank = idsType.getRank();
  auto flagType = RankedTensorType::get({}, b.getI1Type());
  Value init = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(flagType, false));
  SmallVector<AffineMap> maps = {identity(ctx, rank),
                                 AffineMap::get(rank, 0, {}, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto reduce = linalg::GenericOp::create(
      b, loc, TypeRange{flagType}, ValueRange{ids}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value below = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                            a[0], i32Const(nb, l, 0));
        Value above =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, a[0],
                                  i32Const(nb, l, static_cast<uint32_t>(rows)));
        Value bad = arith::OrIOp::create(nb, l, below, above);
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::OrIOp::create(nb, l, bad, a[1])});
      });
  return tensor::ExtractOp::create(b, loc, reduce.getResult(0), ValueRange{});
}

Value lowerEmbedding(EmbeddingOp op, EmbeddingOp::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter) {
  auto resultType = op.getResult().getType();
  unsigned rank = resultType.getRank();
  int64_t rows = op.getTable().getType().getDimSize(0);
  Value table = adaptor.getTable();
  if (op.getChecked())
    emitRunTimeCheck(
        rewriter, op,
        anyIdOutOfRange(rewriter, op.getLoc(), adaptor.getIds(), rows),
        ("nn.embedding (" + describeLocation(op.getLoc()) +
         "): an id is outside [0, " + Twine(rows) + ") (checked = true)")
            .str());
  return buildMap(
      rewriter, op.getLoc(), resultType, adaptor.getIds(),
      dropLast(rewriter.getContext(), rank),
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        // Clamp to [0, V) as XLA's gather does: never read outside.
        Value id = clampSigned(b, l, a[0], 0, rows - 1);
        Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
        Value col = linalg::IndexOp::create(b, l, rank - 1);
        return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
      });
}

/// How an attention op (nn.attention or nn.attention_grad) is lowered.
template <typename OpTy>
AttentionLoweringOptions attentionOptions(OpTy op, int64_t chunk) {
  return {static_cast<int64_t>(op.getNumHeads()), op.getCausal(), chunk};
}

Value lowerAttention(AttentionOp op, AttentionOp::Adaptor adaptor,
                     const AttentionLoweringOptions &how, OpBuilder &b) {
  return buildAttention(b, op.getLoc(), how, adaptor.getQ(), adaptor.getK(),
                        adaptor.getV());
}

std::array<Value, 3> lowerAttention(AttentionGradOp op,
                                    AttentionGradOp::Adaptor adaptor,
                                    const AttentionLoweringOptions &how,
                                    OpBuilder &b) {
  return buildAttentionGrad(b, op.getLoc(), how, adaptor.getQ(), adaptor.getK(),
                            adaptor.getV(), adaptor.getOut(),
                            adaptor.getDOut());
}

/// Attention and its VJP, whole or in chunks (Attention.cpp).
template <typename OpTy> struct AttentionLowering : OpConversionPattern<OpTy> {
  AttentionLowering(MLIRContext *ctx, int64_t chunk)
      : OpConversionPattern<OpTy>(ctx), chunk(chunk) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    AttentionLoweringOptions how = attentionOptions(op, chunk);
    rewriter.replaceOp(op, lowerAttention(op, adaptor, how, rewriter));
    return success();
  }
  int64_t chunk;
};

Value lowerDropout(DropoutOp op, DropoutOp::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter) {
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
    Value idx = indexConst(rewriter, loc, i);
    Value w = tensor::ExtractOp::create(rewriter, loc, key, ValueRange{idx});
    if (w.getType().isSignlessInteger())
      return w;
    return UnrealizedConversionCastOp::create(rewriter, loc,
                                              rewriter.getI32Type(), w)
        .getResult(0);
  };
  Value k0 = word(0), k1 = word(1);

  // Keep when the first random word ≥ round(rate·2³²) (unsigned).
  uint64_t threshold = static_cast<uint64_t>(std::llround(rate * 4294967296.0));
  threshold = std::min<uint64_t>(threshold, 0xFFFFFFFFull);
  double keepScale = 1.0 / (1.0 - rate);
  ArrayRef<int64_t> shape = type.getShape();
  return buildElementwise(
      rewriter, loc, adaptor.getX(),
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        // Row-major linear index of the element, split into two words.
        Value linear = indexConst(b, l, 0);
        for (unsigned dim = 0; dim < rank; ++dim) {
          Value extent = indexConst(b, l, shape[dim]);
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
}

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

SmallVector<Value> lowerHalfResidual(ReversibleHalfResidualOp op,
                                     ReversibleHalfResidualOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter) {
  SmallVector<Value> yielded =
      inlineBody(rewriter, op, op.getBody(), adaptor.getCtx());
  SmallVector<Value> results{buildElementwise(
      rewriter, op.getLoc(), {adaptor.getAcc(), yielded.front()}, sumStep)};
  llvm::append_range(results, adaptor.getCtx());
  // Layer state the body yields after the residual.
  llvm::append_range(results, ArrayRef(yielded).drop_front());
  return results;
}

SmallVector<Value> lowerSwap(ReversibleSwapOp,
                             ReversibleSwapOp::Adaptor adaptor,
                             ConversionPatternRewriter &) {
  return {adaptor.getB(), adaptor.getA()};
}

SmallVector<Value> lowerSerial(ReversibleSerialOp op,
                               ReversibleSerialOp::Adaptor adaptor,
                               ConversionPatternRewriter &rewriter) {
  return inlineBody(rewriter, op, op.getBody(), adaptor.getInputs());
}

struct ConvertNNToLinalgPass
    : trellis::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  using ConvertNNToLinalgBase::ConvertNNToLinalgBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertNNToLinalgBase::getDependentDialects(registry);
    // func.call and the message global of nn.embedding's run-time check.
    registry.insert<func::FuncDialect, LLVM::LLVMDialect>();
  }
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
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      Lowering<DenseOp, lowerDense>, Lowering<ReluOp, lowerUnary<ReluOp>>,
      Lowering<TanhOp, lowerUnary<TanhOp>>,
      Lowering<SigmoidOp, lowerUnary<SigmoidOp>>,
      Lowering<GeluOp, lowerUnary<GeluOp>>,
      Lowering<SoftmaxOp, lowerSoftmax<SoftmaxOp, false>>,
      Lowering<LogSoftmaxOp, lowerSoftmax<LogSoftmaxOp, true>>,
      Lowering<LayerNormOp, lowerLayerNorm>,
      Lowering<CrossEntropyOp, lowerCrossEntropy>, Lowering<MeanOp, lowerMean>,
      Lowering<EmbeddingOp, lowerEmbedding>, Lowering<DropoutOp, lowerDropout>,
      Lowering<Conv2DOp, lowerConv2D>, Lowering<FlattenOp, lowerFlatten>,
      Lowering<MaxPool2DOp, lowerMaxPool2D>,
      Lowering<AvgPool2DOp, lowerAvgPool2D>,
      Lowering<BatchNormOp, lowerBatchNorm>,
      Lowering<ReversibleHalfResidualOp, lowerHalfResidual>,
      Lowering<ReversibleSwapOp, lowerSwap>,
      Lowering<ReversibleSerialOp, lowerSerial>>(ctx);
  patterns
      .add<AttentionLowering<AttentionOp>, AttentionLowering<AttentionGradOp>>(
          ctx, attentionChunk);
}
