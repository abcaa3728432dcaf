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

LogicalResult rule(math::ExpOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({mul(b, dc, op.getResult())});
  return success();
}
LogicalResult rule(math::LogOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  d.assign({div(b, dc, op.getOperand())});
  return success();
}
LogicalResult rule(math::TanhOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value y = op.getResult();
  d.assign({mul(b, dc, sub(b, constant(b, y, 1.0), mul(b, y, y)))});
  return success();
}
LogicalResult rule(math::SqrtOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value y = op.getResult();
  d.assign({div(b, mul(b, dc, constant(b, y, 0.5)), y)});
  return success();
}
LogicalResult rule(math::RsqrtOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  // d/dx x^(-1/2) = -1/2 · y³
  Value y = op.getResult();
  Value y3 = mul(b, mul(b, y, y), y);
  d.assign({mul(b, dc, mul(b, constant(b, y, -0.5), y3))});
  return success();
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
LogicalResult rule(math::ErfOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value x = op.getOperand();
  Value e = math::ExpOp::create(b, op.getLoc(), neg(b, mul(b, x, x)));
  d.assign({mul(b, dc, mul(b, constant(b, x, 2.0 / std::sqrt(M_PI)), e))});
  return success();
}

LogicalResult rule(math::ErfcOp op, OpBuilder &b, Value dc,
                   SmallVectorImpl<Value> &d) {
  Value x = op.getOperand();
  Value e = math::ExpOp::create(b, op.getLoc(), neg(b, mul(b, x, x)));
  d.assign({mul(b, dc, mul(b, constant(b, x, -2.0 / std::sqrt(M_PI)), e))});
  return success();
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
           arith::TruncFOp, arith::ConstantOp, arith::SIToFPOp,
           arith::UIToFPOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<math::ExpOp, math::LogOp, math::TanhOp, math::SqrtOp, math::RsqrtOp,
           math::PowFOp, math::ErfOp, math::ErfcOp>(ctx);
  });
}
} // namespace trellis::ad
