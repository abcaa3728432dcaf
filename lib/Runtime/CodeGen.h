//===- CodeGen.h - Object code of an LLVM module, on several threads -*- C++
//-*-===//
//
// The JIT's last stage before linking: the translated module gets the
// ExecutionEngine's packed wrappers and an init function of its own for its
// global constructors, then it is split into partitions that are optimized
// (Optimizer.h) and generated on as many threads.
// CompiledCode.h links the objects, a compile's and a cache hit's alike.
//
//===----------------------------------------------------------------------===//

#ifndef TRELLIS_LIB_RUNTIME_CODEGEN_H
#define TRELLIS_LIB_RUNTIME_CODEGEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <vector>

namespace llvm {
class MemoryBuffer;
class Module;
class TargetMachine;
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

/// What happens to each part of a module before its code is generated (the
/// optimizer, Optimizer.h), with the target machine that generates it.
using PartTransform =
    std::function<llvm::Error(llvm::Module &, llvm::TargetMachine &)>;

/// Generates the object code of `module` for the target of `builder`, each
/// part after `prepare` (if given). With `threads` > 1 and more than one
/// function to generate, the functions are dealt out to up to `threads`
/// partitions, balanced by an estimate of their optimization and code
/// generation time, and the partitions are prepared and generated in
/// parallel, each in an LLVM context of its own (carried over as bitcode;
/// CloneModule keeps a partition's definitions and declares the rest). A
/// local symbol that only one function or variable refers to stays with it
/// (and local), and so does an always-inline function with its callers; the
/// partitions link as one: the other local symbols get hidden external
/// linkage first.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
generateObjects(std::unique_ptr<llvm::Module> module,
                const llvm::orc::JITTargetMachineBuilder &builder,
                unsigned threads, const PartTransform &prepare = {});

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_CODEGEN_H
