//===- CompiledCode.h - The machine code behind a JitModule -----*- C++ -*-===//
//
// A JitModule runs code from one of two JITs: the MLIR ExecutionEngine that
// compiled the lowered module (a compile), or an ORC LLJIT that linked an
// object file the compile cache kept (a hit, CompileCache.h). Both offer the
// packed wrappers `_mlir_<name>(void **)` the ExecutionEngine generates, set
// up the same way: RuntimeDyld linking, the process's symbols, the libraries
// loaded for good, the allocation hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_COMPILEDCODE_H
#define TRELLIS_LIB_RUNTIME_COMPILEDCODE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir {
class ExecutionEngine;
} // namespace mlir

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

/// The code `engine` compiled.
std::unique_ptr<CompiledCode>
makeEngineCode(std::unique_ptr<mlir::ExecutionEngine> engine);

/// Links `object` (ExecutionEngine object code for the host) in a new LLJIT
/// as ExecutionEngine::create sets its own up: RuntimeDyld with a
/// SectionMemoryManager, the GDB and perf listeners, the symbols of the
/// process, `libraries` made global (they must already be loaded), and the
/// allocation hooks (AllocHooks.h). An undefined symbol is an error of
/// lookupPacked. initialize() runs the object's `__orc_init_func.*`, the
/// functions ORC's IR platform made of the module's global constructors
/// when it was compiled, as ExecutionEngine::initialize does.
llvm::Expected<std::unique_ptr<CompiledCode>>
linkObject(std::unique_ptr<llvm::MemoryBuffer> object,
           llvm::ArrayRef<std::string> libraries);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_COMPILEDCODE_H
