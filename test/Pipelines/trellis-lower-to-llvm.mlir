// The default pipeline takes nn IR all the way to the LLVM dialect; tensor
// buffers go through the host's allocation hooks and are freed in the
// function unless returned.
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s --check-prefix=ONLY-LLVM
// The pipeline's options reach their passes (CompileOptions::sgemm ->
// convert-linalg-to-blas): f32 GEMMs call oneDNN by default, CBLAS on
// request; a library outside the enum is rejected.
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s --check-prefix=DNNL
// RUN: trellis-opt %s '--trellis-lower-to-llvm=sgemm=cblas' | FileCheck %s --check-prefix=CBLAS
// RUN: not trellis-opt %s '--trellis-lower-to-llvm=sgemm=mkl' 2>&1 | FileCheck %s --check-prefix=BADLIB
// DNNL: llvm.func @dnnl_sgemm(
// DNNL-NOT: @cblas_sgemm
// CBLAS: llvm.func @cblas_sgemm(
// CBLAS-NOT: @dnnl_sgemm
// BADLIB: for the --sgemm option: Cannot find option named 'mkl'!

// ONLY-LLVM-NOT: {{(nn|linalg|tensor|memref|scf|cf|arith|math|func|bufferization)\.}}

// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-DAG: llvm.func @erfcf(f32) -> f32
// CHECK-LABEL: llvm.func @model
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.call @erfcf
// CHECK: llvm.intr.maximum
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK: llvm.return
func.func @model(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  %h = nn.dense %x, %w, %b : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = nn.gelu %h : tensor<4x16xf32>
  %l = nn.cross_entropy %g, %y : (tensor<4x16xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
