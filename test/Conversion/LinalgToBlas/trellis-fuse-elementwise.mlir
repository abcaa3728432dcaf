// trellis-fuse-elementwise does not fold a reshape into a transpose: the
// weight gradient of a dense layer over a batch of sequences,
// Xᵀ·dY with X = collapse(x : 8x16x32), keeps its 2-D transpose of the
// collapsed activation, which trellis-prepare-contractions then folds into
// the GEMM's indexing map (no copy at all), instead of becoming a 3-D
// permutation of x (a copy of x every step).
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-fuse-elementwise))' | FileCheck %s
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-fuse-elementwise,trellis-prepare-contractions))' | FileCheck %s --check-prefix=CHECK-GEMM

// CHECK-LABEL: func.func @weight_gradient
// CHECK: %[[X2:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<8x16x32xf32> into tensor<128x32xf32>
// CHECK: linalg.transpose ins(%[[X2]] : tensor<128x32xf32>) outs(%{{.*}} : tensor<32x128xf32>) permutation = [1, 0]
// CHECK-NOT: tensor<32x8x16xf32>
// CHECK-GEMM-LABEL: func.func @weight_gradient
// CHECK-GEMM-NOT: linalg.transpose
// CHECK-GEMM: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<128x32xf32>, tensor<128x64xf32>)
func.func @weight_gradient(%x: tensor<8x16x32xf32>, %dy: tensor<128x64xf32>) -> tensor<32x64xf32> {
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x16x32xf32> into tensor<128x32xf32>
  %e = tensor.empty() : tensor<32x128xf32>
  %xt = linalg.transpose ins(%x2 : tensor<128x32xf32>) outs(%e : tensor<32x128xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<32x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<32x128xf32>, tensor<128x64xf32>) outs(%z : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %dw : tensor<32x64xf32>
}
