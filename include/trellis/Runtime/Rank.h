//===- Rank.h - File paths by MPI rank --------------------------*- C++ -*-===//
//
// trellis-run substitutes `{rank}` in file paths without linking MPI: the
// rank comes from the environment that mpirun sets
// (RuntimeConfig::mpiRank).
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_RANK_H
#define TRELLIS_RUNTIME_RANK_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace trellis::runtime {

/// Replaces every `{rank}` in `path` by `rank`.
std::string substituteRank(llvm::StringRef path, unsigned rank);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_RANK_H
