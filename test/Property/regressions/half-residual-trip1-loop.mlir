// Was a bug (test/Property/random-programs.test, seed 10747 of an earlier
// generator, minimized by hand): a one-trip loop whose body holds a
// half-residual on the carried value, with a residual reading the loop's
// initial value. Canonicalization folds the one-trip loop, the carried value
// becomes the initial value, the residual then read the accumulator and the
// half-residual's SSA-level verifier check rejected the result. The check is
// gone (NNOps.td). Checked: the canonicalized form verifies, and gradients of
// both forms against finite differences.
// REQUIRES: numpy
// RUN: trellis-opt %s --canonicalize --verify-each -o %t.canon.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.canon.mlir
// RUN: %python %S/check_losses.py %s %t | FileCheck %s
// RUN: %python %S/check_losses.py %t.canon.mlir %t.canon | FileCheck %s
// IR-LABEL: func.func @loss_loop1
// IR-NOT: scf.for
// IR: nn.reversible_half_residual %[[X:[^ ]*]]
// IR: nn.tanh %[[X]]
// CHECK: PASS loss_loop1.arg0:
// CHECK: PASS loss_loop1.arg1:
// CHECK: ALL CHECKS PASSED


func.func @loss_loop1(%x: tensor<2x2xf64>, %c: tensor<2x2xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> (tensor<2x2xf64>) {
    %h = nn.reversible_half_residual %a : tensor<2x2xf64> {
      %t = nn.tanh %x : tensor<2x2xf64>
      nn.yield %t : tensor<2x2xf64>
    }
    scf.yield %h : tensor<2x2xf64>
  }
  %p = arith.mulf %r, %c : tensor<2x2xf64>
  %l = nn.mean %p : (tensor<2x2xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
