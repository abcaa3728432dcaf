//===- trellis-train.cpp - Train a model that follows the convention ------===//
//
// Thin: parses options and prints the error; the driver is
// lib/Train/Trainer.cpp (convention in docs/training.md).
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/RuntimeConfig.h"
#include "trellis/Tools/CompileFlags.h"
#include "trellis/Tools/ToolExit.h"
#include "trellis/Train/Trainer.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::OptionCategory category("trellis-train options");
  cl::opt<std::string> module(cl::Positional, cl::Required,
                              cl::desc("<model .mlir>"), cl::cat(category));
  cl::opt<std::string> data("data", cl::Required,
                            cl::desc("Training data (.npz, or IDX files as "
                                     "idx:IMAGES,LABELS)"),
                            cl::value_desc("file.npz"), cl::cat(category));
  cl::opt<std::string> evalData("eval-data",
                                cl::desc("Held-out data for @eval (as --data)"),
                                cl::value_desc("file.npz"), cl::cat(category));
  cl::opt<int64_t> steps("steps", cl::desc("Training steps (default 100)"),
                         cl::init(100), cl::cat(category));
  cl::opt<uint64_t> seed("seed", cl::desc("Seed of the data order and the "
                                          "initial parameters (default 0)"),
                         cl::init(0), cl::cat(category));
  cl::opt<trellis::coll::GradientReduction> reduce(
      "reduce", cl::desc("Gradient reduction across MPI ranks"),
      cl::init(trellis::coll::GradientReduction::Mean),
      trellis::coll::gradientReductionValues(),
      cl::cat(category));
  cl::opt<trellis::coll::BatchNormStatistics> batchNorm(
      "batch-norm",
      cl::desc("Batch-norm statistics across MPI ranks (default local: each "
               "rank's own, running statistics averaged; sync: the global "
               "batch's)"),
      cl::init(trellis::coll::BatchNormStatistics::Local),
      trellis::coll::batchNormStatisticsValues(), cl::cat(category));
  cl::opt<int64_t> weightShards(
      "weight-shards",
      cl::desc("Keep each parameter whose first dimension S divides (the "
               "optimizer state too) split over S consecutive ranks between "
               "steps, gathered where a step needs it (default 1: whole on "
               "every rank; docs/collectives.md)"),
      cl::value_desc("S"), cl::init(1), cl::cat(category));
  cl::opt<int64_t> bucketBytes(
      "bucket-bytes",
      cl::desc("Under mpirun, fuse the gradients' reductions into buckets of "
               "at most N bytes that start while the backward pass still "
               "runs (default 26214400 = 25 MiB; 0: one per tensor; -1: no "
               "buckets, blocking reductions after the backward pass)"),
      cl::value_desc("N"), cl::init(trellis::train::kDefaultBucketBytes),
      cl::cat(category));
  cl::opt<std::string> outputDir(
      "output-dir", cl::Required,
      cl::desc("Directory of checkpoint.npz, metrics.jsonl and curve.svg"),
      cl::value_desc("dir"), cl::cat(category));
  cl::opt<int64_t> checkpointEvery(
      "checkpoint-every",
      cl::desc("Checkpoint every N steps (default 500; 0: only at the end) "
               "and at the end"),
      cl::init(trellis::train::kDefaultCheckpointEvery), cl::cat(category));
  cl::opt<bool> resume("resume",
                       cl::desc("Continue from DIR/checkpoint.npz if it exists"),
                       cl::cat(category));
  cl::opt<int64_t> evalEvery("eval-every",
                             cl::desc("Evaluate every N steps (and at the end)"),
                             cl::init(0), cl::cat(category));
  cl::opt<int64_t> logEvery(
      "log-every",
      cl::desc("Progress line every N steps when stdout is not a terminal"),
      cl::init(0), cl::cat(category));
  trellis::tools::CompileFlags compile(category);
  trellis::tools::ProfileFlag profile(category);
  trellis::tools::MemoryLimitFlag memoryLimit(category);
  cl::HideUnrelatedOptions(category);
  // A parse error is kept, not an exit: under mpirun every rank must learn
  // of it, or the others would wait for this one (RankAgreement.h).
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  bool parsed = cl::ParseCommandLineOptions(
      argc, argv,
      "Trellis training driver: trains @train_step of a module on a .npz "
      "dataset\n",
      &parseErrorStream);
  auto config = trellis::tools::startTool(memoryLimit.value);
  if (!config)
    return trellis::tools::finishTool("trellis-train", config.takeError());
  if (!parsed && config->mpiWorldSize <= 1) {
    llvm::errs() << parseErrors;
    return 1;
  }

  trellis::train::TrainOptions options;
  options.modulePath = module;
  options.dataPath = data;
  options.evalDataPath = evalData;
  options.steps = steps;
  options.seed = seed;
  options.reduce = reduce;
  options.batchNorm = batchNorm;
  options.weightShards = weightShards;
  options.bucketBytes = bucketBytes;
  options.outputDir = outputDir;
  options.checkpointEvery = checkpointEvery;
  options.resume = resume;
  options.evalEvery = evalEvery;
  options.logEvery = logEvery;
  compile.fill(options.compile, *config);
  profile.fill(options.compile);
  options.launchedRanks = config->mpiWorldSize;
  if (!parsed) {
    // One line: LLVM's lines without its "trellis-train: " prefixes. A bad
    // value (--reduce=bogus) LLVM prints to stderr itself, not to the
    // stream.
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(parseErrors).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines) {
      line.consume_front("trellis-train: ");
      if (!options.commandLineError.empty())
        options.commandLineError += " ";
      options.commandLineError += line.trim().str();
    }
    if (options.commandLineError.empty())
      options.commandLineError =
          "invalid command line (the line before names the option); every "
          "rank stops";
  }
  llvm::Expected<int> exitCode =
      trellis::train::runTrellisTrain(options, llvm::outs());
  if (!exitCode)
    return trellis::tools::finishTool("trellis-train", exitCode.takeError());
  if (*exitCode != 0 && options.launchedRanks > 1) {
    // Stopped by a signal, or a failure every rank has reported, every rank
    // done (runTrellisTrain waits for all): not MPI_Finalize, which needs
    // mpirun, and mpirun, if the signal was its own, is ending the job and
    // does not answer (the ranks hung in it until its SIGKILL).
    llvm::outs().flush();
    llvm::errs().flush();
    ::_exit(*exitCode);
  }
  trellis::tools::finishTool("trellis-train", llvm::Error::success());
  return *exitCode;
}
