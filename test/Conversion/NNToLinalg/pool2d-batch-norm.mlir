// The pools lower to one window reduction (linalg.generic over
// (n, i, j, p, q, c) with the window's affine input map, the window taps as
// reduction dimensions) over the input padded with the reduction's identity:
// −∞ for max (padding never wins), 0 for avg, which multiplies by
// 1/(kh·kw) (PyTorch's count_include_pad). nn.batch_norm in training: the
// column moments over the N·H·W positions, the running update with
// (1 − m) and m·M/(M − 1) for the biased batch variance, and one elementwise map
// (x − μ)·a + bias with a = scale/sqrt(σ² + eps) per channel; in
// inference only the map, and the state passes through.
// RUN: trellis-opt %s --convert-nn-to-linalg | FileCheck %s

// CHECK-DAG: #[[MAXWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 + d4, d5)>
// CHECK-DAG: #[[AVGWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>

// CHECK-LABEL: func.func @max
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x8x7x3xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0, 0] [2, 7, 6, 3] [1, 1, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[MAXWIN]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK: arith.maximumf
// CHECK-NOT: nn.max_pool2d
func.func @max(%x: tensor<2x7x6x3xf32>) -> tensor<2x3x6x3xf32> {
  %y = nn.max_pool2d %x {window = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 1>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x3x6x3xf32>
  return %y : tensor<2x3x6x3xf32>
}

// No padding: no fill and no insert_slice of the input.
// CHECK-LABEL: func.func @avg
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic {indexing_maps = [#[[AVGWIN]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x3xf32>, tensor<2x2xf32>)
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @avg(%x: tensor<2x8x8x3xf32>) -> tensor<2x4x4x3xf32> {
  %y = nn.avg_pool2d %x {window = array<i64: 2, 2>} : (tensor<2x8x8x3xf32>) -> tensor<2x4x4x3xf32>
  return %y : tensor<2x4x4x3xf32>
}

// CHECK-LABEL: func.func @bn
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<2x4x4x3xf32> into tensor<32x3xf32>
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.constant 3.125000e-02 : f32
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.subf
// CHECK: arith.mulf
// The weights of the batch statistics in the running update: the
// variance's m·M/(M − 1) = 0.1·32/31 (unbiased), the mean's m; the old
// values keep 1 − m.
// CHECK: arith.constant 0.103225805 : f32
// CHECK: arith.constant 1.000000e-01 : f32
// CHECK: arith.constant 0.899999976 : f32
// CHECK: arith.constant 0.899999976 : f32
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<32x3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
// CHECK: tensor.expand_shape
func.func @bn(%x: tensor<2x4x4x3xf32>, %c: tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v : tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @bn_eval(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x4x3xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK-NOT: "reduction"
// CHECK: return %{{.*}}, %[[C]], %[[C]]
func.func @bn_eval(%x: tensor<2x4x4x3xf32>, %c: tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c {training = false} : (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %m, %v : tensor<2x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>
}
