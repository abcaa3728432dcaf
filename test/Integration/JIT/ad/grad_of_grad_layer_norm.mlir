// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of a second derivative through
// nn.layer_norm: k(x, s, b) = mean(g ⊙ g), g = ∂/∂x mean(layer_norm(x, s,
// b) ⊙ c), differentiated w.r.t. x, s and b.
//
// XFAIL: *
// Known bug: ∂k/∂x is off by ~1e-5 relative (e.g. 0.0025937284 vs the
// converged finite difference 0.0025936518, stable for eps 1e-4..1e-7);
// ∂k/∂s and ∂k/∂b are right. Same cause as generic_broadcast_chain.mlir:
// the reverse of the layer_norm rule's row-mean generic (1-D, elementwise,
// reading its output operand) is fused by linalg-fuse-elementwise-ops into
// the row-broadcasting xhat generic, and the fused loop re-reads its own
// writes. Lowered without that fusion pass the same IR agrees with the
// finite differences to 5e-11.
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
