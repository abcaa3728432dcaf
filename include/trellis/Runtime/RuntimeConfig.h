//===- RuntimeConfig.h - The environment variables, read once ---*- C++ -*-===//
//
// Every environment variable Trellis reads (docs/environment.md), typed.
// The tools and the embedding API read them once, when they start
// (RuntimeConfig::fromEnvironment), and pass the values down: the
// allocator's to configureAllocator (AllocHooks.h), the GEMM libraries' and
// the collective checks to the compile options, the launcher's rank to what
// names files by rank. No library below reads the environment itself.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_RUNTIMECONFIG_H
#define TRELLIS_RUNTIME_RUNTIMECONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace trellis {
struct CompileOptions;
} // namespace trellis

namespace trellis::runtime {

/// The settings of the environment. The defaults are those of an empty
/// environment.
struct RuntimeConfig {
  //===--- The allocation hooks (AllocHooks.h) ----------------------------===//

  /// TRELLIS_MEMORY_LIMIT: cap on the live tensor bytes (0: none beyond the
  /// memory the system has). A tool's `--memory-limit` overrides it.
  uint64_t memoryLimit = 0;
  /// TRELLIS_ALLOC_CACHE_MB: bytes of freed large blocks kept for reuse.
  uint64_t allocCacheBytes = uint64_t(1024) << 20;
  /// TRELLIS_TRACE_ALLOC: print every allocation and free to stderr.
  bool traceAllocations = false;

  //===--- Compilation and the libraries the JIT loads --------------------===//

  /// TRELLIS_CHECK_COLLECTIVES: collective agreement checks on (set, not
  /// `0`) or off (`0`) for every compile, whatever it asked for
  /// (CompileOptions::checkCollectives, on by default); nullopt (unset or
  /// empty): the compile's own choice. A tool's `--check-collectives`
  /// overrides it.
  std::optional<bool> checkCollectives;
  /// TRELLIS_BLAS_LIBRARY: the CBLAS to load; empty for the one found when
  /// Trellis was built.
  std::string blasLibraryPath;
  /// TRELLIS_DNNL_LIBRARY: the oneDNN to load; empty for the one found when
  /// Trellis was built.
  std::string dnnlLibraryPath;
  /// TRELLIS_NUM_THREADS: threads of the GEMM libraries (their own
  /// defaults, every core, if unset).
  std::optional<unsigned> numThreads;
  /// TRELLIS_CACHE_DIR: the compile cache's directory (CompileOptions::
  /// cacheDir); empty: no cache. A tool's `--cache-dir` overrides it.
  std::string cacheDir;
  /// Where the measured GEMM choice of the host is kept
  /// (CompileOptions::tuningDir): $XDG_CACHE_HOME/trellis, else
  /// $HOME/.cache/trellis; empty if neither variable is set.
  std::string tuningDir;
  /// The GEMM libraries' variables that choose their kernels, those set:
  /// OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, ONEDNN_MAX_CPU_ISA, DNNL_MAX_CPU_ISA,
  /// ONEDNN_CPU_ISA_HINTS, DNNL_CPU_ISA_HINTS, as `NAME=VALUE` lines
  /// (CompileOptions::gemmKernelVariables).
  std::string gemmKernelVariables;

  //===--- The collectives runtime ----------------------------------------===//

  /// TRELLIS_COLLECTIVE_TIMEOUT: seconds a rank waits in a collective for
  /// the others before the job ends naming the ranks that did not arrive
  /// (trellis_coll_set_timeout; 0: forever); nullopt: the runtime's default
  /// (300 s). configureProcess applies it; a tool's `--collective-timeout`
  /// overrides it.
  std::optional<double> collectiveTimeout;

  //===--- The MPI launcher -----------------------------------------------===//

  /// This process's rank: OMPI_COMM_WORLD_RANK, else PMIX_RANK, else
  /// PMI_RANK (the first that is a non-negative integer), else 0.
  unsigned mpiRank = 0;
  /// The job's number of ranks: OMPI_COMM_WORLD_SIZE, PMIX_SIZE or PMI_SIZE
  /// (likewise, and positive), else 1.
  unsigned mpiWorldSize = 1;

  /// Reads every variable above. An invalid value is an error naming the
  /// variable, e.g. "TRELLIS_MEMORY_LIMIT: 'lots' is not a size (...)".
  static llvm::Expected<RuntimeConfig> fromEnvironment();

  /// Like fromEnvironment(), for hosts that cannot fail (the embedding
  /// API's Compiler): an invalid variable is reported on stderr as
  /// "trellis: warning: ignoring <error>" and keeps its default.
  static RuntimeConfig fromEnvironmentOrWarn();

  /// Sets the GEMM libraries' paths that `options` leaves empty.
  void applyLibraryPaths(CompileOptions &options) const;

  /// What a JIT compile takes from the environment: the GEMM libraries'
  /// paths (applyLibraryPaths), the compile cache's directory and the
  /// tuning directory where `options` leaves them empty, and collective
  /// checks, on or off if the variable says so.
  void applyTo(CompileOptions &options) const;
};

/// Parses a collective timeout, a number of seconds of at least 0
/// (TRELLIS_COLLECTIVE_TIMEOUT, `--collective-timeout`), e.g. `300`, `2.5`,
/// `0` (no timeout).
llvm::Expected<double> parseCollectiveTimeout(llvm::StringRef text);

/// Applies the process-wide settings of `config`, once, when a host starts
/// and before any library is loaded: the allocation hooks'
/// (configureAllocator), the collective timeout if set, and the GEMM
/// libraries' thread variables, which
/// they read when they are loaded: OPENBLAS_NUM_THREADS and OMP_NUM_THREADS
/// become `numThreads` where they are unset, KMP_BLOCKTIME (how long an
/// idle OpenMP thread spins) defaults to 1 ms, OPENBLAS_THREAD_TIMEOUT (an
/// idle OpenBLAS thread's spin) to 2^4 cycles.
void configureProcess(const RuntimeConfig &config);

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_RUNTIMECONFIG_H
