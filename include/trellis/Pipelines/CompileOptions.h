//===- CompileOptions.h - Every choice of the lowering and the JIT -*- C++ -*-//
//
// One struct carries every option of compiling a module, from a tool's flag
// (tools/*, through trellis::tools::CompileFlags) or an embedding API
// (trellis::Compiler, the C API) to the pass or JIT stage that uses it:
//
//   --attention-chunk     -> attentionChunk     -> convert-nn-to-linalg
//   --check-collectives   -> checkCollectives   -> convert-coll-to-mpi
//   --remat/...           -> remat              -> ad-remat
//   --reduce (trainer)    -> gradientReduction  -> coll-average-gradients
//   --bucket-bytes (trainer) -> gradientReduction.bucketBytes
//                            -> coll-bucket-reductions
//   --sgemm               -> sgemm, measureGemmLibraries -> the JIT's
//                            measurement (GemmChoice.h): sgemm, sgemmShapes
//                            -> convert-linalg-to-blas
//   --parallel-loops      -> parallelLoops      -> trellis-parallelize-linalg,
//                            convert-linalg-to-blas{parallel-batches}
//   --profile             -> profile            -> trellis-profile-ops, the JIT
//   --opt-level, --target-cpu, --vector-math, --outline-loops,
//   --compile-threads,
//   --dump-llvm-ir        -> the JIT
//   --cache-dir           -> cacheDir           -> the JIT's compile cache
//
// buildLowerToLLVMPipeline (Pipelines.h) turns the first group into passes;
// JitModule::compile (Runtime/Jit.h) reads the rest.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_PIPELINES_COMPILEOPTIONS_H
#define TRELLIS_PIPELINES_COMPILEOPTIONS_H

#include "trellis/Conversion/LinalgToBlas/LinalgToBlas.h"
#include "trellis/Dialect/AD/Transforms/Passes.h"
#include "trellis/Dialect/Coll/Transforms/Passes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trellis {

/// ad-remat's options, run before differentiation.
struct RematOptions {
  ad::RematPolicy policy = ad::RematPolicy::Store;
  /// Layers per checkpointed segment (RematPolicy::Every).
  int64_t every = 2;
  /// Peak tensor memory budget in bytes (RematPolicy::Budget).
  int64_t budget = 0;
};

/// Data-parallel gradient reduction (coll-average-gradients), inserted
/// before differentiation.
struct GradientReductionOptions {
  coll::GradientReduction reduce = coll::GradientReduction::Mean;
  /// What the ranks do with batch norm's statistics.
  coll::BatchNormStatistics batchNorm = coll::BatchNormStatistics::Local;
  /// Ranks holding the same weight shard reduce together (1: all ranks).
  int64_t weightShards = 1;
  /// Ranks of the job; needed when weightShards > 1.
  int64_t ranks = 0;
  /// If set, the reductions are fused into buckets of at most this many
  /// bytes whose communication overlaps the backward pass
  /// (coll-bucket-reductions' `bucket-bytes`; 0: one per tensor).
  std::optional<int64_t> bucketBytes;
};

/// Every option of compiling a module to native code.
struct CompileOptions {
  //===--- The MLIR lowering (trellis-lower-to-llvm) ----------------------===//

  /// Rows per chunk of the attention lowering (convert-nn-to-linalg's
  /// `attention-chunk`); 0 lowers attention whole.
  int64_t attentionChunk = 128;
  /// Check before every collective that all ranks agree on it
  /// (convert-coll-to-mpi's `check-agreement`, docs/reliability-failures.md;
  /// ~1 µs per collective, off for benchmarks).
  bool checkCollectives = true;
  /// Activation storage of differentiated functions (ad-remat).
  RematOptions remat;
  /// If set, gradients of ad ops are reduced across the ranks first.
  std::optional<GradientReductionOptions> gradientReduction;
  /// The library of the f32 GEMMs of each size class (f64 GEMMs always call
  /// cblas_dgemm). With measureGemmLibraries, the JIT replaces it by the
  /// host's measured choice.
  GemmChoice sgemm;
  /// If set, chooses the library of the f32 GEMMs beyond the medium class
  /// shape by shape over `sgemm` (convert-linalg-to-blas). With
  /// measureGemmLibraries the JIT sets it to the host's table of measured
  /// shapes (GemmChoice.h); its id is part of the compile cache's key.
  GemmShapeChooser sgemmShapes;
  /// The form of short A·Bᵀ products when given (--short-gemms): true
  /// computes them as their transposes (trellis-orient-contractions), false
  /// as they are; unset, `sgemm.transposeShort` (the measured choice)
  /// decides.
  std::optional<bool> transposeShort;
  /// Share the leading parallel loops of linalg ops with enough work among
  /// OpenMP threads (trellis-parallelize-linalg, convert-scf-to-openmp), and
  /// the batches of small oneDNN GEMMs (convert-linalg-to-blas's
  /// parallel-batches); the JIT then loads LLVM's OpenMP runtime.
  bool parallelLoops = true;
  /// Time every library call, linalg op, copy and allocation of the
  /// lowered code (trellis-profile-ops); JitModule::getProfile reports it
  /// per source op and per class (docs/profiling.md).
  bool profile = false;
  /// A lowering of one's own instead of the Trellis one: pass-pipeline text
  /// anchored on builtin.module (e.g. "convert-func-to-llvm,
  /// reconcile-unrealized-casts"). The options above then do not apply.
  std::string pipeline;
  /// Verify the IR after every pass of the lowering, so that a pass that
  /// produces invalid IR is named at once. Off, the module is verified once,
  /// after the whole lowering (the parser has verified the input): on the
  /// 4-layer Transformer LM step the per-pass verification took 0.4 s, 40 %
  /// of the MLIR lowering (docs/reliability-failures.md). trellis-opt
  /// verifies after every pass either way.
  bool verifyEachPass = false;

  //===--- The JIT (LLVM) -------------------------------------------------===//

  /// Let the JIT choose `sgemm` by measuring oneDNN's and OpenBLAS's sgemm
  /// on the host, once, and keeping the result in `tuningDir`
  /// (GemmChoice.h, docs/performance.md "Library choice"). Not with a
  /// `pipeline` of one's own, nor without a `tuningDir`.
  bool measureGemmLibraries = true;
  /// The directory where the host's measured GEMM choice is kept
  /// (RuntimeConfig::applyTo sets it: $XDG_CACHE_HOME/trellis, else
  /// $HOME/.cache/trellis). Empty: nothing is measured, `sgemm` is used as
  /// it is.
  std::string tuningDir;
  /// The environment variables that choose the GEMM libraries' kernels
  /// (OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA, ...), as `NAME=VALUE` lines:
  /// the measured choice is kept apart for each setting of them
  /// (RuntimeConfig::applyTo sets it).
  std::string gemmKernelVariables;

  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 3;
  /// The CPU to generate code for, an LLVM name such as `x86-64-v3` or
  /// `znver3`, with the features that CPU has; empty: this host, with all of
  /// its features. The code runs here, so a CPU with a feature this host
  /// lacks is an error. Naming an older CPU shows what the code does there
  /// (docs/performance.md: an AVX2 run on an AVX-512 host).
  std::string targetCpu;
  /// Let the vectorizer call glibc's vector math (libmvec) for exp, log,
  /// tanh, erf, erfc in loops: within 4 ulp like libm, but not bit-identical
  /// to libm's correctly rounded exp and log.
  bool vectorMath = true;
  /// Move each loop of a function with very many of them into a function of
  /// its own before optimizing (LLVM's loop analyses take time quadratic in
  /// the number of sequential loops of a function; docs/performance.md).
  bool outlineLoops = true;
  /// Threads of the LLVM optimizer and code generation: the module is split
  /// into parts (4 per thread), each optimized and generated on whichever
  /// thread is free (CodeGen.h); 0: one per core the process may run on.
  /// Parts are optimized alone (nothing is inlined across them; the loops
  /// outlined from an entry are noinline anyway), and the results are the
  /// same bit for bit (test/Integration/JIT/perf/parallel-loops.mlir): it is
  /// not part of the compile cache's key. With dumpLLVMIR the whole module
  /// is optimized at once, and only code generation is split.
  unsigned compileThreads = 0;
  /// If not empty, the optimized LLVM IR is written to this file.
  std::string dumpLLVMIR;
  /// Shared libraries to load besides the ones Trellis knows of (the MLIR C
  /// runner utils, MPI and the GEMM libraries when the program calls them).
  std::vector<std::string> sharedLibPaths;
  /// The CBLAS and the oneDNN loaded when the program calls them; empty for
  /// those found when Trellis was built (RuntimeConfig::applyTo sets them
  /// from TRELLIS_BLAS_LIBRARY and TRELLIS_DNNL_LIBRARY).
  std::string blasLibraryPath;
  std::string dnnlLibraryPath;

  //===--- The compile cache ----------------------------------------------===//

  /// If not empty, the directory of the persistent compile cache: the object
  /// code of every compile is kept there under a key of the module, these
  /// options and the host, and a later compile with the same key links it
  /// instead of compiling (docs/compile-cache.md). Not used with `profile`
  /// or `dumpLLVMIR`. RuntimeConfig::applyTo sets it from TRELLIS_CACHE_DIR.
  std::string cacheDir;
};

} // namespace trellis

#endif // TRELLIS_PIPELINES_COMPILEOPTIONS_H
