//===- trellis-run.cpp - Run a function of an MLIR module on the CPU -----===//
//
//   trellis-run FILE.mlir --entry=NAME [--input=A.npy]... [--output-dir=DIR]
//               [--repeat=N] [--warmup=N] [--stats] [--profile]
//
// Lowers the module with the Trellis pipeline, JIT-compiles it and calls the
// entry on the inputs. All the work is in lib/Tools (Runner.h); this file
// only parses the command line and reports the one-line error.
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/RuntimeConfig.h"
#include "trellis/Tools/CompileFlags.h"
#include "trellis/Tools/Runner.h"
#include "trellis/Tools/ToolExit.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace {
/// The options of trellis-run. They are constructed in main, after LLVM's own
/// options, because `--stats` must replace LLVM's pass-statistics flag.
struct CommandLine {
  cl::OptionCategory category{"trellis-run options"};

  cl::opt<std::string> inputFilename{cl::Positional,
                                     cl::desc("<input .mlir file>"),
                                     cl::init("-"), cl::cat(category)};
  cl::opt<std::string> entry{"entry", cl::Required,
                             cl::desc("Name of the func.func to run"),
                             cl::value_desc("name"), cl::cat(category)};
  cl::list<std::string> inputs{
      "input",
      cl::desc("A .npy file for the next argument of the entry; '{rank}' is "
               "replaced by the MPI rank"),
      cl::value_desc("file.npy"), cl::cat(category)};
  cl::opt<std::string> outputDir{
      "output-dir",
      cl::desc("Write result i to DIR/result<i>.npy (DIR is created; "
               "'{rank}' is replaced by the MPI rank)"),
      cl::value_desc("dir"), cl::cat(category)};
  cl::opt<unsigned> repeat{"repeat",
                           cl::desc("Call the entry N times (default 1)"),
                           cl::value_desc("N"), cl::init(1), cl::cat(category)};
  cl::opt<unsigned> warmup{
      "warmup",
      cl::desc("Call the entry N times before the timed calls, left out of "
               "run_ms and --profile (default 0)"),
      cl::value_desc("N"), cl::init(0), cl::cat(category)};
  cl::opt<bool> stats{
      "stats",
      cl::desc("Print one JSON line with compile_ms, run_ms (median over the "
               "repeats), peak_tensor_bytes and compile_phases (mlir_ms, "
               "llvm_ms, cache_ms, tuning_ms, cache: hit, miss or off)"),
      cl::cat(category)};
  trellis::tools::CompileFlags compile{category};
  trellis::tools::ProfileFlag profile{category};
  trellis::tools::MemoryLimitFlag memoryLimit{category};
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // LLVM's `-stats` (statistics of passes, compiled out of release builds)
  // would clash with ours.
  if (cl::Option *llvmStats = cl::getRegisteredOptions().lookup("stats"))
    llvmStats->removeArgument();
  CommandLine commandLine;
  cl::HideUnrelatedOptions(commandLine.category);
  cl::ParseCommandLineOptions(argc, argv,
                              "Trellis JIT runner: runs a function of an MLIR "
                              "module on NumPy .npy inputs\n");
  auto config = trellis::tools::startTool(commandLine.memoryLimit.value);
  if (!config)
    return trellis::tools::finishTool("trellis-run", config.takeError());

  trellis::tools::RunnerOptions options;
  options.inputFilename = commandLine.inputFilename;
  options.entry = commandLine.entry;
  options.inputPaths.assign(commandLine.inputs.begin(),
                            commandLine.inputs.end());
  options.outputDir = commandLine.outputDir;
  options.repeat = commandLine.repeat;
  options.warmup = commandLine.warmup;
  options.printStats = commandLine.stats;
  commandLine.compile.fill(options.compile, *config);
  commandLine.profile.fill(options.compile);
  options.rank = config->mpiRank;

  return trellis::tools::finishTool(
      "trellis-run", trellis::tools::runTrellisRun(options, llvm::outs()));
}
