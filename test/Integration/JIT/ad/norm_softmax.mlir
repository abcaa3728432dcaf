// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of nn.layer_norm (x, scale, bias;
// rank 2 with epsilon 1e-5 and rank 3 with the default), nn.softmax and
// nn.log_softmax (rank 2 and 3), nn.cross_entropy (logits; the loss scaled
// by a differentiated scalar, so the incoming cotangent is not 1; a label
// outside [0, C)) and nn.mean.
// REQUIRES: numpy
// RUN: %python %S/norm_softmax.py %s %t | FileCheck %s

// CHECK: PASS layer_norm.x:
// CHECK: PASS layer_norm.scale:
// CHECK: PASS layer_norm.bias:
// CHECK: PASS layer_norm3.x:
// CHECK: PASS layer_norm3.scale:
// CHECK: PASS layer_norm3.bias:
// CHECK: PASS softmax.x:
// CHECK: PASS softmax3.x:
// CHECK: PASS log_softmax.x:
// CHECK: PASS log_softmax3.x:
// CHECK: PASS cross_entropy.logits:
// CHECK: PASS cross_entropy.s:
// CHECK: PASS cross_entropy_oob_label.logits:
// CHECK: PASS mean.x:
// CHECK: ALL CHECKS PASSED

func.func @loss_layer_norm(%x: tensor<3x5xf64>, %s: tensor<5xf64>, %b: tensor<5xf64>,
                           %c: tensor<3x5xf64>) -> tensor<f64> {
  %y = nn.layer_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
      : (tensor<3x5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<3x5xf64>
  %p = arith.mulf %y, %c : tensor<3x5xf64>
  %l = nn.mean %p : (tensor<3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_layer_norm3(%x: tensor<2x3x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>,
                            %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %y = nn.layer_norm %x, %s, %b
      : (tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %p = arith.mulf %y, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_softmax(%x: tensor<3x5xf64>, %c: tensor<3x5xf64>) -> tensor<f64> {
  %y = nn.softmax %x : tensor<3x5xf64>
  %p = arith.mulf %y, %c : tensor<3x5xf64>
  %l = nn.mean %p : (tensor<3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_softmax3(%x: tensor<2x2x4xf64>, %c: tensor<2x2x4xf64>) -> tensor<f64> {
  %y = nn.softmax %x : tensor<2x2x4xf64>
  %p = arith.mulf %y, %c : tensor<2x2x4xf64>
  %l = nn.mean %p : (tensor<2x2x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log_softmax(%x: tensor<3x5xf64>, %c: tensor<3x5xf64>) -> tensor<f64> {
  %y = nn.log_softmax %x : tensor<3x5xf64>
  %p = arith.mulf %y, %c : tensor<3x5xf64>
  %l = nn.mean %p : (tensor<3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log_softmax3(%x: tensor<2x2x4xf64>, %c: tensor<2x2x4xf64>) -> tensor<f64> {
  %y = nn.log_softmax %x : tensor<2x2x4xf64>
  %p = arith.mulf %y, %c : tensor<2x2x4xf64>
  %l = nn.mean %p : (tensor<2x2x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_cross_entropy(%logits: tensor<4x5xf64>, %labels: tensor<4xi32>,
                              %s: tensor<f64>) -> tensor<f64> {
  %l = nn.cross_entropy %logits, %labels : (tensor<4x5xf64>, tensor<4xi32>) -> tensor<f64>
  %ls = arith.mulf %l, %s : tensor<f64>
  return %ls : tensor<f64>
}

func.func @loss_mean(%x: tensor<2x3x4xf64>) -> tensor<f64> {
  %l = nn.mean %x : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
