//===- ArithMathRules.cpp - Reverse-mode rules of arith and math ----------===//
//
// Each rule is written with arith/math ops, which accept scalars and tensors
// alike, so it serves both the op on tensors and the op in a linalg body —
// and, having rules itself, a derivative can be differentiated again.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/AD/Rules/Rules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

#include <cmath>

using namespace mlir;
using namespace trellis::ad;
using namespace trellis::ad::rules;

namespace {


LogicalResult rule(arith::AddFOp, OpBuilder &, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({dc, dc});
  return success();
}
LogicalResult rule(arith::SubFOp, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({dc, neg(b, dc)});
  return success();
}
LogicalResult rule(arith::MulFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({mul(b, dc, op.getRhs()), mul(b, dc, op.getLhs())});
  return success();
}
LogicalResult rule(arith::DivFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value da = div(b, dc, op.getRhs());
  d.assign({da, neg(b, mul(b, da, op.getResult()))});
  return success();
}
LogicalResult rule(arith::NegFOp, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({neg(b, dc)});
  return success();
}

/// max/min: the cotangent goes to the operand that was selected (the left
/// one on ties).
template <typename OpTy, arith::CmpFPredicate pred>
LogicalResult selectiveRule(OpTy op, OpBuilder &b, Value dc,
                            SmallVectorImpl<Value> &d) {
  Value lhsWins =
      arith::CmpFOp::create(b, op.getLoc(), pred, op.getLhs(), op.getRhs());
  d.assign({keepWhere(b, lhsWins, dc), dropWhere(b, lhsWins, dc)});
  return success();
}
LogicalResult rule(arith::MaximumFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return selectiveRule<arith::MaximumFOp, arith::CmpFPredicate::OGE>(op, b, dc,
                                                                     d);
}
LogicalResult rule(arith::MinimumFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return selectiveRule<arith::MinimumFOp, arith::CmpFPredicate::OLE>(op, b, dc,
                                                                     d);
}
LogicalResult rule(arith::MaxNumFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return selectiveRule<arith::MaxNumFOp, arith::CmpFPredicate::OGE>(op, b, dc,
                                                                    d);
}
LogicalResult rule(arith::MinNumFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return selectiveRule<arith::MinNumFOp, arith::CmpFPredicate::OLE>(op, b, dc,
                                                                    d);
}
LogicalResult rule(arith::SelectOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({Value(), keepWhere(b, op.getCondition(), dc),
       dropWhere(b, op.getCondition(), dc)});
  return success();
}
LogicalResult rule(arith::ExtFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({arith::TruncFOp::create(b, op.getLoc(), op.getIn().getType(), dc)});
  return success();
}
LogicalResult rule(arith::TruncFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({arith::ExtFOp::create(b, op.getLoc(), op.getIn().getType(), dc)});
  return success();
}
/// Ops whose result is constant or integer-valued: nothing flows back.
template <typename OpTy>
LogicalResult noCotangent(OpTy, OpBuilder &, Value,
                          SmallVectorImpl<Value> &) {
  return success();
}
LogicalResult rule(arith::ConstantOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(arith::SIToFPOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(arith::UIToFPOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}

LogicalResult rule(arith::RemFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  // a − b·trunc(a/b): ∂/∂a = 1, ∂/∂b = −trunc(a/b) (away from the jumps).
  Value quotient =
      math::TruncOp::create(b, op.getLoc(), div(b, op.getLhs(), op.getRhs()));
  d.assign({dc, neg(b, mul(b, dc, quotient))});
  return success();
}

/// `x > 0` and `x < 0`, elementwise: absf and copysign pass the cotangent
/// by the sign of x, and none at x = ±0 (the subgradient 0) or NaN.
Value isPositive(OpBuilder &b, Value x) {
  return arith::CmpFOp::create(b, x.getLoc(), arith::CmpFPredicate::OGT, x,
                               constant(b, x, 0.0));
}
Value isNegative(OpBuilder &b, Value x) {
  return arith::CmpFOp::create(b, x.getLoc(), arith::CmpFPredicate::OLT, x,
                               constant(b, x, 0.0));
}
Value bySign(OpBuilder &b, Value x, Value dc) {
  return sub(b, keepWhere(b, isPositive(b, x), dc),
             keepWhere(b, isNegative(b, x), dc));
}

LogicalResult rule(math::PowFOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value x = op.getLhs(), p = op.getRhs();
  // d/dx x^p = p · x^(p−1);  d/dp x^p = x^p · log x.
  Value pm1 = sub(b, p, constant(b, p, 1.0));
  Value dx = mul(b, dc, mul(b, p, math::PowFOp::create(b, op.getLoc(), x, pm1)));
  Value dp = mul(b, dc,
                 mul(b, op.getResult(), math::LogOp::create(b, op.getLoc(), x)));
  d.assign({dx, dp});
  return success();
}
LogicalResult rule(math::FPowIOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  // d/dx x^n = n · x^(n−1), and 0 for n = 0 (also at x = 0).
  Location loc = op.getLoc();
  Value x = op.getLhs(), n = op.getRhs();
  Type intType = n.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(intType));
  Value one = arith::ConstantOp::create(b, loc, b.getOneAttr(intType));
  Value power = math::FPowIOp::create(
      b, loc, x, arith::SubIOp::create(b, loc, n, one).getResult());
  Value nf = arith::SIToFPOp::create(b, loc, x.getType(), n);
  Value nonzero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, n, zero);
  d.assign({keepWhere(b, nonzero, mul(b, dc, mul(b, nf, power))), Value()});
  return success();
}
LogicalResult rule(math::Atan2Op op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  // atan2(y, x): ∂/∂y = x/(x²+y²), ∂/∂x = −y/(x²+y²) (NaN at the origin).
  Value y = op.getLhs(), x = op.getRhs();
  Value scale = div(b, dc, add(b, mul(b, x, x), mul(b, y, y)));
  d.assign({mul(b, scale, x), neg(b, mul(b, scale, y))});
  return success();
}
LogicalResult rule(math::CopySignOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  // copysign(a, s) = |a|·sign(s): ∂/∂a = sign(a)·sign(s), ∂/∂s = 0.
  Value bySignOfS = mul(b, dc,
                        math::CopySignOp::create(
                            b, op.getLoc(), constant(b, dc, 1.0), op.getRhs()));
  d.assign({bySign(b, op.getLhs(), bySignOfS), Value()});
  return success();
}
LogicalResult rule(math::FmaOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({mul(b, dc, op.getB()), mul(b, dc, op.getA()), dc});
  return success();
}

//===----------------------------------------------------------------------===//
// The unary rules, one line each: the operand's cotangent from the result's
// (`dc`), the operand (`x`) and the result (`y`), built with `b` at `loc`.
// Each row becomes a rule and an external model (as Enzyme-MLIR generates
// its rules from a table); the ops they build have rules too.
//===----------------------------------------------------------------------===//

#define TRELLIS_UNARY_FLOAT_RULES(RULE)                                        \
  RULE(math::ExpOp, mul(b, dc, y))                                             \
  RULE(math::Exp2Op, mul(b, dc, mul(b, y, constant(b, y, M_LN2))))             \
  RULE(math::ExpM1Op, mul(b, dc, add(b, y, constant(b, y, 1.0))))              \
  RULE(math::LogOp, div(b, dc, x))                                             \
  RULE(math::Log2Op, div(b, dc, mul(b, x, constant(b, x, M_LN2))))             \
  RULE(math::Log10Op, div(b, dc, mul(b, x, constant(b, x, M_LN10))))           \
  RULE(math::Log1pOp, div(b, dc, add(b, x, constant(b, x, 1.0))))              \
  RULE(math::SqrtOp, div(b, mul(b, dc, constant(b, y, 0.5)), y))               \
  /* d/dx x^(-1/2) = -1/2 · y³ */                                            \
  RULE(math::RsqrtOp,                                                          \
       mul(b, dc, mul(b, constant(b, y, -0.5), mul(b, mul(b, y, y), y))))      \
  RULE(math::CbrtOp, div(b, dc, mul(b, constant(b, y, 3.0), mul(b, y, y))))    \
  RULE(math::SinOp, mul(b, dc, math::CosOp::create(b, loc, x)))                \
  RULE(math::CosOp, neg(b, mul(b, dc, math::SinOp::create(b, loc, x))))        \
  RULE(math::TanOp, mul(b, dc, add(b, constant(b, y, 1.0), mul(b, y, y))))     \
  RULE(math::AsinOp, div(b, dc, sqrtOf(b, sub(b, one(b, x), mul(b, x, x)))))   \
  RULE(math::AcosOp,                                                           \
       neg(b, div(b, dc, sqrtOf(b, sub(b, one(b, x), mul(b, x, x))))))         \
  RULE(math::AtanOp, div(b, dc, add(b, one(b, x), mul(b, x, x))))              \
  RULE(math::SinhOp, mul(b, dc, math::CoshOp::create(b, loc, x)))              \
  RULE(math::CoshOp, mul(b, dc, math::SinhOp::create(b, loc, x)))              \
  RULE(math::TanhOp, mul(b, dc, sub(b, constant(b, y, 1.0), mul(b, y, y))))    \
  RULE(math::AsinhOp, div(b, dc, sqrtOf(b, add(b, mul(b, x, x), one(b, x)))))  \
  RULE(math::AcoshOp, div(b, dc, sqrtOf(b, sub(b, mul(b, x, x), one(b, x)))))  \
  RULE(math::AtanhOp, div(b, dc, sub(b, one(b, x), mul(b, x, x))))             \
  RULE(math::ErfOp,                                                            \
       mul(b, dc, mul(b, constant(b, x, 2.0 / std::sqrt(M_PI)), gauss(b, x)))) \
  RULE(                                                                        \
      math::ErfcOp,                                                            \
      mul(b, dc, mul(b, constant(b, x, -2.0 / std::sqrt(M_PI)), gauss(b, x)))) \
  /* |x|: the subgradient 0 at x = ±0 */                                      \
  RULE(math::AbsFOp, bySign(b, x, dc))

Value one(OpBuilder &b, Value like) { return constant(b, like, 1.0); }
Value sqrtOf(OpBuilder &b, Value x) {
  return math::SqrtOp::create(b, x.getLoc(), x);
}
/// exp(−x²), of erf's and erfc's derivatives.
Value gauss(OpBuilder &b, Value x) {
  return math::ExpOp::create(b, x.getLoc(), neg(b, mul(b, x, x)));
}

#define TRELLIS_DEFINE_UNARY_RULE(OP, COTANGENT)                               \
  LogicalResult rule(OP op, OpBuilder &b, Value dc,                            \
                     SmallVectorImpl<Value> &d) {                              \
    [[maybe_unused]] Location loc = op.getLoc();                               \
    [[maybe_unused]] Value x = op.getOperand(), y = op.getResult();            \
    d.assign({COTANGENT});                                                     \
    return success();                                                          \
  }
TRELLIS_UNARY_FLOAT_RULES(TRELLIS_DEFINE_UNARY_RULE)
#undef TRELLIS_DEFINE_UNARY_RULE

/// Piecewise constant: nothing flows back (the derivative is 0 between the
/// steps).
LogicalResult rule(math::CeilOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(math::FloorOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(math::RoundOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(math::RoundEvenOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}
LogicalResult rule(math::TruncOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  return noCotangent(op, b, dc, d);
}

/// The external model: `Rule(op, builder, dresult..., doperands)` fills the
/// operand cotangents (pre-sized, null = none) from the result cotangent.
template <typename OpTy>
struct ArithModel
    : ReverseModeOpInterface::ExternalModel<ArithModel<OpTy>, OpTy> {
  LogicalResult buildReverse(Operation *op, OpBuilder &b, ReverseContext &,
                             ValueRange dres,
                             SmallVectorImpl<Value> &dops) const {
    dops.assign(op->getNumOperands(), Value());
    if (!dres.front())
      return success();
    return rule(cast<OpTy>(op), b, dres.front(), dops);
  }
};

/// sincos has two results: dx = dsin · cos x − dcos · sin x.
struct SincosModel
    : ReverseModeOpInterface::ExternalModel<SincosModel, math::SincosOp> {
  LogicalResult buildReverse(Operation *op, OpBuilder &b, ReverseContext &,
                             ValueRange dres,
                             SmallVectorImpl<Value> &dops) const {
    auto sincos = cast<math::SincosOp>(op);
    dops.assign(1, Value());
    Value dsin = dres[0], dcos = dres[1];
    if (dsin)
      dops[0] = mul(b, dsin, sincos.getCos());
    if (dcos) {
      Value fromCos = neg(b, mul(b, dcos, sincos.getSin()));
      dops[0] = dops[0] ? add(b, dops[0], fromCos) : fromCos;
    }
    return success();
  }
};

template <typename... OpTys>
void attach(MLIRContext *ctx) {
  (OpTys::template attachInterface<ArithModel<OpTys>>(*ctx), ...);
}

} // namespace

namespace trellis::ad {
void registerArithMathReverseModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
           arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::SelectOp, arith::ExtFOp,
           arith::TruncFOp, arith::ConstantOp, arith::SIToFPOp, arith::UIToFPOp,
           arith::RemFOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
#define TRELLIS_ATTACH_UNARY_RULE(OP, COTANGENT) attach<OP>(ctx);
    TRELLIS_UNARY_FLOAT_RULES(TRELLIS_ATTACH_UNARY_RULE)
#undef TRELLIS_ATTACH_UNARY_RULE
    attach<math::PowFOp, math::FPowIOp, math::Atan2Op, math::CopySignOp,
           math::FmaOp, math::CeilOp, math::FloorOp, math::RoundOp,
           math::RoundEvenOp, math::TruncOp>(ctx);
    math::SincosOp::attachInterface<SincosModel>(*ctx);
  });
}
} // namespace trellis::ad
