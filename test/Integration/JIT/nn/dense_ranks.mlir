// nn.dense with rank-3 and rank-1 inputs (leading dimensions are batch
// dimensions), and rank 4 and K = 1, against NumPy (float64): 1e-5 relative
// in f32, 1e-12 with f64 tensors (trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/dense_ranks.py %s %t.f32 | FileCheck %s
// RUN: %python %S/dense_ranks.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS dense_rank3:
// CHECK: PASS dense_rank1:
// CHECK: PASS dense_rank4:
// CHECK: PASS dense_k1:
// CHECK: ALL CHECKS PASSED

func.func @dense_rank3(%x: tensor<2x5x7xf32>, %w: tensor<7x3xf32>,
                       %b: tensor<3xf32>) -> tensor<2x5x3xf32> {
  %y = nn.dense %x, %w, %b
      : (tensor<2x5x7xf32>, tensor<7x3xf32>, tensor<3xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

func.func @dense_rank1(%x: tensor<7xf32>, %w: tensor<7x3xf32>,
                       %b: tensor<3xf32>) -> tensor<3xf32> {
  %y = nn.dense %x, %w, %b
      : (tensor<7xf32>, tensor<7x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

func.func @dense_rank4(%x: tensor<2x3x4x6xf32>, %w: tensor<6x5xf32>,
                       %b: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %y = nn.dense %x, %w, %b
      : (tensor<2x3x4x6xf32>, tensor<6x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}

func.func @dense_k1(%x: tensor<4x1xf32>, %w: tensor<1x3xf32>,
                    %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %y = nn.dense %x, %w, %b
      : (tensor<4x1xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
