//===- Runner.h - The trellis-run driver ------------------------*- C++ -*-===//
//
// Everything trellis-run does after parsing its command line: read the
// module and the inputs, compile, run, write or summarize the results and
// the statistics. The tool itself only parses options and prints the error.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_RUNNER_H
#define TRELLIS_RUNTIME_RUNNER_H

#include "trellis/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace trellis::runtime {

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
  /// Number of calls (results of the last are kept).
  unsigned repeat = 1;
  /// Print {"compile_ms", "run_ms", "peak_tensor_bytes"} as one JSON line.
  bool printStats = false;
  /// LLVM optimization level of the JIT.
  unsigned optLevel = 3;
  /// Options of the lowering (`--attention-chunk`, `--check-collectives`).
  LowerToLLVMOptions lowering;
  /// Vectorized exp/log/tanh/erf through libmvec (`--vector-math`).
  bool vectorMath = true;
  /// Outline the loops of very large functions (`--outline-loops`).
  bool outlineLoops = true;
  /// Write the optimized LLVM IR here (`--dump-llvm-ir`; JitOptions).
  std::string dumpLLVMIR;
  /// Cap on live tensor bytes (`--memory-limit`, e.g. "4G"); empty: the
  /// TRELLIS_MEMORY_LIMIT environment variable, else none.
  std::string memoryLimit;
};

/// Parses and verifies the module in `filename` ("-" for stdin). MLIR's
/// diagnostics (with source locations) go to stderr through `sourceMgr`'s
/// handler.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModule(llvm::StringRef filename, mlir::MLIRContext &context,
           llvm::SourceMgr &sourceMgr);

/// Runs trellis-run. Summaries and statistics go to `out`; MLIR diagnostics
/// go to stderr. The returned error is one line, without the tool prefix.
llvm::Error runTrellisRun(const RunnerOptions &options, llvm::raw_ostream &out);

/// Ends the MPI side of the process, if a program initialized it: finalizes
/// MPI after a success; after a failure aborts the whole job (MPI_Abort), so
/// that ranks waiting in a collective for this one do not hang.
void endMpiJob(bool failed);

/// The end of a tool's main(): on an error prints "<tool>: error: <message>"
/// as one line to stderr and returns 1, else 0; ends the MPI side first
/// (endMpiJob).
int finishTool(llvm::StringRef tool, llvm::Error err);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_RUNNER_H
