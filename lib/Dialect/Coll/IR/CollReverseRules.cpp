//===- CollReverseRules.cpp - Reverse-mode rules of collectives -----------===//
//
// SPMD programs are differentiated rank by rank; the loss of the job is the
// sum of the ranks' losses. Under that convention the vector-Jacobian
// product of each collective is again a collective:
//
//   psum(x)        -> psum(dy)            (same groups)
//   pmean(x)       -> pmean(dy)
//   ppermute(x, P) -> ppermute(dy, P⁻¹)   (the pairs reversed)
//   all_gather(x)  -> psum_scatter(dy): this rank's slice of psum(dy)
//                     (within the groups, if any)
//   psum_scatter(x) -> all_gather(dy)
//
// Adasum is not differentiable (its coefficients depend on the inputs in a
// way nobody needs gradients of); it has no rule, so differentiating through
// it is an error of the differentiation pass.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"

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
  // The sum over the ranks (of the group) of this rank's slice.
  d.assign({dres[0] ? PsumScatterOp::create(b, getLoc(), getX().getType(),
                                            dres[0], getAxisAttr(),
                                            getDimAttr(), getGroupsAttr())
                          .getResult()
                    : Value()});
  return success();
}

LogicalResult PsumScatterOp::buildReverse(OpBuilder &b, ReverseContext &,
                                          ValueRange dres, ValueVec &d) {
  // Every rank's slice of the sum is its cotangent's: gathered back.
  d.assign({dres[0] ? AllGatherOp::create(b, getLoc(), getX().getType(),
                                          dres[0], getAxisAttr(), getDimAttr(),
                                          getGroupsAttr())
                          .getResult()
                    : Value()});
  return success();
}
