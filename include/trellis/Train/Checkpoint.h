//===- Checkpoint.h - Saving and resuming a training run --------*- C++ -*-===//
//
// checkpoint.npz holds `param<i>` (the parameters after `step` steps), `step`
// and `seed` (int64 scalars). It is written to a temporary file, flushed and
// renamed (writeNpzAtomically), so a run killed at any moment leaves the
// previous complete checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_CHECKPOINT_H
#define TRELLIS_TRAIN_CHECKPOINT_H

#include "trellis/Runtime/HostArray.h"
#include "trellis/Train/Convention.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace trellis::train {

/// The state a run resumes from.
struct Checkpoint {
  /// Steps done.
  int64_t step = 0;
  /// The parameters after them, in the order of @train_step's.
  llvm::SmallVector<runtime::HostArray> params;
};

/// The largest step a checkpoint may hold: 2^53 (a float64 counts every
/// step exactly; no run gets near it).
inline constexpr int64_t kMaxCheckpointStep = int64_t(1) << 53;

/// Reads the checkpoint at `path` of a run with seed `seed`; every
/// parameter must bind to `trainStep`'s, `step` and `seed` must be int64
/// scalars, and `step` between 0 and kMaxCheckpointStep. An error names the
/// file and what is missing or different.
llvm::Expected<Checkpoint> readCheckpoint(llvm::StringRef path, uint64_t seed,
                                          const StepFunction &trainStep);

/// Writes the checkpoint of `params` after `step` steps of a run with seed
/// `seed` to `path`, atomically.
llvm::Error writeCheckpoint(llvm::StringRef path, int64_t step, uint64_t seed,
                            llvm::ArrayRef<runtime::HostArray> params);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_CHECKPOINT_H
