//===- CompileFlags.h - The compile flags every tool shares -----*- C++ -*-===//
//
// The command-line flags of trellis::CompileOptions, declared once for
// trellis-run, trellis-train, trellis-equiv and (the lowering's) trellis-aot:
// each flag is typed like the field it sets, and fill() copies them into a
// CompileOptions that travels to the passes and the JIT. Construct the flags
// in main(), before cl::ParseCommandLineOptions, with the tool's option
// category.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_TOOLS_COMPILEFLAGS_H
#define TRELLIS_TOOLS_COMPILEFLAGS_H

#include "trellis/ExecutionEngine/CollectivesRuntime.h"
#include "trellis/Pipelines/CompileOptions.h"
#include "trellis/Runtime/RuntimeConfig.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace trellis::tools {

/// `--sgemm`: the f32 GEMM library, measured on the host or fixed.
enum class SgemmFlag { Auto, Dnnl, Cblas };

/// `--short-gemms`: the form of short A·Bᵀ products, measured or fixed.
enum class ShortGemmsFlag { Auto, Direct, Transposed };

/// Parses `--collective-timeout`'s seconds (runtime::parseCollectiveTimeout).
struct SecondsParser : llvm::cl::parser<double> {
  using llvm::cl::parser<double>::parser;
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             double &value) {
    llvm::Expected<double> seconds = runtime::parseCollectiveTimeout(arg);
    if (!seconds)
      return option.error(llvm::toString(seconds.takeError()));
    value = *seconds;
    return false;
  }
};

/// The flags of the MLIR lowering: `--attention-chunk`,
/// `--check-collectives`, `--remat`, `--remat-every`, `--remat-budget`,
/// `--parallel-loops`, `--sgemm`, `--short-gemms`.
/// trellis-aot has these alone; the JIT tools have CompileFlags.
struct LoweringFlags {
  explicit LoweringFlags(llvm::cl::OptionCategory &category)
      : attentionChunk(
            "attention-chunk",
            llvm::cl::desc("Rows per query/key chunk of attention over longer "
                           "sequences; 0 computes the whole score matrix "
                           "(default 128)"),
            llvm::cl::value_desc("rows"),
            llvm::cl::init(CompileOptions().attentionChunk),
            llvm::cl::cat(category)),
        checkCollectives(
            "check-collectives",
            llvm::cl::desc("Before every collective, check that all ranks "
                           "run the same one (op, dtype, shape); a mismatch "
                           "ends the job with one line naming the ranks "
                           "(on by default, ~1 us per collective: =false "
                           "for benchmarks; unless given: "
                           "TRELLIS_CHECK_COLLECTIVES)"),
            llvm::cl::init(CompileOptions().checkCollectives),
            llvm::cl::cat(category)),
        remat("remat",
              llvm::cl::desc("Activations the backward pass stores (ad-remat "
                             "before differentiation)"),
              llvm::cl::init(CompileOptions().remat.policy),
              ad::rematPolicyValues(), llvm::cl::cat(category)),
        rematEvery("remat-every",
                   llvm::cl::desc("Layers per checkpointed segment "
                                  "(--remat=every; default 2)"),
                   llvm::cl::init(CompileOptions().remat.every),
                   llvm::cl::cat(category)),
        parallelLoops(
            "parallel-loops",
            llvm::cl::desc("Share the loops of large elementwise ops, "
                           "reductions and attention rows among OpenMP "
                           "threads (TRELLIS_NUM_THREADS; default true)"),
            llvm::cl::init(CompileOptions().parallelLoops),
            llvm::cl::cat(category)),
        rematBudget("remat-budget",
                    llvm::cl::desc("Peak tensor bytes of the schedule "
                                   "(--remat=budget)"),
                    llvm::cl::init(CompileOptions().remat.budget),
                    llvm::cl::cat(category)),
        sgemm("sgemm",
              llvm::cl::desc("Library of the f32 GEMMs (default auto)"),
              llvm::cl::init(SgemmFlag::Auto),
              llvm::cl::values(
                  clEnumValN(SgemmFlag::Auto, "auto",
                             "per size class, the faster of oneDNN and "
                             "OpenBLAS on this host, measured once and kept "
                             "(trellis-aot: dnnl)"),
                  clEnumValN(SgemmFlag::Dnnl, "dnnl", "oneDNN's dnnl_sgemm"),
                  clEnumValN(SgemmFlag::Cblas, "cblas",
                             "cblas_sgemm (OpenBLAS)")),
              llvm::cl::cat(category)),
        shortGemms(
            "short-gemms",
            llvm::cl::desc("Form of the short A*B^T products (a dense "
                           "layer's input gradient over a batch of at most "
                           "128 rows)"),
            llvm::cl::init(ShortGemmsFlag::Auto),
            llvm::cl::values(
                clEnumValN(ShortGemmsFlag::Auto, "auto",
                           "as measured with the libraries (--sgemm=auto), "
                           "direct otherwise"),
                clEnumValN(ShortGemmsFlag::Direct, "direct", "A*B^T"),
                clEnumValN(ShortGemmsFlag::Transposed, "transposed",
                           "(B*A^T)^T, the transposed layout carried through "
                           "the element-wise ops after it")),
            llvm::cl::cat(category)) {}

  /// Sets the fields of `options` that these flags choose.
  void fill(CompileOptions &options) const {
    options.attentionChunk = attentionChunk;
    options.checkCollectives = checkCollectives;
    options.remat.policy = remat;
    options.remat.every = rematEvery;
    options.remat.budget = rematBudget;
    options.parallelLoops = parallelLoops;
    options.measureGemmLibraries = sgemm == SgemmFlag::Auto;
    if (sgemm != SgemmFlag::Auto)
      options.sgemm = GemmChoice::all(
          sgemm == SgemmFlag::Dnnl ? GemmLibrary::Dnnl : GemmLibrary::Cblas);
    if (shortGemms != ShortGemmsFlag::Auto)
      options.transposeShort = shortGemms == ShortGemmsFlag::Transposed;
  }

  llvm::cl::opt<int64_t> attentionChunk;
  llvm::cl::opt<bool> checkCollectives;
  llvm::cl::opt<ad::RematPolicy> remat;
  llvm::cl::opt<int64_t> rematEvery;
  llvm::cl::opt<bool> parallelLoops;
  llvm::cl::opt<int64_t> rematBudget;
  llvm::cl::opt<SgemmFlag> sgemm;
  llvm::cl::opt<ShortGemmsFlag> shortGemms;
};

/// The flags of a JIT tool: the lowering's and `--opt-level`,
/// `--target-cpu`, `--vector-math`, `--outline-loops`, `--compile-threads`,
/// `--dump-llvm-ir`, `--verify-each`,
/// `--cache-dir`, and the collectives runtime's `--collective-timeout`.
struct CompileFlags {
  explicit CompileFlags(llvm::cl::OptionCategory &category)
      : lowering(category),
        optLevel("opt-level", llvm::cl::desc("LLVM optimization level (0-3)"),
                 llvm::cl::init(CompileOptions().optLevel),
                 llvm::cl::cat(category)),
        targetCpu(
            "target-cpu",
            llvm::cl::desc("Generate code for CPU NAME (an LLVM CPU name, "
                           "e.g. x86-64-v3 or znver3) with its features "
                           "only; it must run on this host (default: this "
                           "host, all its features)"),
            llvm::cl::value_desc("NAME"), llvm::cl::cat(category)),
        vectorMath(
            "vector-math",
            llvm::cl::desc("Vectorize exp, log, tanh, erf in loops with "
                           "glibc's libmvec (within 4 ulp; =false: scalar "
                           "libm calls, correctly rounded exp and log)"),
            llvm::cl::init(CompileOptions().vectorMath),
            llvm::cl::cat(category)),
        outlineLoops(
            "outline-loops",
            llvm::cl::desc("Give each loop of a function with more than 128 "
                           "loops a function of its own before LLVM optimizes "
                           "it (its loop analyses take quadratic time in the "
                           "number of loops)"),
            llvm::cl::init(CompileOptions().outlineLoops),
            llvm::cl::cat(category)),
        compileThreads(
            "compile-threads",
            llvm::cl::desc("Optimize and generate machine code on N "
                           "threads, 4 parts of the module each (0: one "
                           "per core)"),
            llvm::cl::value_desc("N"),
            llvm::cl::init(CompileOptions().compileThreads),
            llvm::cl::cat(category)),
        dumpLLVMIR("dump-llvm-ir",
                   llvm::cl::desc("Write the optimized LLVM IR that the JIT "
                                  "compiles to FILE"),
                   llvm::cl::value_desc("file"), llvm::cl::cat(category)),
        verifyEach("verify-each",
                   llvm::cl::desc("Verify the IR after every pass of the "
                                  "lowering, naming the pass that makes it "
                                  "invalid (default: once, after the "
                                  "lowering)"),
                   llvm::cl::init(CompileOptions().verifyEachPass),
                   llvm::cl::cat(category)),
        cacheDir(
            "cache-dir",
            llvm::cl::desc("Keep the compiled code in DIR and reuse it when "
                           "the same module is compiled again with the same "
                           "options on the same host (default: "
                           "TRELLIS_CACHE_DIR; empty: no cache)"),
            llvm::cl::value_desc("dir"), llvm::cl::cat(category)),
        collectiveTimeout(
            "collective-timeout",
            llvm::cl::desc("Seconds a rank waits in a collective for the "
                           "others; then the job ends with one line naming "
                           "the ranks that did not arrive (0: forever; "
                           "default: TRELLIS_COLLECTIVE_TIMEOUT, else 300)"),
            llvm::cl::value_desc("seconds"), llvm::cl::cat(category)) {}

  /// Sets the fields of `options` that these flags choose, then what the
  /// environment adds (`config`: collective checks, library paths, the
  /// cache directory), then `--check-collectives` and `--cache-dir` if
  /// given. Also sets the process's collective timeout if
  /// `--collective-timeout` is given (over TRELLIS_COLLECTIVE_TIMEOUT, which
  /// startTool has applied).
  void fill(CompileOptions &options,
            const runtime::RuntimeConfig &config) const {
    lowering.fill(options);
    config.applyTo(options);
    // Given, the flag wins over TRELLIS_CHECK_COLLECTIVES.
    if (lowering.checkCollectives.getNumOccurrences())
      options.checkCollectives = lowering.checkCollectives;
    if (collectiveTimeout.getNumOccurrences())
      trellis_coll_set_timeout(collectiveTimeout);
    options.optLevel = optLevel;
    options.targetCpu = targetCpu;
    options.vectorMath = vectorMath;
    options.outlineLoops = outlineLoops;
    options.compileThreads = compileThreads;
    options.dumpLLVMIR = dumpLLVMIR;
    options.verifyEachPass = verifyEach;
    // Given, even empty, the flag wins over TRELLIS_CACHE_DIR.
    if (cacheDir.getNumOccurrences())
      options.cacheDir = cacheDir;
  }

  LoweringFlags lowering;
  llvm::cl::opt<unsigned> optLevel;
  llvm::cl::opt<std::string> targetCpu;
  llvm::cl::opt<bool> vectorMath;
  llvm::cl::opt<bool> outlineLoops;
  llvm::cl::opt<unsigned> compileThreads;
  llvm::cl::opt<std::string> dumpLLVMIR;
  llvm::cl::opt<bool> verifyEach;
  llvm::cl::opt<std::string> cacheDir;
  llvm::cl::opt<double, false, SecondsParser> collectiveTimeout;
};

/// `--profile` of the tools that run models (trellis-run, trellis-train):
/// CompileOptions::profile, and the tool prints the profile of its calls.
struct ProfileFlag {
  explicit ProfileFlag(llvm::cl::OptionCategory &category)
      : value("profile",
              llvm::cl::desc("Time every GEMM call, linalg op, copy and "
                             "allocation of the compiled code and print where "
                             "a call's time goes, per class and per source op "
                             "(docs/profiling.md)"),
              llvm::cl::cat(category)) {}

  void fill(CompileOptions &options) const { options.profile = value; }

  llvm::cl::opt<bool> value;
};

/// `--memory-limit` of the tools that run models (trellis-run, trellis-train);
/// startTool applies it over TRELLIS_MEMORY_LIMIT.
struct MemoryLimitFlag {
  explicit MemoryLimitFlag(llvm::cl::OptionCategory &category)
      : value("memory-limit",
              llvm::cl::desc("Cap on the live tensor bytes of the program, "
                             "e.g. 4G or 512M; exceeding it ends the run with "
                             "a clear error (default: TRELLIS_MEMORY_LIMIT, "
                             "else the memory available)"),
              llvm::cl::value_desc("size"), llvm::cl::cat(category)) {}

  llvm::cl::opt<std::string> value;
};

} // namespace trellis::tools

#endif // TRELLIS_TOOLS_COMPILEFLAGS_H
