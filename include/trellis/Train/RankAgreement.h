//===- RankAgreement.h - What every rank of a job must share ----*- C++ -*-===//
//
// Under mpirun each rank parses its own command line, and ranks started
// with different ones (MPMD, a script that builds them per rank) would
// train differently without a word: other seeds shuffle the data and
// initialize the parameters differently, a --resume on one rank starts it
// from another step. The trainer compares what must agree, after MPI's
// start, with a few sums over the ranks; a difference is an error that
// every rank reports alike, naming the setting, rank 0's value and the
// first rank that differs (docs/training.md, "Data parallelism").
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TRAIN_RANKAGREEMENT_H
#define TRELLIS_TRAIN_RANKAGREEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>

namespace trellis::train {

/// A setting every rank must share: its name (`--seed`), this rank's value
/// as a 64-bit key and how to show a key.
struct AgreedSetting {
  std::string name;
  uint64_t key;
  std::function<std::string(uint64_t)> show;
};

/// Shows a key as a decimal number.
std::string showNumber(uint64_t key);

/// Checks that every rank (of `ranks`; this is `rank`) holds rank 0's key
/// of every setting; the error, the same on every rank, names the first
/// setting that differs:
///
///   the ranks disagree on --seed: rank 0 has 1, rank 1 has 2; it must be
///   the same on every rank
///
/// A collective: every rank calls it with the same settings in the same
/// order.
llvm::Error checkRanksAgree(llvm::ArrayRef<AgreedSetting> settings, int rank,
                            int ranks);

/// Checks that every rank parsed its command line (`parseError`: empty, or
/// this rank's one-line parse error). If one did not, every rank fails
/// alike: a rank that could not parse with its own message, the others
/// naming the lowest such rank. A collective.
llvm::Error checkCommandLinesParsed(llvm::StringRef parseError, int rank,
                                    int ranks);

} // namespace trellis::train

#endif // TRELLIS_TRAIN_RANKAGREEMENT_H
