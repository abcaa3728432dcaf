// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of nn.layer_norm (x, scale, bias;
// rank 2 with epsilon 1e-5 and rank 3 with the default), nn.softmax and
// nn.log_softmax (rank 2 and 3), nn.cross_entropy (logits; the loss scaled
// by a differentiated scalar, so the incoming cotangent is not 1; a label
// outside [0, C); rank 3, BxLxC logits with BxL labels, and rank 1, C
// logits with a 0-d label, whose forward values are also compared with
// NumPy's mean over the positions to 1e-14) and nn.mean. An f64 layer_norm
// with epsilon 1e-12 (as an f64 and as an f32 attribute) on rows whose
// variance is ~1e-12, where epsilon's f32 rounding (relative 2e-8) would
// show, matches NumPy's f64 layer norm to 1e-14.
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
// CHECK: PASS cross_entropy3.logits:
// CHECK: PASS cross_entropy3.s:
// CHECK: PASS cross_entropy1.logits:
// CHECK: PASS mean.x:
// CHECK: PASS cross_entropy3.value:
// CHECK: PASS cross_entropy1.value:
// CHECK: PASS layer_norm_eps_f64.y:
// CHECK: PASS layer_norm_eps_f32attr.y:
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

func.func @loss_cross_entropy3(%logits: tensor<2x3x5xf64>, %labels: tensor<2x3xi32>,
                               %s: tensor<f64>) -> tensor<f64> {
  %l = nn.cross_entropy %logits, %labels : (tensor<2x3x5xf64>, tensor<2x3xi32>) -> tensor<f64>
  %ls = arith.mulf %l, %s : tensor<f64>
  return %ls : tensor<f64>
}

func.func @loss_cross_entropy1(%logits: tensor<5xf64>, %labels: tensor<i32>) -> tensor<f64> {
  %l = nn.cross_entropy %logits, %labels : (tensor<5xf64>, tensor<i32>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @layer_norm_eps(%x: tensor<3x8xf64>, %s: tensor<8xf64>, %b: tensor<8xf64>)
    -> (tensor<3x8xf64>, tensor<3x8xf64>) {
  %y = nn.layer_norm %x, %s, %b {epsilon = 1.0e-12 : f64}
      : (tensor<3x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<3x8xf64>
  %z = nn.layer_norm %x, %s, %b {epsilon = 1.0e-12 : f32}
      : (tensor<3x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<3x8xf64>
  return %y, %z : tensor<3x8xf64>, tensor<3x8xf64>
}

func.func @loss_mean(%x: tensor<2x3x4xf64>) -> tensor<f64> {
  %l = nn.mean %x : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
