//===- Rank.cpp - File paths by MPI rank ----------------------------------===//

#include "trellis/Runtime/Rank.h"

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
