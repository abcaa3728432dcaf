//===- Helpers.cpp - Type-generic arithmetic for reverse-mode rules -------===//

#include "trellis/Dialect/AD/Rules/Rules.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace trellis::ad::rules {

bool isFloatValue(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

Value add(OpBuilder &b, Value x, Value y) {
  return arith::AddFOp::create(b, x.getLoc(), x, y);
}
Value sub(OpBuilder &b, Value x, Value y) {
  return arith::SubFOp::create(b, x.getLoc(), x, y);
}
Value mul(OpBuilder &b, Value x, Value y) {
  return arith::MulFOp::create(b, x.getLoc(), x, y);
}
Value div(OpBuilder &b, Value x, Value y) {
  return arith::DivFOp::create(b, x.getLoc(), x, y);
}
Value neg(OpBuilder &b, Value x) {
  return arith::NegFOp::create(b, x.getLoc(), x);
}
Value constant(OpBuilder &b, Value like, double value) {
  return builders::constantLike(b, like.getLoc(), like, value);
}
Value keepWhere(OpBuilder &b, Value cond, Value x) {
  return arith::SelectOp::create(b, x.getLoc(), cond, x, constant(b, x, 0.0));
}
Value dropWhere(OpBuilder &b, Value cond, Value x) {
  return arith::SelectOp::create(b, x.getLoc(), cond, constant(b, x, 0.0), x);
}

} // namespace trellis::ad::rules

trellis::ad::ReverseLoop
trellis::ad::buildReverseLoop(OpBuilder &b, Location loc, int64_t count,
                              Value lb, Value step, ValueRange inits) {
  return buildReverseLoop(b, loc, builders::indexConst(b, loc, count), lb, step,
                          inits);
}

trellis::ad::ReverseLoop
trellis::ad::buildReverseLoop(OpBuilder &b, Location loc, Value count, Value lb,
                              Value step, ValueRange inits) {
  Value zero = builders::indexConst(b, loc, 0);
  Value one = builders::indexConst(b, loc, 1);
  // j = last − k with last = count − 1: the forward iterations, last first.
  APInt constant;
  Value last = matchPattern(count, m_ConstantInt(&constant))
                   ? builders::indexConst(b, loc, constant.getSExtValue() - 1)
                   : arith::SubIOp::create(b, loc, count, one).getResult();
  auto loop = scf::ForOp::create(b, loc, zero, count, one, inits);
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  OpBuilder nb = OpBuilder::atBlockEnd(body);
  Value j = arith::SubIOp::create(nb, loc, last, loop.getInductionVar());
  Value iv = arith::AddIOp::create(nb, loc, lb,
                                   arith::MulIOp::create(nb, loc, j, step));
  return {loop, nb, iv, j};
}
