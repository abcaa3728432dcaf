// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of nn.dropout with fixed i32 and
// ui32 keys (the key is an integer argument: no gradient): the gradient is
// the same mask scaled by 1/(1-rate), zero at dropped elements, which the
// element-by-element check sees one by one.
// REQUIRES: numpy
// RUN: %python %S/dropout.py %s %t | FileCheck %s

// CHECK: PASS dropout.x:
// CHECK: PASS dropout_rank3.x:
// CHECK: PASS dropout_ui32.x:
// CHECK: PASS dropout_chain.x:
// CHECK: PASS dropout_rank3.mask_has_both:
// CHECK: ALL CHECKS PASSED

func.func @loss_dropout(%x: tensor<4x8xf64>, %key: tensor<2xi32>,
                        %c: tensor<4x8xf64>) -> tensor<f64> {
  %y = nn.dropout %x, %key {rate = 5.0e-01 : f32}
      : (tensor<4x8xf64>, tensor<2xi32>) -> tensor<4x8xf64>
  %p = arith.mulf %y, %c : tensor<4x8xf64>
  %l = nn.mean %p : (tensor<4x8xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_dropout_rank3(%x: tensor<2x3x5xf64>, %key: tensor<2xi32>,
                              %c: tensor<2x3x5xf64>) -> tensor<f64> {
  %y = nn.dropout %x, %key {rate = 2.5e-01 : f32}
      : (tensor<2x3x5xf64>, tensor<2xi32>) -> tensor<2x3x5xf64>
  %p = arith.mulf %y, %c : tensor<2x3x5xf64>
  %l = nn.mean %p : (tensor<2x3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_dropout_ui32(%x: tensor<4x8xf64>, %key: tensor<2xui32>,
                             %c: tensor<4x8xf64>) -> tensor<f64> {
  %y = nn.dropout %x, %key {rate = 3.0e-01 : f32}
      : (tensor<4x8xf64>, tensor<2xui32>) -> tensor<4x8xf64>
  %p = arith.mulf %y, %c : tensor<4x8xf64>
  %l = nn.mean %p : (tensor<4x8xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Dropout between two nonlinearities, the same key used twice.
func.func @loss_dropout_chain(%x: tensor<4x8xf64>, %key: tensor<2xi32>,
                              %s: tensor<8xf64>, %c: tensor<4x8xf64>) -> tensor<f64> {
  %t = nn.gelu %x : tensor<4x8xf64>
  %y = nn.dropout %t, %key {rate = 4.0e-01 : f32}
      : (tensor<4x8xf64>, tensor<2xi32>) -> tensor<4x8xf64>
  %u = nn.layer_norm %y, %s, %s : (tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  %z = nn.dropout %u, %key {rate = 4.0e-01 : f32}
      : (tensor<4x8xf64>, tensor<2xi32>) -> tensor<4x8xf64>
  %p = arith.mulf %z, %c : tensor<4x8xf64>
  %l = nn.mean %p : (tensor<4x8xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
