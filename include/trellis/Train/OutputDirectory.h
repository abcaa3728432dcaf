//===- OutputDirectory.h - The directory a training run owns ----*- C++ -*-===//
//
// A run writes checkpoint.npz, metrics.jsonl and curve.svg to its output
// directory and owns it while it runs: it holds an exclusive flock on
// DIR/trellis-train.lock (created there, never through a symbolic link), so
// a second trainer on the same directory stops at once with one line
// instead of interleaving its metrics with the first's. Holding the lock it
// removes the temporaries that earlier runs killed mid-write left behind
// (checkpoint.npz.tmp-*, *.temp-stream-*): no other run can be writing
// them. Under mpirun only rank 0 writes, so only rank 0 locks.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_OUTPUTDIRECTORY_H
#define TRELLIS_TRAIN_OUTPUTDIRECTORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace trellis::train {

/// The lock of an output directory, held until destroyed.
class OutputDirectoryLock {
public:
  OutputDirectoryLock() = default;
  OutputDirectoryLock(const OutputDirectoryLock &) = delete;
  OutputDirectoryLock &operator=(const OutputDirectoryLock &) = delete;
  ~OutputDirectoryLock();

  /// Locks `directory` (which exists) for this process; an error names the
  /// directory and the process holding it if another one does.
  llvm::Error lock(llvm::StringRef directory);

private:
  int fd = -1;
};

/// Removes the temporaries of interrupted writes in `directory` (call it
/// holding the lock); returns how many it removed.
int removeStaleTemporaries(llvm::StringRef directory);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_OUTPUTDIRECTORY_H
