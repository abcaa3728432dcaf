//===- CollOps.cpp - Verifiers of coll ops --------------------------------===//
//
// One check per constraint documented in dialects/Coll/CollOps.td; each
// message has a case in test/Dialect/Coll/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace trellis::coll;

#define GET_OP_CLASSES
#include "trellis/Dialect/Coll/IR/CollOps.cpp.inc"

SmallVector<SmallVector<int64_t>>
trellis::coll::getRankGroups(DenseIntElementsAttr groups) {
  auto type = cast<ShapedType>(groups.getType());
  int64_t size = type.getDimSize(1);
  SmallVector<SmallVector<int64_t>> result;
  SmallVector<int64_t> flat(groups.getValues<int64_t>());
  for (int64_t g = 0, e = type.getDimSize(0); g < e; ++g)
    result.emplace_back(flat.begin() + g * size, flat.begin() + (g + 1) * size);
  return result;
}

SmallVector<std::pair<int64_t, int64_t>>
trellis::coll::getSendPairs(DenseIntElementsAttr pairs) {
  SmallVector<int64_t> flat(pairs.getValues<int64_t>());
  SmallVector<std::pair<int64_t, int64_t>> result;
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    result.push_back({flat[i], flat[i + 1]});
  return result;
}

static LogicalResult verifyAxis(Operation *op, StringRef axis) {
  if (axis.empty())
    return op->emitOpError("expects a non-empty axis name");
  return success();
}

/// Groups are a 2-D list of ranks: disjoint, of one size, covering 0…n−1.
static LogicalResult verifyGroups(Operation *op,
                                  std::optional<DenseIntElementsAttr> groups) {
  if (!groups)
    return success();
  auto type = cast<ShapedType>(groups->getType());
  if (type.getRank() != 2)
    return op->emitOpError("expects groups of rank 2 (a list of rank lists), "
                           "got rank ")
           << type.getRank();
  if (type.getNumElements() == 0)
    return op->emitOpError("expects at least one non-empty group");
  int64_t n = type.getNumElements();
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t rank : groups->getValues<int64_t>()) {
    if (rank < 0 || rank >= n)
      return op->emitOpError("expects groups to cover the ranks 0..")
             << n - 1 << ", got rank " << rank;
    if (!seen.insert(rank).second)
      return op->emitOpError("expects disjoint groups, rank ")
             << rank << " appears twice";
  }
  return success();
}

LogicalResult PsumOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  return verifyGroups(*this, getGroups());
}

LogicalResult PmeanOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  return verifyGroups(*this, getGroups());
}

LogicalResult AdasumOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  return verifyGroups(*this, getGroups());
}

LogicalResult PpermuteOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  auto type = cast<ShapedType>(getPairs().getType());
  if (type.getRank() != 2 || type.getDimSize(1) != 2)
    return emitOpError("expects pairs of shape Nx2 ([source, destination] "
                       "rows), got ")
           << type;
  llvm::SmallDenseSet<int64_t> sources, destinations;
  for (auto [source, destination] : getSendPairs(getPairsAttr())) {
    if (source < 0 || destination < 0)
      return emitOpError("expects non-negative ranks in pairs, got [")
             << source << ", " << destination << "]";
    if (!sources.insert(source).second)
      return emitOpError("expects each rank to be the source of one pair at "
                         "most, rank ")
             << source << " sends twice";
    if (!destinations.insert(destination).second)
      return emitOpError("expects each rank to be the destination of one "
                         "pair at most, rank ")
             << destination << " receives twice";
  }
  return success();
}

int64_t AllGatherOp::getNumRanks() {
  int64_t dim = getDim();
  return getResult().getType().getDimSize(dim) /
         getX().getType().getDimSize(dim);
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyAxis(*this, getAxis())))
    return failure();
  auto x = getX().getType(), result = getResult().getType();
  if (x.getElementType() != result.getElementType())
    return emitOpError("expects the result's element type to be x's, got ")
           << result.getElementType() << " and " << x.getElementType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= x.getRank())
    return emitOpError("expects dim in [0, ")
           << x.getRank() << "), got " << dim;
  if (result.getRank() != x.getRank())
    return emitOpError("expects a result of rank ")
           << x.getRank() << ", got rank " << result.getRank();
  for (int64_t i = 0; i < x.getRank(); ++i) {
    int64_t in = x.getDimSize(i), out = result.getDimSize(i);
    if (i != dim && in != out)
      return emitOpError("expects the result to match x outside dim ")
             << dim << ", dimension " << i << " is " << out << " instead of "
             << in;
    if (i == dim && (in == 0 || out % in != 0 || out == 0))
      return emitOpError("expects the result's dim ")
             << dim << " to be a positive multiple (the number of ranks) of "
             << in << ", got " << out;
  }
  return success();
}
