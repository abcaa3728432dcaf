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
  /// Shared libraries to load besides the MLIR C runner utils (and the MPI
  /// library, which is added when the program calls MPI).
  llvm::SmallVector<std::string> sharedLibPaths;
};

/// Measurements of one call.
struct CallStats {
  /// Wall time of the JIT-compiled function alone, in milliseconds.
  double runMs = 0;
  /// High-water mark of the bytes live through the allocation hooks during
  /// the call (including the results until they are copied out).
  uint64_t peakBytes = 0;
};

/// A compiled entry function, ready to be called.
class JitModule {
public:
  /// Lowers `module` in place to the LLVM dialect and JIT-compiles it.
  /// `entry` names a func.func with a body in `module`. Pipeline failures are
  /// reported through the context's diagnostic handler and then as an error.
  static llvm::Expected<std::unique_ptr<JitModule>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const JitOptions &options = {});

  ~JitModule();

  /// True if the program communicates (calls MPI or the Trellis collectives
  /// runtime); compile() has then initialized MPI for this process.
  bool usesMpi() const { return communicates; }

  /// Returns the entry's signature as it was before lowering.
  const EntrySignature &getSignature() const { return signature; }

  /// Calls the entry on copies of `inputs` (the program may write into its
  /// arguments; `inputs` stay unchanged) and returns copies of its results.
  /// Program-allocated result buffers are freed exactly once.
  llvm::Expected<llvm::SmallVector<HostArray>>
  call(llvm::ArrayRef<HostArray> inputs, CallStats *stats = nullptr);

private:
  JitModule(EntrySignature signature,
            std::unique_ptr<mlir::ExecutionEngine> engine,
            void (*packedEntry)(void **));

  EntrySignature signature;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// The ExecutionEngine's `_mlir_<entry>(void **)` wrapper.
  void (*packedEntry)(void **);
  bool communicates = false;
};

} // namespace trellis::runtime

#endif // TRELLIS_RUNTIME_JIT_H
