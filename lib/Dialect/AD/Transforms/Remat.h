//===- Remat.h - What ad-remat and its lower bound share ---------*- C++ -*-===//
//
// A schedule of ad-remat (which segments of a function's layer chain are
// wrapped in ad.checkpoint regions, with the checkpoints nested in each)
// and the bytes a tensor's buffer takes.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMAT_H
#define TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMAT_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <vector>

namespace trellis::ad {

/// What the runtime's aligned allocation adds to every buffer
/// (peak_tensor_bytes counts it).
constexpr int64_t kAllocationPadding = 64;

/// Bytes a buffer for `t` takes if `t` is a statically shaped float tensor,
/// else 0.
inline int64_t floatTensorBytes(mlir::Type t) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(t);
  if (!tensor || !llvm::isa<mlir::FloatType>(tensor.getElementType()) ||
      !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements() *
             tensor.getElementType().getIntOrFloatBitWidth() / 8 +
         kAllocationPadding;
}

/// A checkpointed segment [first, last] of the chain (indices of layers)
/// and the checkpoints nested in it: recomputing the segment in the backward
/// pass stores only what its own schedule stores, and the nested segments
/// are recomputed again when they are reversed (binomial checkpointing).
struct Checkpoint {
  int64_t first, last;
  std::vector<Checkpoint> inner;

  bool operator==(const Checkpoint &other) const {
    return first == other.first && last == other.last && inner == other.inner;
  }
};

/// The checkpointed segments of the chain, in order; layers outside them
/// are stored.
using Schedule = std::vector<Checkpoint>;

} // namespace trellis::ad

#endif // TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMAT_H
