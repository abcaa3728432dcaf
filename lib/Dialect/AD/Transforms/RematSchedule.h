//===- RematSchedule.h - Schedules of nested checkpoints --------*- C++ -*-===//
//
// A schedule of ad-remat: which segments of a function's layer chain are
// wrapped in ad.checkpoint regions, with the checkpoints nested in each.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATSCHEDULE_H
#define TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATSCHEDULE_H

#include <cstdint>
#include <vector>

namespace trellis::ad {

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

#endif // TRELLIS_LIB_DIALECT_AD_TRANSFORMS_REMATSCHEDULE_H
