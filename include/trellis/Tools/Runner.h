//===- Runner.h - The trellis-run driver ------------------------*- C++ -*-===//
//
// Everything trellis-run does after parsing its command line: read the
// module and the inputs, compile, run, write or summarize the results and
// the statistics. The tool itself only parses options and prints the error.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_RUNNER_H
#define TRELLIS_TOOLS_RUNNER_H

#include "trellis/Pipelines/CompileOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace trellis::tools {

/// The command line of trellis-run.
struct RunnerOptions {
  /// The .mlir file ("-" for stdin).
  std::string inputFilename;
  /// Name of the func.func to run.
  std::string entry;
  /// .npy files bound to the entry's arguments in order; `{rank}` is
  /// replaced by the MPI rank.
  llvm::SmallVector<std::string> inputPaths;
  /// If not empty, result i is written to `<dir>/result<i>.npy` (created
  /// like `mkdir -p`; `{rank}` is replaced); else results are summarized.
  std::string outputDir;
  /// Number of timed calls (results of the last are kept).
  unsigned repeat = 1;
  /// Calls before the timed ones, left out of run_ms and the profile (the
  /// first call pays for page faults and the libraries' kernel generation).
  unsigned warmup = 0;
  /// Print {"compile_ms", "run_ms", "peak_tensor_bytes", "compile_phases":
  /// {"mlir_ms", "llvm_ms", "cache_ms", "tuning_ms", "cache"}} as one JSON
  /// line.
  bool printStats = false;
  /// How the module is compiled (`--attention-chunk`, `--opt-level`, ...).
  CompileOptions compile;
  /// This process's MPI rank, for `{rank}` (RuntimeConfig::mpiRank).
  unsigned rank = 0;
};

/// Runs trellis-run. Summaries and statistics go to `out`; MLIR diagnostics
/// go to stderr. The returned error is one line, without the tool prefix.
llvm::Error runTrellisRun(const RunnerOptions &options, llvm::raw_ostream &out);

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_RUNNER_H
