// A checkpoint (hand-written, or made by ad-remat) around an scf.for whose
// bounds are defined outside it. The checkpoint's recomputation fed every
// captured value through an ad.barrier, loop bounds included, so the loop's
// rule no longer saw a constant trip count ("'scf.for' op cannot be
// differentiated: the trip count must be a constant"). Found by the random
// programs (test/Property/random-programs.test, seed 2005, ad-remat every=2).
// REQUIRES: numpy
// RUN: trellis-opt %s --ad-remat="policy=every every=2" -o %t.remat.mlir
// RUN: %python %S/check_losses.py %s %t | FileCheck %s
// RUN: %python %S/check_losses.py %t.remat.mlir %t.remat | FileCheck %s

// CHECK: PASS loss_checkpoint_loop.arg0:
// CHECK: PASS loss_checkpoint_loop.arg1:
// CHECK: PASS loss_checkpoint_loop.arg2:
// CHECK: PASS loss_remat_loop.arg0:
// CHECK: PASS loss_remat_loop.arg1:
// CHECK: PASS loss_remat_loop.arg2:
// CHECK: ALL CHECKS PASSED

func.func @loss_checkpoint_loop(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = ad.checkpoint %x : tensor<2x3xf64> -> tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>):
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%q = %a) -> (tensor<2x3xf64>) {
      %t = nn.tanh %q : tensor<2x3xf64>
      %m = arith.mulf %t, %c : tensor<2x3xf64>
      scf.yield %m : tensor<2x3xf64>
    }
    ad.yield %r : tensor<2x3xf64>
  }
  %p = arith.mulf %y, %w : tensor<2x3xf64>
  %l = nn.mean %p : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// ad-remat puts the loop in a segment and leaves its bounds outside.
func.func @loss_remat_loop(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> (tensor<2x3xf64>) {
    %d = nn.dense %a, %w, %b : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    %e = nn.tanh %d : tensor<2x3xf64>
    scf.yield %e : tensor<2x3xf64>
  }
  %s = arith.addf %r, %x : tensor<2x3xf64>
  %g = nn.gelu %s : tensor<2x3xf64>
  %t = nn.tanh %g : tensor<2x3xf64>
  %l = nn.mean %t : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// ad-remat segments the functions that are differentiated.
func.func @grad_remat_loop(%x: tensor<2x3xf64>, %w: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
  %g = ad.grad @loss_remat_loop(%x, %w, %b) {argnums = array<i64: 0>}
      : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %g : tensor<2x3xf64>
}
