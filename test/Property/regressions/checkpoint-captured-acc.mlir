// Was a bug (found by test/Property/random-programs.test, seed 195,
// minimized by hand): a half-residual inside a checkpoint whose accumulator
// is the checkpoint's block argument and whose residual reads the value
// passed in for that argument. ad-differentiate inlines checkpoints
// (mapping block arguments to the inputs), after which the residual read
// the accumulator's SSA value, and the half-residual's verifier rejected
// the pass's output. The verifier no longer checks SSA values (only
// inversion needs F not to read acc, and only reversible_serial inverts; its
// linearity check covers that): y = x + tanh(x), and x gets dy through the
// accumulator plus J^T dy through the captured use. (check_losses.py
// runs trellis-run, which verifies after every pass.)
// REQUIRES: numpy
// RUN: %python %S/check_losses.py %s %t | FileCheck %s

// CHECK: PASS loss_checkpoint_capture.arg0:
// CHECK: PASS loss_checkpoint_capture.arg1:
// CHECK: ALL CHECKS PASSED


func.func @loss_checkpoint_capture(%x: tensor<2x3xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %y = ad.checkpoint %x : tensor<2x3xf64> -> tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>):
    %h = nn.reversible_half_residual %a : tensor<2x3xf64> {
      %t = nn.tanh %x : tensor<2x3xf64>
      nn.yield %t : tensor<2x3xf64>
    }
    ad.yield %h : tensor<2x3xf64>
  }
  %p = arith.mulf %y, %c : tensor<2x3xf64>
  %l = nn.mean %p : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
