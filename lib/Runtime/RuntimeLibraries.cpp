//===- RuntimeLibraries.cpp - The libraries the JIT loads -----------------===//
//
// The libraries are loaded into the process for good (loadLibrariesForever)
// before the JIT links code against them. The GEMM libraries keep their own
// thread settings, read when they are loaded (configureProcess sets them
// from TRELLIS_NUM_THREADS);
// docs/performance.md says which library does what and why.
//
//===----------------------------------------------------------------------===//

#include "RuntimeLibraries.h"

#include "RuntimeError.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"

#include <dlfcn.h>

using namespace trellis;
using trellis::runtime::makeError;

// What a lowered module links against: the C-interface wrapper of a
// collective that takes buffers, the plain name of one that does not, and
// the MPI calls and handles of upstream's lowering.
static_assert(
    lookupRuntimeLibrary("_mlir_ciface_trellis_coll_psum_groups_f32") ==
    RuntimeLibrary::Collectives);
static_assert(lookupRuntimeLibrary("trellis_coll_axis_size") ==
              RuntimeLibrary::Collectives);
static_assert(lookupRuntimeLibrary("MPI_Allreduce") == RuntimeLibrary::Mpi);
static_assert(lookupRuntimeLibrary("ompi_mpi_comm_world") ==
              RuntimeLibrary::Mpi);
static_assert(lookupRuntimeLibrary("dnnl_sgemm") == RuntimeLibrary::Dnnl);
static_assert(!lookupRuntimeLibrary("memrefCopy"));

bool trellis::runtime::usesRuntimeLibrary(mlir::ModuleOp module,
                                          RuntimeLibrary library) {
  auto isLibrarys = [&](llvm::StringRef symbol) {
    return lookupRuntimeLibrary(symbol) == library;
  };
  for (auto func : module.getOps<mlir::LLVM::LLVMFuncOp>())
    if (func.isExternal() && isLibrarys(func.getSymName()))
      return true;
  for (auto global : module.getOps<mlir::LLVM::GlobalOp>())
    if (isLibrarys(global.getSymName()))
      return true;
  return false;
}

bool trellis::runtime::usesOpenMP(mlir::ModuleOp module) {
  return module
      .walk([](mlir::Operation *op) {
        return llvm::isa<mlir::omp::OpenMPDialect>(op->getDialect())
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

bool trellis::runtime::communicates(mlir::ModuleOp module) {
  return usesRuntimeLibrary(module, RuntimeLibrary::Mpi) ||
         usesRuntimeLibrary(module, RuntimeLibrary::Collectives);
}

/// `path` if it is not empty, else `builtIn`; an error if that is not an
/// existing file.
static llvm::Expected<std::string>
findLibrary(llvm::StringRef path, llvm::StringRef builtIn, llvm::StringRef what,
            llvm::StringRef package, llvm::StringRef envVar) {
  std::string found = (path.empty() ? builtIn : path).str();
  if (found.empty() || !llvm::sys::fs::exists(found))
    return makeError(
        "the program calls " + what + " but it was not found (" +
        (found.empty() ? "install " + package.str() : "no file " + found) +
        "; or set " + envVar + ")");
  return found;
}

llvm::Expected<std::string>
trellis::runtime::findGemmLibrary(GemmLibrary library,
                                  const CompileOptions &options) {
  if (library == GemmLibrary::Cblas)
    return findLibrary(options.blasLibraryPath, TRELLIS_BLAS_LIBRARY_PATH,
                       "a CBLAS", "libopenblas-dev", "TRELLIS_BLAS_LIBRARY");
  return findLibrary(options.dnnlLibraryPath, TRELLIS_DNNL_LIBRARY_PATH,
                     "oneDNN", "libdnnl-dev", "TRELLIS_DNNL_LIBRARY");
}

std::string trellis::runtime::getOpenMPLibrary() {
  llvm::StringRef omp = TRELLIS_OMP_LIBRARY_PATH;
  return !omp.empty() && llvm::sys::fs::exists(omp) ? omp.str() : "";
}

llvm::Error trellis::runtime::appendRuntimeSymbolLibraries(
    mlir::ModuleOp module, const CompileOptions &options,
    llvm::SmallVectorImpl<std::string> &libraries) {
  if (communicates(module)) {
    llvm::StringRef mpi = TRELLIS_MPI_LIBRARY_PATH;
    if (mpi.empty() || !llvm::sys::fs::exists(mpi))
      return makeError("the program calls MPI but no MPI library was found "
                       "when Trellis was built");
    libraries.push_back(mpi.str());
  }
  // LLVM's OpenMP runtime, for the parallel loops and, loaded before
  // oneDNN into the global scope, for oneDNN's OpenMP calls too (libomp
  // implements libgomp's GOMP_* entry points): one pool of threads, whose
  // parallel regions do not wait on another runtime's (docs/performance.md,
  // "Threads").
  std::string omp = getOpenMPLibrary();
  bool haveOmp = !omp.empty();
  bool parallel = usesOpenMP(module);
  if (parallel && !haveOmp)
    return makeError("the program has parallel loops but LLVM's OpenMP "
                     "runtime was not found when Trellis was built "
                     "(install libomp-22-dev, or --parallel-loops=false)");
  if (haveOmp &&
      (parallel || usesRuntimeLibrary(module, RuntimeLibrary::Dnnl)))
    libraries.push_back(omp);
  for (auto [symbols, library] :
       {std::pair{RuntimeLibrary::Cblas, GemmLibrary::Cblas},
        std::pair{RuntimeLibrary::Dnnl, GemmLibrary::Dnnl}}) {
    if (!usesRuntimeLibrary(module, symbols))
      continue;
    llvm::Expected<std::string> path = findGemmLibrary(library, options);
    if (!path)
      return path.takeError();
    libraries.push_back(*path);
  }
  return llvm::Error::success();
}

llvm::Error
trellis::runtime::loadLibrariesForever(llvm::ArrayRef<std::string> libraries) {
  for (const std::string &library : libraries) {
    if (!::dlopen(library.c_str(), RTLD_LAZY | RTLD_GLOBAL | RTLD_NODELETE))
      return makeError("cannot load '" + library + "': " + ::dlerror());
    std::string message;
    if (!llvm::sys::DynamicLibrary::getPermanentLibrary(library.c_str(),
                                                        &message)
             .isValid())
      return makeError("cannot load '" + library + "': " + message);
  }
  return llvm::Error::success();
}
