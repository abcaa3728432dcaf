//===- RuntimeLibraries.h - The libraries the JIT loads ---------*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_RUNTIMELIBRARIES_H
#define TRELLIS_LIB_RUNTIME_RUNTIMELIBRARIES_H

#include "trellis/ExecutionEngine/RuntimeSymbols.h"
#include "trellis/Pipelines/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace trellis::runtime {

/// Returns true if the lowered `module` uses a function or global of
/// `library` (RuntimeSymbols.def says whose each symbol is) without defining
/// it.
bool usesRuntimeLibrary(mlir::ModuleOp module, RuntimeLibrary library);

/// Returns true if the lowered `module` communicates: it calls MPI or the
/// collectives runtime (which needs MPI).
bool communicates(mlir::ModuleOp module);

/// True if the lowered `module` has OpenMP ops (parallel loops): the JIT
/// then loads LLVM's OpenMP runtime, libomp.
bool usesOpenMP(mlir::ModuleOp module);

/// Appends to `libraries` the shared libraries behind the runtime symbols
/// the lowered `module` uses: MPI if it communicates (calls MPI or the
/// collectives runtime), a CBLAS for the `cblas_*` GEMMs
/// (`options.blasLibraryPath`, else the OpenBLAS found at build time),
/// oneDNN for `dnnl_sgemm` (`options.dnnlLibraryPath`, else the one found at
/// build time). An error names a library that is missing.
llvm::Error
appendRuntimeSymbolLibraries(mlir::ModuleOp module,
                             const CompileOptions &options,
                             llvm::SmallVectorImpl<std::string> &libraries);

/// Returns the path of `library` to load: `options`' (blasLibraryPath,
/// dnnlLibraryPath), else the one found when Trellis was built; an error
/// naming the package to install if there is none.
llvm::Expected<std::string> findGemmLibrary(GemmLibrary library,
                                            const CompileOptions &options);

/// Returns LLVM's OpenMP runtime found when Trellis was built, or "".
std::string getOpenMPLibrary();

/// Maps `libraries` into the process until it ends (RTLD_NODELETE: no
/// dlclose unloads them), and makes them LLVM's permanent libraries, whose
/// symbols DynamicLibrary::SearchForAddressOfSymbol finds. LLVM closes its
/// permanent libraries in a static destructor, but oneDNN's OpenMP worker
/// threads outlive it and would resume in unmapped code, and what a library
/// keeps in its globals would be lost (LeakSanitizer reports). RTLD_GLOBAL,
/// in order, as the ExecutionEngine loads them: a library's symbols serve
/// those loaded after it (libomp's GOMP_* entry points serve oneDNN).
llvm::Error loadLibrariesForever(llvm::ArrayRef<std::string> libraries);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_RUNTIMELIBRARIES_H
