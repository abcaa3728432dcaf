//===- CompiledCode.h - The machine code behind a JitModule -----*- C++ -*-===//
//
// A JitModule runs object code linked by an ORC LLJIT set up as the MLIR
// ExecutionEngine sets its own up: RuntimeDyld linking, the process's
// symbols, the libraries loaded for good, the allocation hooks. The objects
// are a compile's (CodeGen.h: one per partition of the module) or the ones
// the compile cache kept (a hit, CompileCache.h); both offer the packed
// wrappers `_mlir_<name>(void **)` of the ExecutionEngine's interface.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_COMPILEDCODE_H
#define TRELLIS_LIB_RUNTIME_COMPILEDCODE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace trellis::runtime {

/// Linked code, ready to be called.
class CompiledCode {
public:
  virtual ~CompiledCode();

  /// Returns the packed wrapper `_mlir_<name>` of the function `name`.
  virtual llvm::Expected<void (*)(void **)>
  lookupPacked(llvm::StringRef name) = 0;

  /// Returns the address of the symbol `name`.
  virtual llvm::Expected<void *> lookup(llvm::StringRef name) = 0;

  /// Runs the initializers of the code, once, before the first call.
  virtual llvm::Error initialize() = 0;
};

/// Links `objects` (object code for the host, CodeGen.h's) in a new LLJIT
/// as ExecutionEngine::create sets its own up: RuntimeDyld with a
/// SectionMemoryManager, the GDB and perf listeners, the symbols of the
/// process, `libraries` (already loaded) made global, or, for a library with
/// the ExecutionEngine's init protocol (`__mlir_execution_engine_init`), the
/// symbols it registers; the allocation hooks (AllocHooks.h) and, with
/// `profilerHooks`, the profiler's (Profiler.h). An undefined symbol is an
/// error of lookupPacked. initialize() calls the objects' kInitFunctionName,
/// if they have one; the destructor then calls kFiniFunctionName, then the
/// libraries' `__mlir_execution_engine_destroy`.
llvm::Expected<std::unique_ptr<CompiledCode>>
linkObjects(std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
            llvm::ArrayRef<std::string> libraries, bool profilerHooks);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_COMPILEDCODE_H
