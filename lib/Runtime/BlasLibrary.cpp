//===- BlasLibrary.cpp - The BLAS the JIT loads for GEMM calls ------------===//
//
// The library is loaded into the process by the ExecutionEngine, so its own
// thread settings apply: OpenBLAS reads OPENBLAS_NUM_THREADS (default: every
// core) when it is loaded. docs/performance.md says why OpenBLAS.
//
//===----------------------------------------------------------------------===//

#include "BlasLibrary.h"

#include "RuntimeError.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

bool trellis::runtime::callsBlas(mlir::ModuleOp module) {
  for (auto func : module.getOps<mlir::LLVM::LLVMFuncOp>())
    if (func.isExternal() && func.getSymName().starts_with("cblas_"))
      return true;
  return false;
}

llvm::Expected<std::string> trellis::runtime::getBlasLibraryPath() {
  std::string path = TRELLIS_BLAS_LIBRARY_PATH;
  if (const char *env = std::getenv("TRELLIS_BLAS_LIBRARY"); env && *env)
    path = env;
  if (path.empty() || !llvm::sys::fs::exists(path))
    return makeError("the program calls a BLAS but no BLAS library was found "
                     "(set TRELLIS_BLAS_LIBRARY or install libopenblas-dev)" +
                     (path.empty() ? std::string() : ": " + path));
  return path;
}
