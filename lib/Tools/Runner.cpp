//===- Runner.cpp - The trellis-run driver --------------------------------===//

#include "trellis/Tools/Runner.h"

#include "trellis/Runtime/Jit.h"
#include "trellis/Runtime/Profiler.h"
#include "trellis/Runtime/Rank.h"
#include "trellis/Tools/ModuleFile.h"
#include "trellis/Tools/NpyFiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <random>

using namespace trellis::runtime;
using namespace trellis::tools;

namespace {
/// Milliseconds since construction.
class Stopwatch {
public:
  double elapsedMs() const {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

/// The call times whose median --stats reports: every one up to kCapacity
/// calls, then a uniform sample of that many (reservoir sampling, fixed
/// seed), so that memory stays bounded for any --repeat (a time kept per
/// call grew 8 MB/s at --repeat=4294967295).
class CallTimes {
public:
  static constexpr size_t kCapacity = size_t(1) << 20;

  void add(double ms) {
    ++seen;
    if (kept.size() < kCapacity)
      kept.push_back(ms);
    else if (uint64_t slot = random() % seen; slot < kCapacity)
      kept[slot] = ms;
  }
  llvm::SmallVectorImpl<double> &getKept() { return kept; }

private:
  llvm::SmallVector<double> kept;
  uint64_t seen = 0;
  std::mt19937_64 random{0x5eed};
};
} // namespace

static double getMedian(llvm::SmallVectorImpl<double> &values) {
  llvm::sort(values);
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

llvm::Error trellis::tools::runTrellisRun(const RunnerOptions &options,
                                          llvm::raw_ostream &out) {
  if (options.repeat == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--repeat must be at least 1");
  unsigned rank = options.rank;

  llvm::Expected<std::unique_ptr<ModuleFile>> file =
      ModuleFile::load(options.inputFilename);
  if (!file)
    return file.takeError();
  mlir::ModuleOp module = (*file)->get();
  // Check the inputs before spending time on compilation.
  llvm::Expected<mlir::func::FuncOp> entry =
      lookupEntryFunction(module, options.entry);
  if (!entry)
    return entry.takeError();
  llvm::Expected<EntrySignature> signature = getEntrySignature(*entry);
  if (!signature)
    return signature.takeError();
  llvm::Expected<llvm::SmallVector<HostArray>> inputs =
      readInputsFor(*signature, options.inputPaths, rank);
  if (!inputs)
    return inputs.takeError();

  Stopwatch compileTime;
  llvm::Expected<std::unique_ptr<JitModule>> jit =
      JitModule::compile(module, options.entry, options.compile);
  if (!jit)
    return jit.takeError();
  double compileMs = compileTime.elapsedMs();

  // The --warmup calls, then the timed ones; every call's peak counts.
  CallTimes runMs;
  uint64_t peakBytes = 0;
  llvm::SmallVector<HostArray> results;
  for (uint64_t i = 0, e = uint64_t(options.warmup) + options.repeat; i < e;
       ++i) {
    bool timed = i >= options.warmup;
    if (i == options.warmup)
      if (Profile *profile = (*jit)->getProfile(options.entry))
        profile->reset();
    CallStats stats;
    llvm::Expected<llvm::SmallVector<HostArray>> callResults =
        (*jit)->call(*inputs, &stats);
    if (!callResults)
      return callResults.takeError();
    peakBytes = std::max(peakBytes, stats.peakBytes);
    if (timed) {
      results = std::move(*callResults);
      runMs.add(stats.runMs);
    }
  }

  if (!options.outputDir.empty()) {
    if (llvm::Error err =
            writeResults(substituteRank(options.outputDir, rank), results))
      return err;
  } else {
    printResults(out, results);
  }
  if (Profile *profile = (*jit)->getProfile(options.entry))
    profile->print(out, options.entry);
  if (options.printStats) {
    const CompileStats &phases = (*jit)->getCompileStats();
    out << llvm::format("{\"compile_ms\": %.3f, \"run_ms\": %.6f, "
                        "\"peak_tensor_bytes\": %llu, ",
                        compileMs, getMedian(runMs.getKept()),
                        static_cast<unsigned long long>(peakBytes))
        << llvm::format("\"compile_phases\": {\"mlir_ms\": %.3f, "
                        "\"llvm_ms\": %.3f, \"cache_ms\": %.3f, "
                        "\"tuning_ms\": %.3f, ",
                        phases.mlirMs, phases.llvmMs, phases.cacheMs,
                        phases.tuningMs)
        << "\"cache\": \"" << stringifyCache(phases.cache) << "\"}}\n";
  }
  out.flush();
  return llvm::Error::success();
}
