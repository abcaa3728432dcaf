// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of a third derivative:
//   f(x, w) = mean(tanh(x) ⊙ w),  g(x, w) = mean(∂f/∂x ⊙ ∂f/∂x),
//   t(x, w, c) = mean(∂g/∂x ⊙ c),  checked: ∂t/∂x, ∂t/∂w.
//
// Regression test: the reverse generics the rule builds were once rejected
// by the same rule (they read their output).
// REQUIRES: numpy
// RUN: %python %S/third_order.py %s %t | FileCheck %s

// CHECK: PASS third_order_tanh.x:
// CHECK: PASS third_order_tanh.w:
// CHECK: ALL CHECKS PASSED

func.func @f_tanh(%x: tensor<3x4xf64>, %w: tensor<3x4xf64>) -> tensor<f64> {
  %t = nn.tanh %x : tensor<3x4xf64>
  %p = arith.mulf %t, %w : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @g_tanh(%x: tensor<3x4xf64>, %w: tensor<3x4xf64>) -> tensor<f64> {
  %gx = ad.grad @f_tanh(%x, %w) {argnums = array<i64: 0>}
      : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %sq = arith.mulf %gx, %gx : tensor<3x4xf64>
  %l = nn.mean %sq : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @t_tanh(%x: tensor<3x4xf64>, %w: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %gx = ad.grad @g_tanh(%x, %w) {argnums = array<i64: 0>}
      : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %p = arith.mulf %gx, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
