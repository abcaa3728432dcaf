//===- BlasLibrary.cpp - The GEMM libraries the JIT loads -----------------===//
//
// The libraries are loaded into the process by the ExecutionEngine and keep
// their own thread settings, read when they are loaded: OpenBLAS
// OPENBLAS_NUM_THREADS, oneDNN (built on OpenMP) OMP_NUM_THREADS; both
// default to every core. docs/performance.md says which library does what
// and why.
//
//===----------------------------------------------------------------------===//

#include "BlasLibrary.h"

#include "RuntimeError.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using trellis::runtime::makeError;

/// Returns true if the module calls an external function named `prefix*`.
static bool callsFunctionWithPrefix(mlir::ModuleOp module,
                                    llvm::StringRef prefix) {
  for (auto func : module.getOps<mlir::LLVM::LLVMFuncOp>())
    if (func.isExternal() && func.getSymName().starts_with(prefix))
      return true;
  return false;
}

/// $`envVar` if set and non-empty, else `builtIn`; an error if that is not
/// an existing file.
static llvm::Expected<std::string> findLibrary(const char *envVar,
                                               llvm::StringRef builtIn,
                                               llvm::StringRef what,
                                               llvm::StringRef package) {
  std::string path = builtIn.str();
  if (const char *env = std::getenv(envVar); env && *env)
    path = env;
  if (path.empty() || !llvm::sys::fs::exists(path))
    return makeError("the program calls " + what + " but it was not found (" +
                     (path.empty() ? std::string("install ") + package.str()
                                   : "no file " + path) +
                     "; or set " + envVar + ")");
  return path;
}

/// Passes $TRELLIS_NUM_THREADS on to the libraries' own variables, and makes
/// idle OpenMP threads sleep rather than spin unless the user chose: on a
/// machine whose cores are shared, a spinning thread that loses its core
/// stalls every parallel GEMM (oneDNN, 2 threads, 1024³ with one core busy:
/// 27 GFLOP/s spinning, 77 sleeping).
static void configureLibraryThreads() {
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  const char *threads = std::getenv("TRELLIS_NUM_THREADS");
  if (!threads || !*threads)
    return;
  setenv("OPENBLAS_NUM_THREADS", threads, /*overwrite=*/0);
  setenv("OMP_NUM_THREADS", threads, /*overwrite=*/0);
}

llvm::Error trellis::runtime::appendGemmLibraries(
    mlir::ModuleOp module, llvm::SmallVectorImpl<std::string> &libraries) {
  bool cblas = callsFunctionWithPrefix(module, "cblas_");
  bool dnnl = callsFunctionWithPrefix(module, "dnnl_");
  if (!cblas && !dnnl)
    return llvm::Error::success();
  configureLibraryThreads();
  if (cblas) {
    llvm::Expected<std::string> path =
        findLibrary("TRELLIS_BLAS_LIBRARY", TRELLIS_BLAS_LIBRARY_PATH,
                    "a CBLAS", "libopenblas-dev");
    if (!path)
      return path.takeError();
    libraries.push_back(*path);
  }
  if (dnnl) {
    llvm::Expected<std::string> path =
        findLibrary("TRELLIS_DNNL_LIBRARY", TRELLIS_DNNL_LIBRARY_PATH,
                    "oneDNN", "libdnnl-dev");
    if (!path)
      return path.takeError();
    libraries.push_back(*path);
  }
  return llvm::Error::success();
}
