//===- CollReverseRules.cpp - Reverse-mode rules of collectives -----------===//
//
// SPMD programs are differentiated rank by rank; the loss of the job is the
// sum of the ranks' losses. Under that convention the vector-Jacobian
// product of each collective is again a collective:
//
//   psum(x)        -> psum(dy)            (same groups)
//   pmean(x)       -> pmean(dy)
//   ppermute(x, P) -> ppermute(dy, P⁻¹)   (the pairs reversed)
//   all_gather(x)  -> this rank's slice of psum(dy)   (a reduce-scatter;
//                     both within the groups, if any)
//
// Adasum is not differentiable (its coefficients depend on the inputs in a
// way nobody needs gradients of); it has no rule, so differentiating through
// it is an error of the differentiation pass.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"
#include "trellis/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace trellis::coll;
using trellis::ad::ReverseContext;

using ValueVec = SmallVectorImpl<Value>;

/// psum and pmean are their own transposes: the cotangent goes through the
/// same collective over the same groups.
template <typename OpTy>
static LogicalResult reverseAsItself(OpTy op, OpBuilder &b, ValueRange dres,
                                     ValueVec &d) {
  d.assign({dres[0] ? OpTy::create(b, op.getLoc(), dres[0], op.getAxisAttr(),
                                   op.getGroupsAttr())
                    : Value()});
  return success();
}

LogicalResult PsumOp::buildReverse(OpBuilder &b, ReverseContext &,
                                   ValueRange dres, ValueVec &d) {
  return reverseAsItself(*this, b, dres, d);
}

LogicalResult PmeanOp::buildReverse(OpBuilder &b, ReverseContext &,
                                    ValueRange dres, ValueVec &d) {
  return reverseAsItself(*this, b, dres, d);
}

LogicalResult PpermuteOp::buildReverse(OpBuilder &b, ReverseContext &,
                                       ValueRange dres, ValueVec &d) {
  if (!dres[0]) {
    d.assign({Value()});
    return success();
  }
  SmallVector<int64_t> inverse;
  for (auto [source, destination] : getSendPairs(getPairsAttr()))
    llvm::append_values(inverse, destination, source);
  auto pairs = DenseIntElementsAttr::get(getPairsAttr().getType(), inverse);
  d.assign({PpermuteOp::create(b, getLoc(), dres[0], getAxisAttr(), pairs)});
  return success();
}

LogicalResult AllGatherOp::buildReverse(OpBuilder &b, ReverseContext &,
                                        ValueRange dres, ValueVec &d) {
  if (!dres[0]) {
    d.assign({Value()});
    return success();
  }
  Location loc = getLoc();
  // Sum the cotangent over the ranks (of the group), then keep this rank's
  // slice.
  Value summed =
      PsumOp::create(b, loc, dres[0], getAxisAttr(), getGroupsAttr());
  int64_t dim = getDim();
  int64_t size = getX().getType().getDimSize(dim);
  Value index = buildGroupPosition(b, loc, getAxisAttr(), getGroupsAttr());
  Value offset = arith::MulIOp::create(
      b, loc, index, trellis::builders::indexConst(b, loc, size));
  d.assign(
      {trellis::builders::extractAlong(b, loc, summed, dim, offset, size)});
  return success();
}
