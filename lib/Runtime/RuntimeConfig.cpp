//===- RuntimeConfig.cpp - The environment variables, read once -----------===//
//
// The only place in Trellis's libraries that reads the environment
// (docs/environment.md lists every variable).
//
//===----------------------------------------------------------------------===//

#include "trellis/Runtime/RuntimeConfig.h"

#include "RuntimeError.h"
#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/Pipelines/CompileOptions.h"
#include "trellis/Runtime/AllocHooks.h"
#include "trellis/Runtime/ByteSize.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

using namespace trellis::runtime;

/// $`name`, or nullopt if it is unset.
static std::optional<llvm::StringRef> lookup(const char *name) {
  if (const char *value = std::getenv(name))
    return llvm::StringRef(value);
  return std::nullopt;
}

/// $`name` if it is set and not empty.
static std::optional<llvm::StringRef> lookupNonEmpty(const char *name) {
  std::optional<llvm::StringRef> value = lookup(name);
  if (value && value->empty())
    return std::nullopt;
  return value;
}

/// The value of the first of `names` that holds an integer of at least
/// `min`; the launchers' variables, which are not Trellis's to reject.
static std::optional<unsigned>
lookupLauncherNumber(std::initializer_list<const char *> names, unsigned min) {
  for (const char *name : names) {
    unsigned number;
    if (std::optional<llvm::StringRef> value = lookup(name);
        value && !value->trim().getAsInteger(10, number) && number >= min)
      return number;
  }
  return std::nullopt;
}

/// Reads every variable into a RuntimeConfig. An invalid value keeps its
/// default and is passed to `invalid`.
static RuntimeConfig
readEnvironment(llvm::function_ref<void(llvm::Error)> invalid) {
  RuntimeConfig config;
  auto fail = [&](const char *name, const llvm::Twine &message) {
    invalid(makeError(llvm::Twine(name) + ": " + message));
  };

  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_MEMORY_LIMIT")) {
    if (llvm::Expected<uint64_t> bytes = parseByteSize(*value))
      config.memoryLimit = *bytes;
    else
      fail("TRELLIS_MEMORY_LIMIT", llvm::toString(bytes.takeError()));
  }
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_ALLOC_CACHE_MB")) {
    uint64_t mib;
    if (value->trim().getAsInteger(10, mib) ||
        mib > (std::numeric_limits<uint64_t>::max() >> 20))
      fail("TRELLIS_ALLOC_CACHE_MB",
           "'" + *value + "' is not a number of MiB (e.g. 1024, 0 = off)");
    else
      config.allocCacheBytes = mib << 20;
  }
  // Set to anything, even "" or "0".
  config.traceAllocations = lookup("TRELLIS_TRACE_ALLOC").has_value();

  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_CHECK_COLLECTIVES"))
    config.checkCollectives = *value != "0";
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_COLLECTIVE_TIMEOUT")) {
    if (llvm::Expected<double> seconds = parseCollectiveTimeout(*value))
      config.collectiveTimeout = *seconds;
    else
      fail("TRELLIS_COLLECTIVE_TIMEOUT", llvm::toString(seconds.takeError()));
  }
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_BLAS_LIBRARY"))
    config.blasLibraryPath = value->str();
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_DNNL_LIBRARY"))
    config.dnnlLibraryPath = value->str();
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_CACHE_DIR"))
    config.cacheDir = value->str();
  if (std::optional<llvm::StringRef> value = lookupNonEmpty("XDG_CACHE_HOME"))
    config.tuningDir = (*value + "/trellis").str();
  else if (std::optional<llvm::StringRef> value = lookupNonEmpty("HOME"))
    config.tuningDir = (*value + "/.cache/trellis").str();
  for (const char *name :
       {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "ONEDNN_MAX_CPU_ISA",
        "DNNL_MAX_CPU_ISA", "ONEDNN_CPU_ISA_HINTS", "DNNL_CPU_ISA_HINTS"})
    if (std::optional<llvm::StringRef> value = lookupNonEmpty(name))
      config.gemmKernelVariables += (name + ("=" + *value) + "\n").str();
  if (std::optional<llvm::StringRef> value =
          lookupNonEmpty("TRELLIS_NUM_THREADS")) {
    unsigned threads;
    if (value->trim().getAsInteger(10, threads) || threads == 0)
      fail("TRELLIS_NUM_THREADS",
           "'" + *value + "' is not a number of threads (e.g. 4)");
    else
      config.numThreads = threads;
  }

  // Open MPI, then PMIx launchers (Open MPI 5, Slurm), then PMI (MPICH).
  config.mpiRank =
      lookupLauncherNumber({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}, 0)
          .value_or(0);
  config.mpiWorldSize =
      lookupLauncherNumber({"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}, 1)
          .value_or(1);
  return config;
}

llvm::Expected<RuntimeConfig> RuntimeConfig::fromEnvironment() {
  llvm::Error errors = llvm::Error::success();
  RuntimeConfig config = readEnvironment([&](llvm::Error err) {
    errors = llvm::joinErrors(std::move(errors), std::move(err));
  });
  if (errors)
    return std::move(errors);
  return config;
}

RuntimeConfig RuntimeConfig::fromEnvironmentOrWarn() {
  return readEnvironment([](llvm::Error err) {
    llvm::errs() << "trellis: warning: ignoring "
                 << llvm::toString(std::move(err)) << '\n';
  });
}

void RuntimeConfig::applyLibraryPaths(CompileOptions &options) const {
  if (options.blasLibraryPath.empty())
    options.blasLibraryPath = blasLibraryPath;
  if (options.dnnlLibraryPath.empty())
    options.dnnlLibraryPath = dnnlLibraryPath;
}

void RuntimeConfig::applyTo(CompileOptions &options) const {
  applyLibraryPaths(options);
  if (options.cacheDir.empty())
    options.cacheDir = cacheDir;
  if (options.tuningDir.empty())
    options.tuningDir = tuningDir;
  if (options.gemmKernelVariables.empty())
    options.gemmKernelVariables = gemmKernelVariables;
  if (checkCollectives)
    options.checkCollectives = *checkCollectives;
}

llvm::Expected<double>
trellis::runtime::parseCollectiveTimeout(llvm::StringRef text) {
  double seconds;
  if (text.trim().getAsDouble(seconds) || !std::isfinite(seconds) ||
      seconds < 0)
    return makeError("'" + text +
                     "' is not a number of seconds (e.g. 300; 0: no timeout)");
  return seconds;
}

/// Passes `numThreads` on to the libraries' own variables, and bounds how
/// long an idle OpenMP thread spins before it sleeps unless the user chose
/// (KMP_BLOCKTIME, LLVM's OpenMP runtime, which also runs oneDNN's
/// parallel regions): 1 ms instead of libomp's 200, so that a spinning
/// thread seldom holds a shared core that another process wants, while the
/// hundreds of parallel loops and GEMMs of a step do not each wait for a
/// sleeping thread to wake (the Transformer LM step on 2 threads: 470 ms
/// sleeping at once, 315-350 ms with 1 ms of spin; docs/performance.md).
/// OpenBLAS's idle threads likewise (OPENBLAS_THREAD_TIMEOUT, 2^n cycles):
/// 2^4, not 2^28 (~0.1 s), since its pool only runs the few large GEMMs of a
/// step, where waking a thread costs nothing beside the product, while a
/// spinning one took a core from the OpenMP loops that follow (the LM step
/// on 2 threads at AVX2 with OpenBLAS's large GEMMs: 444 → 413 ms, medians of
/// 6 alternating runs; docs/performance.md).
/// The libraries read them when they are loaded: OpenBLAS
/// OPENBLAS_NUM_THREADS, libomp OMP_NUM_THREADS; both default to every
/// core.
static void exportLibraryThreads(const RuntimeConfig &config) {
  setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", /*overwrite=*/0);
  if (!config.numThreads)
    return;
  std::string threads = std::to_string(*config.numThreads);
  setenv("OPENBLAS_NUM_THREADS", threads.c_str(), /*overwrite=*/0);
  setenv("OMP_NUM_THREADS", threads.c_str(), /*overwrite=*/0);
}

void trellis::runtime::configureProcess(const RuntimeConfig &config) {
  configureAllocator(config);
  if (config.collectiveTimeout)
    trellis_coll_set_timeout(*config.collectiveTimeout);
  exportLibraryThreads(config);
}
