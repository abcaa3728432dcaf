//===- LinalgToBlas.h - Hand GEMM-shaped linalg ops to a BLAS ---*- C++ -*-===//

#ifndef TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
#define TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace trellis {

/// The library that f32 GEMMs call (convert-linalg-to-blas's `sgemm`).
enum class GemmLibrary {
  /// cblas_sgemm (OpenBLAS).
  Cblas,
  /// oneDNN's dnnl_sgemm.
  Dnnl,
};

/// The spellings of GemmLibrary, for every option that takes one
/// (convert-linalg-to-blas' and trellis-lower-to-llvm's `sgemm`).
inline llvm::cl::ValuesClass gemmLibraryValues() {
  return llvm::cl::values(
      clEnumValN(GemmLibrary::Cblas, "cblas", "cblas_sgemm (OpenBLAS)"),
      clEnumValN(GemmLibrary::Dnnl, "dnnl", "oneDNN's row-major dnnl_sgemm"));
}

#define GEN_PASS_DECL_CONVERTLINALGTOBLAS
#define GEN_PASS_DECL_TRELLISPREPARECONTRACTIONS
#define GEN_PASS_DECL_TRELLISFUSEELEMENTWISE
#include "trellis/Conversion/Passes.h.inc"

/// Loop positions of a GEMM-shaped contraction
/// `C[batch.., m, n] += A[batch.., m, k] * B[batch.., k, n]`, the operands'
/// dimensions in any order.
struct GemmDims {
  llvm::SmallVector<unsigned, 2> batch;
  unsigned m = 0, n = 0, k = 0;
};

/// Matches a linalg op (named or generic, tensors or memrefs) with two inputs
/// and one init whose body is exactly `out + a * b` (arith.mulf/addf, operands
/// in either order), whose indexing maps are projected permutations, and whose
/// loops are batch dims (in all three operands, parallel), one m (A and C,
/// parallel), one n (B and C, parallel) and one k (A and B, reduction).
mlir::FailureOr<GemmDims> matchGemm(mlir::linalg::LinalgOp op);

} // namespace trellis

#endif // TRELLIS_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
