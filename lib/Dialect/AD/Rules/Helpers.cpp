//===- Helpers.cpp - Type-generic arithmetic for reverse-mode rules -------===//

#include "trellis/Dialect/AD/Rules/Rules.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace trellis::ad::rules {

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
  return builders::constantLike(b, like.getLoc(), like.getType(), value);
}
Value keepWhere(OpBuilder &b, Value cond, Value x) {
  return arith::SelectOp::create(b, x.getLoc(), cond, x, constant(b, x, 0.0));
}
Value dropWhere(OpBuilder &b, Value cond, Value x) {
  return arith::SelectOp::create(b, x.getLoc(), cond, constant(b, x, 0.0), x);
}

} // namespace trellis::ad::rules
