//===- BlasLibrary.h - The BLAS the JIT loads for GEMM calls ----*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_BLASLIBRARY_H
#define TRELLIS_LIB_RUNTIME_BLASLIBRARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace trellis::runtime {

/// Returns true if the lowered module calls a CBLAS function (what
/// convert-linalg-to-blas emits).
bool callsBlas(mlir::ModuleOp module);

/// The shared library that provides the CBLAS functions: $TRELLIS_BLAS_LIBRARY
/// if set (any CBLAS, e.g. BLIS), else the OpenBLAS found when Trellis was
/// built. An error if neither names an existing file.
llvm::Expected<std::string> getBlasLibraryPath();

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_BLASLIBRARY_H
