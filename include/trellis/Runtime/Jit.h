//===- Jit.h - Lower, JIT-compile and call an entry function ----*- C++ -*-===//
//
// A JitModule takes a module at any level (tensor-level with nn ops, or
// already lowered), records the signature of its entry function, lowers it
// with the Trellis pipeline, JIT-compiles it with the MLIR ExecutionEngine
// and calls the entry on HostArrays.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_JIT_H
#define TRELLIS_RUNTIME_JIT_H

#include "trellis/Pipelines/Pipelines.h"
#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace trellis::runtime {

/// Options of JitModule::compile.
struct JitOptions {
  /// LLVM optimization level of the JIT (0-3).
  unsigned optLevel = 3;
  /// The lowering to the LLVM dialect as pass-pipeline text anchored on
  /// builtin.module (e.g. "trellis-lower-to-llvm" or "canonicalize,
  /// convert-to-llvm"); empty for the Trellis pipeline.
  std::string pipeline;
  /// Shared libraries to load besides the MLIR C runner utils (and the MPI
  /// library, which is added when the program calls MPI).
  llvm::SmallVector<std::string> sharedLibPaths;
  /// Options of the Trellis lowering (ignored with a custom `pipeline`).
  /// `lowering.checkCollectives` is also on when the environment variable
  /// TRELLIS_CHECK_COLLECTIVES is set to anything but "" or "0".
  LowerToLLVMOptions lowering;
  /// Let the vectorizer call glibc's vector math (libmvec) for exp, log,
  /// tanh, erf, erfc in loops: within 4 ulp like libm, but not bit-identical
  /// to libm's correctly rounded exp and log.
  bool vectorMath = true;
  /// Move each loop of a function with very many of them into a function of
  /// its own before optimizing (LLVM's loop analyses take time quadratic in
  /// the number of sequential loops of a function; docs/performance.md).
  bool outlineLoops = true;
  /// If not empty, the optimized LLVM IR is written to this file (what the
  /// code generator compiles: to see what was vectorized and which library
  /// functions are called).
  std::string dumpLLVMIR;
};

/// Returns true if TRELLIS_CHECK_COLLECTIVES asks for collective agreement
/// checks (set, and neither empty nor "0").
bool checkCollectivesFromEnvironment();

/// Measurements of one call.
struct CallStats {
  /// Wall time of the JIT-compiled function alone, in milliseconds.
  double runMs = 0;
  /// High-water mark of the bytes live through the allocation hooks during
  /// the call (including the results until they are copied out).
  uint64_t peakBytes = 0;
};

/// Lowers `module` in place to the LLVM dialect with `pipeline` (pass-
/// pipeline text anchored on builtin.module; empty for the Trellis
/// lowering, configured by `lowering`) and checks that nothing was left
/// outside the LLVM dialect. The pass manager verifies the IR after every
/// pass. Collective checks need the Trellis lowering: with them and a custom
/// pipeline, a module with coll ops is an error.
llvm::Error lowerToLLVMDialect(mlir::ModuleOp module, llvm::StringRef pipeline,
                               const LowerToLLVMOptions &lowering = {});

/// Appends the shared libraries that the lowered `module` calls into and the
/// JIT loads: the MLIR C runner utils, MPI if it communicates, the GEMM
/// libraries of its BLAS calls. An error names a library that is missing.
llvm::Error
appendRuntimeLibraries(mlir::ModuleOp module,
                       llvm::SmallVectorImpl<std::string> &libraries);

/// A compiled entry function, ready to be called.
class JitModule {
public:
  /// Lowers `module` in place to the LLVM dialect and JIT-compiles it.
  /// `entry` names a func.func with a body in `module`; the other functions
  /// become private, so that what `entry` does not call is not compiled.
  /// Pipeline failures are reported through the context's diagnostic handler
  /// and then as an error.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const JitOptions &options = {});

  /// Like compile(), but makes every public func.func with a body and a
  /// host-passable signature callable by name (call(entry, ...)). Functions
  /// the host cannot call are skipped; getSkipReason() says why.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compileModule(mlir::ModuleOp module, const JitOptions &options = {});

  ~JitModule();

  /// True if the program communicates (calls MPI or the Trellis collectives
  /// runtime); compile() has then initialized MPI for this process.
  bool usesMpi() const { return communicates; }

  /// Returns the entry's signature as it was before lowering.
  const EntrySignature &getSignature() const {
    return entries.front().signature;
  }

  /// Returns the signature of the callable function `entry`, or null.
  const EntrySignature *lookupSignature(llvm::StringRef entry) const;

  /// Returns the names of the callable functions, the first entry first.
  llvm::SmallVector<llvm::StringRef> getEntryNames() const;

  /// Returns why the public function `name` is not callable, or "" if it is
  /// callable or was never a public function of the module.
  llvm::StringRef getSkipReason(llvm::StringRef name) const;

  /// Calls the entry on copies of `inputs` (the program may write into its
  /// arguments; `inputs` stay unchanged) and returns copies of its results.
  /// Program-allocated result buffers are freed exactly once.
  llvm::Expected<llvm::SmallVector<HostArray>>
  call(llvm::ArrayRef<HostArray> inputs, CallStats *stats = nullptr);

  /// Calls the callable function `entry` like call() does the first one.
  llvm::Expected<llvm::SmallVector<HostArray>>
  call(llvm::StringRef entry, llvm::ArrayRef<HostArray> inputs,
       CallStats *stats = nullptr);

  /// Calls `entry` on `args` themselves, which it may write into (no
  /// copies: for hosts that already made their own).
  llvm::Expected<llvm::SmallVector<HostArray>>
  callInPlace(llvm::StringRef entry, llvm::MutableArrayRef<HostArray> args,
              CallStats *stats = nullptr);

private:
  /// A callable function: its signature before lowering and the
  /// ExecutionEngine's `_mlir_<name>(void **)` wrapper.
  struct Entry {
    EntrySignature signature;
    void (*packedEntry)(void **) = nullptr;
  };

  JitModule(llvm::SmallVector<Entry> entries,
            std::unique_ptr<mlir::ExecutionEngine> engine);

  static llvm::Expected<std::unique_ptr<JitModule>>
  compileEntries(mlir::ModuleOp module, llvm::SmallVector<Entry> entries,
                 const JitOptions &options);
  const Entry *lookupEntry(llvm::StringRef name) const;
  llvm::Expected<llvm::SmallVector<HostArray>>
  callEntry(const Entry &entry, llvm::MutableArrayRef<HostArray> args,
            CallStats *stats);

  llvm::SmallVector<Entry> entries;
  /// Public functions that are not callable, with the reason.
  llvm::SmallVector<std::pair<std::string, std::string>> skipped;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  bool communicates = false;
};

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_JIT_H
