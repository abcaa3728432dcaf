// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of an ad.checkpoint nested in another one
// (the outer one also yields its block argument directly).
//
// Regression test: nested checkpoints once crashed the pass (the outer one was
// inlined first and the inner one visited after it was erased).
// REQUIRES: numpy
// RUN: %python %S/checkpoint_nested.py %s %t | FileCheck %s

// CHECK: PASS checkpoint_nested.x:
// CHECK: PASS checkpoint_nested.w:
// CHECK: ALL CHECKS PASSED

func.func @loss_checkpoint_nested(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %y, %p = ad.checkpoint %x : tensor<2x3xf64> -> tensor<2x3xf64>, tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>):
    %z = ad.checkpoint %a : tensor<2x3xf64> -> tensor<2x3xf64> {
    ^bb0(%b: tensor<2x3xf64>):
      %zero = arith.constant dense<0.0> : tensor<3xf64>
      %d = nn.dense %b, %w, %zero : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      %t = nn.tanh %d : tensor<2x3xf64>
      ad.yield %t : tensor<2x3xf64>
    }
    %g = nn.gelu %z : tensor<2x3xf64>
    ad.yield %g, %a : tensor<2x3xf64>, tensor<2x3xf64>
  }
  %m = arith.mulf %y, %p : tensor<2x3xf64>
  %q = arith.mulf %m, %c : tensor<2x3xf64>
  %l = nn.mean %q : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
