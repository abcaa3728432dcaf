// nn.conv2d lowers to a zero pad, one im2col linalg.generic whose input map
// is the window's affine access (strides and dilations as coefficients) and
// one named linalg.matmul onto the broadcast bias, the op the BLAS path
// takes; its reverse rule adds one matmul per weight and input cotangent and
// one strided slice update per window tap (3x3: nine), and no loop.
// RUN: trellis-opt %s --convert-nn-to-linalg | FileCheck %s
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg | FileCheck %s --check-prefix=CHECK-GRAD

// CHECK-DAG: #[[GATHER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 + d4 * 2, d5)>
// CHECK-LABEL: func.func @forward
// CHECK: linalg.fill
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0, 0] [2, 7, 6, 3] [1, 1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[GATHER]], #{{.*}}]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x3x2x3x3x3xf32> into tensor<12x27xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x27xf32>, tensor<27x4xf32>)
// CHECK-NOT: nn.conv2d
func.func @forward(%x: tensor<2x7x6x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x2x4xf32> {
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x3x2x4xf32>
  return %y : tensor<2x3x2x4xf32>
}

func.func private @loss(%x: tensor<2x7x6x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<2x3x2x4xf32>
  %l = nn.mean %y : (tensor<2x3x2x4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-GRAD-NOT: scf.for
// CHECK-GRAD-COUNT-9: tensor.insert_slice %{{.*}} into %{{.*}} [2, 3, 2, 3] [1, 2, 1, 1] : tensor<2x3x2x3xf32> into tensor<2x8x6x3xf32>
// CHECK-GRAD-NOT: tensor.insert_slice %{{.*}} [1, 2, 1, 1]
// CHECK-GRAD-NOT: scf.for
func.func @grad(%x: tensor<2x7x6x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>)
    -> (tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) {
  %gx, %gw, %gb = ad.grad @loss(%x, %w, %b) {argnums = array<i64: 0, 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>)
      -> (tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>)
  return %gx, %gw, %gb : tensor<2x7x6x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>
}
