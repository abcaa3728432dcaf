//===- CodeGen.h - Object code of an LLVM module, on several threads -*- C++
//-*-===//
//
// The JIT's last stage before linking: the translated module gets the
// ExecutionEngine's packed wrappers and an init function of its own for its
// global constructors, the optimizer runs (Optimizer.h), then the module is
// split into partitions whose object code is generated on as many threads.
// CompiledCode.h links the objects, a compile's and a cache hit's alike.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_CODEGEN_H
#define TRELLIS_LIB_RUNTIME_CODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace llvm {
class MemoryBuffer;
class Module;
namespace orc {
class JITTargetMachineBuilder;
} // namespace orc
} // namespace llvm

namespace trellis::runtime {

/// The functions lowerGlobalConstructors makes: the module's constructors,
/// then its destructors, each list in its priority order.
inline constexpr llvm::StringLiteral kInitFunctionName = "__trellis_init";
inline constexpr llvm::StringLiteral kFiniFunctionName = "__trellis_fini";

/// Gives each function defined in `module` with external linkage (the ones
/// the host may call: the entries) a packed wrapper `_mlir_<name>(ptr
/// args)`: it loads argument i through args[i], calls the function and
/// stores its result (if any) through args[<arguments>]. The interface of
/// mlir::ExecutionEngine's wrappers (its packFunctionArguments is not
/// exported), which PackedCall calls; the engine wraps internal functions
/// too, whose wrappers nothing calls but keep their code alive.
void addPackedWrappers(llvm::Module &module);

/// Replaces the module's llvm.global_ctors and llvm.global_dtors arrays by
/// two functions, kInitFunctionName and kFiniFunctionName, that call them in
/// order (constructors by ascending priority, destructors by descending
/// priority, as ORC's IR platform runs them). Object code then has no
/// initializer sections, which the RuntimeDyld linking of CompiledCode does
/// not run; it calls the functions instead. A module without either array
/// gets neither function.
void lowerGlobalConstructors(llvm::Module &module);

/// The target of the JIT's code: this host with all of its features if
/// `cpu` is empty, else the CPU named `cpu` (an LLVM CPU name) with the
/// features LLVM gives it. An error names an unknown CPU, or the first
/// feature of `cpu` this host lacks (its code would not run here).
llvm::Expected<llvm::orc::JITTargetMachineBuilder>
getTargetMachineBuilder(llvm::StringRef cpu);

/// Generates the object code of the optimized `module` for the target of
/// `builder`. With `threads` > 1 and more than one function to generate,
/// the functions are dealt out to up to `threads` partitions, balanced by
/// an estimate of their code generation time, and the partitions' code is
/// generated in parallel, each in an LLVM context of its own (carried over
/// as bitcode; CloneModule keeps a partition's definitions and declares the
/// rest). The partitions link as one: internal symbols get hidden external
/// linkage first. The code of each function is the same as unsplit.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
generateObjects(std::unique_ptr<llvm::Module> module,
                const llvm::orc::JITTargetMachineBuilder &builder,
                unsigned threads);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_CODEGEN_H
