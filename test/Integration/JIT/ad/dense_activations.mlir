// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of nn.dense with rank-1, rank-2
// and rank-3 x, and of the activations relu (inputs at least 0.2 away from
// the kink), gelu (exact and tanh form) and tanh. Each loss is mean(y ⊙ c)
// with a random c, so the cotangent reaching the op is not uniform.
// REQUIRES: numpy
// RUN: %python %S/dense_activations.py %s %t | FileCheck %s

// CHECK: PASS dense2.x:
// CHECK: PASS dense2.w:
// CHECK: PASS dense2.b:
// CHECK: PASS dense3.x:
// CHECK: PASS dense3.w:
// CHECK: PASS dense3.b:
// CHECK: PASS dense1.x:
// CHECK: PASS dense1.w:
// CHECK: PASS dense1.b:
// CHECK: PASS relu.x:
// CHECK: PASS gelu.x:
// CHECK: PASS gelu_tanh.x:
// CHECK: PASS tanh.x:
// CHECK: ALL CHECKS PASSED

func.func @loss_dense2(%x: tensor<5x4xf64>, %w: tensor<4x3xf64>, %b: tensor<3xf64>,
                  %c: tensor<5x3xf64>) -> tensor<f64> {
  %y = nn.dense %x, %w, %b : (tensor<5x4xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
  %p = arith.mulf %y, %c : tensor<5x3xf64>
  %l = nn.mean %p : (tensor<5x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_dense3(%x: tensor<2x3x4xf64>, %w: tensor<4x5xf64>, %b: tensor<5xf64>,
                  %c: tensor<2x3x5xf64>) -> tensor<f64> {
  %y = nn.dense %x, %w, %b : (tensor<2x3x4xf64>, tensor<4x5xf64>, tensor<5xf64>) -> tensor<2x3x5xf64>
  %p = arith.mulf %y, %c : tensor<2x3x5xf64>
  %l = nn.mean %p : (tensor<2x3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_dense1(%x: tensor<4xf64>, %w: tensor<4x3xf64>, %b: tensor<3xf64>,
                       %c: tensor<3xf64>) -> tensor<f64> {
  %y = nn.dense %x, %w, %b : (tensor<4xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %p = arith.mulf %y, %c : tensor<3xf64>
  %l = nn.mean %p : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_relu(%x: tensor<4x6xf64>, %c: tensor<4x6xf64>) -> tensor<f64> {
  %y = nn.relu %x : tensor<4x6xf64>
  %p = arith.mulf %y, %c : tensor<4x6xf64>
  %l = nn.mean %p : (tensor<4x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_gelu(%x: tensor<4x6xf64>, %c: tensor<4x6xf64>) -> tensor<f64> {
  %y = nn.gelu %x {approximate = false} : tensor<4x6xf64>
  %p = arith.mulf %y, %c : tensor<4x6xf64>
  %l = nn.mean %p : (tensor<4x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_gelu_tanh(%x: tensor<4x6xf64>, %c: tensor<4x6xf64>) -> tensor<f64> {
  %y = nn.gelu %x {approximate = true} : tensor<4x6xf64>
  %p = arith.mulf %y, %c : tensor<4x6xf64>
  %l = nn.mean %p : (tensor<4x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_tanh(%x: tensor<4x6xf64>, %c: tensor<4x6xf64>) -> tensor<f64> {
  %y = nn.tanh %x : tensor<4x6xf64>
  %p = arith.mulf %y, %c : tensor<4x6xf64>
  %l = nn.mean %p : (tensor<4x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
