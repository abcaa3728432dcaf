// RUN: trellis-opt %s --convert-linalg-to-blas -verify-diagnostics

// A module that already declares the CBLAS symbol with another type.
// expected-error @+1 {{'cblas_sgemm' is declared with an unexpected type}}
func.func private @cblas_sgemm(i32, !llvm.ptr)

func.func @matmul(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}
