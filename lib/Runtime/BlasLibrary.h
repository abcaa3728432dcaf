//===- BlasLibrary.h - The GEMM libraries the JIT loads ---------*- C++ -*-===//

#ifndef TRELLIS_LIB_RUNTIME_BLASLIBRARY_H
#define TRELLIS_LIB_RUNTIME_BLASLIBRARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace trellis::runtime {

/// Appends to `libraries` the shared libraries behind the GEMM calls of the
/// lowered module (what convert-linalg-to-blas emits): a CBLAS for
/// `cblas_*` ($TRELLIS_BLAS_LIBRARY, else the OpenBLAS found at build time),
/// oneDNN for `dnnl_*` ($TRELLIS_DNNL_LIBRARY, else the one found at build
/// time). Before they are loaded, $TRELLIS_NUM_THREADS, if set, becomes the
/// libraries' own thread variables (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS)
/// where those are unset, and OMP_WAIT_POLICY defaults to PASSIVE. An error
/// names a library that is missing.
llvm::Error appendGemmLibraries(mlir::ModuleOp module,
                                llvm::SmallVectorImpl<std::string> &libraries);

} // namespace trellis::runtime

#endif // TRELLIS_LIB_RUNTIME_BLASLIBRARY_H
