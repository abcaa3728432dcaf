//===- CollOps.cpp - Verifiers of coll ops --------------------------------===//
//
// One check per constraint of docs/spec.md's `coll` section, cited by its id
// (`coll.psum-C3`); each message has a case in
// test/Dialect/Coll/invalid.mlir. Constraints marked (ODS) in the spec are
// checked by the generated verifier, from dialects/Coll/CollOps.td.
//
//===----------------------------------------------------------------------===//

#include "trellis/Dialect/Coll/IR/Coll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

Value trellis::coll::buildGroupPosition(OpBuilder &b, Location loc,
                                        StringAttr axis,
                                        DenseIntElementsAttr groups) {
  Value rank = AxisIndexOp::create(b, loc, b.getIndexType(), axis);
  if (!groups)
    return rank;
  // positions[r] = r's column in its row, read at this rank.
  int64_t size = cast<ShapedType>(groups.getType()).getDimSize(1);
  SmallVector<int64_t> flat(groups.getValues<int64_t>());
  SmallVector<APInt> positions(flat.size(), APInt(64, 0));
  for (auto [i, r] : llvm::enumerate(flat))
    positions[r] = APInt(64, static_cast<int64_t>(i) % size);
  auto type = RankedTensorType::get({static_cast<int64_t>(flat.size())},
                                    b.getIndexType());
  Value table = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(type, positions));
  return tensor::ExtractOp::create(b, loc, table, ValueRange{rank});
}

/// C3 of psum, pmean, adasum and ppermute, C2 of all_gather (cited where
/// it is called).
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
  if (type.getRank() != 2) // (coll.psum-C4, coll.pmean-C4, coll.adasum-C4)
    return op->emitOpError("expects groups of rank 2 (a list of rank lists), "
                           "got rank ")
           << type.getRank();
  // (coll.psum-C5, coll.pmean-C5, coll.adasum-C5)
  if (type.getNumElements() == 0)
    return op->emitOpError("expects at least one non-empty group");
  int64_t n = type.getNumElements();
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t rank : groups->getValues<int64_t>()) {
    // (coll.psum-C6, coll.pmean-C6, coll.adasum-C6)
    if (rank < 0 || rank >= n)
      return op->emitOpError("expects groups to cover the ranks 0..")
             << n - 1 << ", got rank " << rank;
    // (coll.psum-C7, coll.pmean-C7, coll.adasum-C7)
    if (!seen.insert(rank).second)
      return op->emitOpError("expects disjoint groups, rank ")
             << rank << " appears twice";
  }
  return success();
}

/// The verifier of psum, pmean and adasum, the reductions over (groups of)
/// an axis: their constraints are the same, and each diagnostic names the op
/// it is about.
template <typename OpTy>
static LogicalResult verifyReduction(OpTy op) {
  // (coll.psum-C3, coll.pmean-C3, coll.adasum-C3)
  if (failed(verifyAxis(op, op.getAxis())))
    return failure();
  return verifyGroups(op, op.getGroups());
}

LogicalResult PsumOp::verify() { return verifyReduction(*this); }

LogicalResult PmeanOp::verify() { return verifyReduction(*this); }

LogicalResult AdasumOp::verify() { return verifyReduction(*this); }

LogicalResult PpermuteOp::verify() {
  if (failed(verifyAxis(*this, getAxis()))) // (coll.ppermute-C3)
    return failure();
  auto type = cast<ShapedType>(getPairs().getType());
  if (type.getRank() != 2 || type.getDimSize(1) != 2) // (coll.ppermute-C4)
    return emitOpError("expects pairs of shape Nx2 ([source, destination] "
                       "rows), got ")
           << type;
  llvm::SmallDenseSet<int64_t> sources, destinations;
  for (auto [source, destination] : getSendPairs(getPairsAttr())) {
    if (source < 0 || destination < 0) // (coll.ppermute-C5)
      return emitOpError("expects non-negative ranks in pairs, got [")
             << source << ", " << destination << "]";
    if (!sources.insert(source).second) // (coll.ppermute-C6)
      return emitOpError("expects each rank to be the source of one pair at "
                         "most, rank ")
             << source << " sends twice";
    if (!destinations.insert(destination).second) // (coll.ppermute-C7)
      return emitOpError("expects each rank to be the destination of one "
                         "pair at most, rank ")
             << destination << " receives twice";
  }
  return success();
}

/// all_gather and psum_scatter: one tensor is `n` slices along `dim` of the
/// other, `part`, each rank's (C2-C9 of both, cited where it is called).
/// `whole` names the larger one in messages ("the result" for all_gather,
/// "x" for psum_scatter), `part` the other.
template <typename OpTy>
static LogicalResult verifyTiled(OpTy op, RankedTensorType partType,
                                 RankedTensorType wholeType, StringRef part,
                                 StringRef whole) {
  if (failed(verifyAxis(op, op.getAxis()))) // (C2)
    return failure();
  auto x = op.getX().getType(), result = op.getResult().getType();
  if (x.getElementType() != result.getElementType()) // (C3)
    return op.emitOpError("expects the result's element type to be x's, got ")
           << result.getElementType() << " and " << x.getElementType();
  int64_t dim = op.getDim();
  if (dim < 0 || dim >= x.getRank()) // (C4)
    return op.emitOpError("expects dim in [0, ")
           << x.getRank() << "), got " << dim;
  if (result.getRank() != x.getRank()) // (C5)
    return op.emitOpError("expects a result of rank ")
           << x.getRank() << ", got rank " << result.getRank();
  for (int64_t i = 0; i < x.getRank(); ++i)
    if (i != dim && x.getDimSize(i) != result.getDimSize(i)) // (C6)
      return op.emitOpError("expects the result to match x outside dim ")
             << dim << ", dimension " << i << " is " << result.getDimSize(i)
             << " instead of " << x.getDimSize(i);
  int64_t slice = partType.getDimSize(dim), all = wholeType.getDimSize(dim);
  if (slice == 0 || all == 0 || all % slice != 0) // (C7)
    return op.emitOpError("expects ")
           << whole << "'s dim " << dim
           << " to be a positive multiple (the number of ranks) of " << slice
           << ", got " << all;
  if (failed(verifyGroups(op, op.getGroups()))) // (C8)
    return failure();
  if (auto groups = op.getGroups()) { // (C9)
    int64_t size = cast<ShapedType>(groups->getType()).getDimSize(1);
    if (all / slice != size)
      return op.emitOpError("expects ")
             << whole << "'s dim " << dim << " to be the group size " << size
             << " times " << part << "'s, got " << all << " for " << slice;
  }
  return success();
}

int64_t AllGatherOp::getNumRanks() {
  int64_t dim = getDim();
  return getResult().getType().getDimSize(dim) /
         getX().getType().getDimSize(dim);
}

// coll.all_gather-C2 to C9.
LogicalResult AllGatherOp::verify() {
  return verifyTiled(*this, getX().getType(), getResult().getType(), "x",
                     "the result");
}

int64_t PsumScatterOp::getNumRanks() {
  int64_t dim = getDim();
  return getX().getType().getDimSize(dim) /
         getResult().getType().getDimSize(dim);
}

// coll.psum_scatter-C2 to C9.
LogicalResult PsumScatterOp::verify() {
  return verifyTiled(*this, getResult().getType(), getX().getType(),
                     "the result", "x");
}

/// The verifier of psum_start and pmean_start: a reduction's constraints,
/// one element type for the bucket, and one wait in the same block.
template <typename OpTy> static LogicalResult verifyReductionStart(OpTy op) {
  if (failed(verifyReduction(op)))
    return failure();
  if (op.getXs().empty())
    return op.emitOpError("expects at least one tensor");
  Type elementType =
      cast<RankedTensorType>(op.getXs().front().getType()).getElementType();
  for (Value x : op.getXs())
    if (cast<RankedTensorType>(x.getType()).getElementType() != elementType)
      return op.emitOpError("expects tensors of one element type, got ")
             << elementType << " and "
             << cast<RankedTensorType>(x.getType()).getElementType();
  Value request = op.getRequest();
  if (!request.hasOneUse() || !isa<WaitOp>(*request.getUsers().begin()) ||
      request.getUsers().begin()->getBlock() != op->getBlock())
    return op.emitOpError(
        "expects its request to have exactly one use, a coll.wait in the "
        "same block");
  return success();
}

LogicalResult PsumStartOp::verify() { return verifyReductionStart(*this); }

LogicalResult PmeanStartOp::verify() { return verifyReductionStart(*this); }

Operation *WaitOp::getStart() { return getRequest().getDefiningOp(); }

LogicalResult WaitOp::verify() {
  Operation *start = getStart();
  if (!isa_and_nonnull<PsumStartOp, PmeanStartOp>(start))
    return emitOpError("expects a request of coll.psum_start or "
                       "coll.pmean_start");
  if (start->getOperandTypes() != getResultTypes())
    return emitOpError("expects the types of its start's tensors, got ")
           << getResultTypes() << " for " << start->getOperandTypes();
  return success();
}
