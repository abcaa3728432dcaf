//===- RankAgreement.cpp - What every rank of a job must share ------------===//
//
// Only sums and maxima of one double over the ranks are at hand
// (HostCollectives.h): a 64-bit key travels as two 32-bit halves, each
// exact in a double, in a sum to which only its sender adds.
//
//===----------------------------------------------------------------------===//

#include "trellis/Train/RankAgreement.h"

#include "TrainError.h"
#include "trellis/ExecutionEngine/HostCollectives.h"

#include "llvm/ADT/Twine.h"

#include <limits>

using namespace trellis;
using namespace trellis::train;
using llvm::Twine;

static const char *const kWhat =
    "the ranks' agreement on the options (trellis-train)";

/// Returns `key` of rank `root` on every rank.
static uint64_t broadcastKey(uint64_t key, int root, int rank) {
  bool mine = rank == root;
  double high = collectives::sumOverRanks(mine ? double(key >> 32) : 0, kWhat);
  double low =
      collectives::sumOverRanks(mine ? double(key & 0xffffffffu) : 0, kWhat);
  return uint64_t(high) << 32 | uint64_t(low);
}

/// Returns the lowest rank for which `flag` holds (there is one).
static int lowestRankWith(bool flag, int rank) {
  return -int(collectives::maxOverRanks(
      flag ? -double(rank) : -std::numeric_limits<double>::infinity(), kWhat));
}

/// " (and N more of the R)" when `count` ranks are named by one.
static std::string describeOthers(int count, int ranks) {
  if (count <= 1)
    return "";
  return (" (and " + Twine(count - 1) + " more of the " + Twine(ranks) + ")")
      .str();
}

std::string trellis::train::showNumber(uint64_t key) {
  return Twine(key).str();
}

llvm::Error
trellis::train::checkRanksAgree(llvm::ArrayRef<AgreedSetting> settings,
                                int rank, int ranks) {
  for (const AgreedSetting &setting : settings) {
    uint64_t first = broadcastKey(setting.key, 0, rank);
    bool differs = setting.key != first;
    int differing = collectives::sumOverRanks(differs ? 1 : 0, kWhat);
    if (differing == 0)
      continue;
    int other = lowestRankWith(differs, rank);
    uint64_t otherKey = broadcastKey(setting.key, other, rank);
    return fail("the ranks disagree on " + setting.name + ": rank 0 has " +
                setting.show(first) + ", rank " + Twine(other) + " has " +
                setting.show(otherKey) + describeOthers(differing, ranks) +
                "; it must be the same on every rank");
  }
  return llvm::Error::success();
}

llvm::Error trellis::train::checkCommandLinesParsed(llvm::StringRef parseError,
                                                    int rank, int ranks) {
  bool failed = !parseError.empty();
  int failing = collectives::sumOverRanks(failed ? 1 : 0, kWhat);
  if (failing == 0)
    return llvm::Error::success();
  // Every rank takes part, the failing ones too.
  int first = lowestRankWith(failed, rank);
  if (failed)
    return fail(parseError);
  return fail("the command line of rank " + Twine(first) +
              describeOthers(failing, ranks) +
              " is invalid (its own line says why); every rank stops");
}
