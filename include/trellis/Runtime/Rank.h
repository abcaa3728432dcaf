//===- Rank.h - The MPI rank of this process --------------------*- C++ -*-===//
//
// trellis-run substitutes `{rank}` in file paths without linking MPI: the
// rank comes from the environment that mpirun sets.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_RANK_H
#define TRELLIS_RUNTIME_RANK_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace trellis::runtime {

/// Returns the number of ranks of the job from OMPI_COMM_WORLD_SIZE,
/// PMIX_SIZE or PMI_SIZE; 1 outside mpirun.
unsigned getMpiWorldSizeFromEnvironment();

/// Returns the MPI rank from OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK
/// (the first that is set and is a non-negative integer), else 0.
unsigned getMpiRankFromEnvironment();

/// Replaces every `{rank}` in `path` by `rank`.
std::string substituteRank(llvm::StringRef path, unsigned rank);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_RANK_H
