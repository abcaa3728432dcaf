//===- Jit.h - Lower, JIT-compile and call an entry function ----*- C++ -*-===//
//
// A JitModule takes a module at any level (tensor-level with nn ops, or
// already lowered), records the signature of its entry function, lowers it
// with the Trellis pipeline, JIT-compiles it (LLVM's optimizer and parallel
// code generation, linked by an ORC LLJIT) and calls the entry on
// HostArrays.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_RUNTIME_JIT_H
#define TRELLIS_RUNTIME_JIT_H

#include "trellis/Pipelines/CompileOptions.h"
#include "trellis/Runtime/HostArray.h"
#include "trellis/Runtime/Signature.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace trellis::runtime {

struct CachedCode;
class CompiledCode;
class Profile;

/// Measurements of one call.
struct CallStats {
  /// Wall time of the JIT-compiled function alone, in milliseconds.
  double runMs = 0;
  /// High-water mark of the bytes live through the allocation hooks during
  /// the call (including the results until they are copied out).
  uint64_t peakBytes = 0;
};

/// Where the time of a compile went (trellis-run --stats' compile_phases,
/// trellis-train's report).
struct CompileStats {
  /// How the compile cache (CompileOptions::cacheDir) served the compile.
  enum class Cache { Off, Hit, Miss };
  Cache cache = Cache::Off;
  /// The MLIR lowering to the LLVM dialect, in milliseconds; 0 on a hit.
  double mlirMs = 0;
  /// LLVM: translation to LLVM IR, optimization, code generation and
  /// linking (the entries' lookups); 0 on a hit.
  double llvmMs = 0;
  /// The cache's own work: the key, then reading and linking the object (a
  /// hit) or writing it (a miss).
  double cacheMs = 0;
  /// Choosing the f32 GEMM libraries (GemmChoice.h): reading the host's
  /// kept choice, or measuring the libraries the first time on a host, and
  /// measuring the shapes of the module the table of shapes lacks (which
  /// happens inside the lowering and is not counted in mlirMs).
  double tuningMs = 0;
};

/// "off", "hit" or "miss".
llvm::StringRef stringifyCache(CompileStats::Cache cache);

/// Lowers `module` in place to the LLVM dialect with `options.pipeline`
/// (pass-pipeline text anchored on builtin.module) or, if that is empty, the
/// Trellis lowering configured by `options`, and checks that nothing was left
/// outside the LLVM dialect. The pass manager verifies the IR after every
/// pass. Collective checks need the Trellis lowering: with them and a custom
/// pipeline, a module with coll ops is an error.
llvm::Error lowerToLLVMDialect(mlir::ModuleOp module,
                               const CompileOptions &options = {});

/// Appends the shared libraries that the lowered `module` calls into and the
/// JIT loads: the MLIR C runner utils, MPI if it communicates, the GEMM
/// libraries of its BLAS calls (at `options`' paths, if set). An error names
/// a library that is missing.
llvm::Error
appendRuntimeLibraries(mlir::ModuleOp module, const CompileOptions &options,
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
          const CompileOptions &options = {});

  /// Like compile(), but makes every public func.func with a body and a
  /// host-passable signature callable by name (call(entry, ...)). Functions
  /// the host cannot call are skipped; getSkipReason() says why.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compileModule(mlir::ModuleOp module, const CompileOptions &options = {});

  ~JitModule();

  /// True if the program communicates (calls MPI or the Trellis collectives
  /// runtime); compile() has then initialized MPI for this process.
  bool usesMpi() const { return communicates; }

  /// Returns where the time of the compile went.
  const CompileStats &getCompileStats() const { return compileStats; }

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
  /// copies: for hosts that already made their own); an argument whose own
  /// buffer comes back as a result is moved into that result.
  llvm::Expected<llvm::SmallVector<HostArray>>
  callInPlace(llvm::StringRef entry, llvm::MutableArrayRef<HostArray> args,
              CallStats *stats = nullptr);

  /// The times of the calls of `entry` so far, per site, if the module was
  /// compiled with CompileOptions::profile; null otherwise.
  Profile *getProfile(llvm::StringRef entry) const;

private:
  /// A callable function: its signature before lowering and the packed
  /// wrapper `_mlir_<name>(void **)` (CodeGen.h's addPackedWrappers).
  struct Entry {
    EntrySignature signature;
    void (*packedEntry)(void **) = nullptr;
  };

  JitModule(llvm::SmallVector<Entry> entries,
            std::unique_ptr<CompiledCode> code);

  /// Lowers `module`, JIT-compiles it and looks up `entries`' wrappers;
  /// or, on a compile cache hit, links the cached object code instead.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compileEntries(mlir::ModuleOp module, llvm::SmallVector<Entry> entries,
                 const CompileOptions &options);
  /// Links the object code of a compile cache hit and looks up `entries`'
  /// wrappers in it.
  static llvm::Expected<std::unique_ptr<JitModule>>
  linkCached(CachedCode cached, llvm::SmallVector<Entry> entries,
             const CompileOptions &options);
  /// Looks up `entries`' wrappers in `code` and runs its initializers.
  static llvm::Error linkEntries(CompiledCode &code,
                                 llvm::MutableArrayRef<Entry> entries);
  /// Lowers `module` to the LLVM dialect and checks that each of `entries`
  /// kept the signature the host will pass.
  static llvm::Error lowerEntries(mlir::ModuleOp module,
                                  llvm::ArrayRef<Entry> entries,
                                  const CompileOptions &options);
  /// Loads the libraries the lowered `module` needs (`libraries`, from
  /// getJitLibraries) and compiles it to object code: LLVM IR with the
  /// packed wrappers, the optimizer, code generation on
  /// `options.compileThreads` threads (CodeGen.h).
  static llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
  compileObjects(mlir::ModuleOp module, llvm::ArrayRef<std::string> libraries,
                 const CompileOptions &options);
  const Entry *lookupEntry(llvm::StringRef name) const;
  llvm::Expected<llvm::SmallVector<HostArray>>
  callEntry(const Entry &entry, llvm::MutableArrayRef<HostArray> args,
            CallStats *stats);

  llvm::SmallVector<Entry> entries;
  /// Public functions that are not callable, with the reason.
  llvm::SmallVector<std::pair<std::string, std::string>> skipped;
  std::unique_ptr<CompiledCode> code;
  bool communicates = false;
  CompileStats compileStats;
  /// Per callable function, if profiling.
  llvm::StringMap<std::unique_ptr<Profile>> profiles;
};

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_JIT_H
