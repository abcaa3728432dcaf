//===- Rank.cpp - The MPI rank of this process ----------------------------===//

#include "trellis/Runtime/Rank.h"

#include <cstdlib>

unsigned trellis::runtime::getMpiRankFromEnvironment() {
  // Open MPI, then PMIx launchers (Open MPI 5, Slurm), then PMI (MPICH).
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char *value = std::getenv(name);
    unsigned rank;
    if (value && !llvm::StringRef(value).trim().getAsInteger(10, rank))
      return rank;
  }
  return 0;
}

unsigned trellis::runtime::getMpiWorldSizeFromEnvironment() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    const char *value = std::getenv(name);
    unsigned size;
    if (value && !llvm::StringRef(value).trim().getAsInteger(10, size) &&
        size > 0)
      return size;
  }
  return 1;
}

std::string trellis::runtime::substituteRank(llvm::StringRef path,
                                             unsigned rank) {
  static constexpr llvm::StringLiteral kPlaceholder("{rank}");
  std::string result;
  while (true) {
    size_t pos = path.find(kPlaceholder);
    result += path.take_front(pos).str();
    if (pos == llvm::StringRef::npos)
      return result;
    result += std::to_string(rank);
    path = path.drop_front(pos + kPlaceholder.size());
  }
}
