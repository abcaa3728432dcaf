// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of a second derivative through
// nn.layer_norm: k(x, s, b) = mean(g ⊙ g), g = ∂/∂x mean(layer_norm(x, s,
// b) ⊙ c), differentiated w.r.t. x, s and b.
//
// Regression test: the second derivative was off by ~1e-5 through the
// out-reading reverse generics (see generic_broadcast_chain).
// REQUIRES: numpy
// RUN: %python %S/grad_of_grad_layer_norm.py %s %t | FileCheck %s

// CHECK: PASS grad_of_grad_layer_norm.x:
// CHECK: PASS grad_of_grad_layer_norm.s:
// CHECK: PASS grad_of_grad_layer_norm.b:
// CHECK: ALL CHECKS PASSED

func.func @f_layer_norm(%x: tensor<2x5xf64>, %s: tensor<5xf64>, %b: tensor<5xf64>,
                        %c: tensor<2x5xf64>) -> tensor<f64> {
  %n = nn.layer_norm %x, %s, %b : (tensor<2x5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
  %q = arith.mulf %n, %c : tensor<2x5xf64>
  %l = nn.mean %q : (tensor<2x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @k_layer_norm(%x: tensor<2x5xf64>, %s: tensor<5xf64>, %b: tensor<5xf64>,
                        %c: tensor<2x5xf64>) -> tensor<f64> {
  %gx = ad.grad @f_layer_norm(%x, %s, %b, %c) {argnums = array<i64: 0>}
      : (tensor<2x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<2x5xf64>) -> tensor<2x5xf64>
  %sq = arith.mulf %gx, %gx : tensor<2x5xf64>
  %l = nn.mean %sq : (tensor<2x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
