// The default pipeline takes nn IR all the way to the LLVM dialect; tensor
// buffers go through the host's allocation hooks and are freed in the
// function unless returned.
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s --check-prefix=ONLY-LLVM

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
