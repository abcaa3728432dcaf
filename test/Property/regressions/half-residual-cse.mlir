// Was a bug (test/Property/random-programs.test, seed 10003 of an earlier
// generator, minimized by hand): the residual recomputes the accumulator's
// expression (shared weights). Plain CSE merges the two dense ops, after
// which the residual reads the accumulator, and the half-residual's SSA-level
// verifier check rejected the IR CSE produced (ad-differentiate runs CSE on
// what it generates, so the program failed there too). The check is gone
// (NNOps.td: only reversible_serial inverts, and it rejects captures of its
// chain values). Checked: CSE's output verifies, and the gradients of the
// program and of its CSE'd form against finite differences.
// REQUIRES: numpy
// RUN: trellis-opt %s --cse --verify-each -o %t.cse.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.cse.mlir
// RUN: %python %S/check_losses.py %s %t | FileCheck %s
// RUN: %python %S/check_losses.py %t.cse.mlir %t.cse | FileCheck %s
// IR-LABEL: func.func @loss_cse
// IR: %[[D:.*]] = nn.dense
// IR-NOT: nn.dense
// IR: nn.reversible_half_residual %[[D]]
// IR: nn.tanh %[[D]]
// CHECK: PASS loss_cse.arg0:
// CHECK: PASS loss_cse.arg1:
// CHECK: PASS loss_cse.arg2:
// CHECK: PASS loss_cse.arg3:
// CHECK: ALL CHECKS PASSED


func.func @loss_cse(%x: tensor<2x6xf64>, %w: tensor<6x2xf64>, %b: tensor<2xf64>, %c: tensor<2x2xf64>) -> tensor<f64> {
  %d = nn.dense %x, %w, %b : (tensor<2x6xf64>, tensor<6x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  %h = nn.reversible_half_residual %d : tensor<2x2xf64> {
    %e = nn.dense %x, %w, %b : (tensor<2x6xf64>, tensor<6x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
    %t = nn.tanh %e : tensor<2x2xf64>
    nn.yield %t : tensor<2x2xf64>
  }
  %p = arith.mulf %h, %c : tensor<2x2xf64>
  %l = nn.mean %p : (tensor<2x2xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
