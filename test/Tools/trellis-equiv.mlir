// trellis-equiv reports each result's worst element and fails on a real
// difference.
// REQUIRES: numpy
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3))"
// RUN: trellis-equiv %s --entry=ref --test-entry=same --input=%t.x.npy --labels=y,z | FileCheck %s --check-prefix=CHECK-SAME
// RUN: not trellis-equiv %s --entry=ref --test-entry=shifted --input=%t.x.npy --rtol=1e-3 --atol=1e-3 | FileCheck %s --check-prefix=CHECK-DIFF
// RUN: trellis-equiv %s --entry=ref --test-entry=shifted --input=%t.x.npy --atol=0.02 | FileCheck %s --check-prefix=CHECK-LOOSE
// RUN: not trellis-equiv %s --entry=ref --test-entry=fewer --input=%t.x.npy 2>&1 | FileCheck %s --check-prefix=CHECK-COUNT

// CHECK-SAME: ok   result 0 (y): max abs error 0.000e+00
// CHECK-SAME: ok   result 1 (z):
// CHECK-SAME: equivalent (rtol 0.001, atol 0.001)
// CHECK-DIFF: ok   result 0:
// CHECK-DIFF: FAIL result 1: max abs error 1.000e-02, {{.*}} worst at [0, 0] ref 0.0183156393 test 0.0283156391
// CHECK-DIFF: NOT equivalent
// CHECK-LOOSE: equivalent (rtol 0.001, atol 0.02)
// CHECK-COUNT: trellis-equiv: error: the reference returns 2 result(s), the test 1
//
// NaN where the reference has NaN (log of the negative inputs) is equal, as
// in numpy.testing.assert_allclose; NaN against a number fails with a NaN
// error, not an infinite one.
// RUN: trellis-equiv %s --entry=logs --test-entry=logs_too --input=%t.x.npy | FileCheck %s --check-prefix=CHECK-NAN-SAME
// CHECK-NAN-SAME: ok   result 0: max abs error 0.000e+00
// CHECK-NAN-SAME: equivalent
// RUN: not trellis-equiv %s --entry=logs --test-entry=abs_logs --input=%t.x.npy | FileCheck %s --check-prefix=CHECK-NAN-DIFF
// CHECK-NAN-DIFF: FAIL result 0: max abs error nan, norm-relative inf, worst at [0, 0] ref {{-?}}nan test 0.693147182
// CHECK-NAN-DIFF: NOT equivalent
//
// Tolerances must be finite and not negative.
// RUN: not trellis-equiv %s --entry=ref --test-entry=same --input=%t.x.npy --rtol=nan 2>&1 | FileCheck %s --check-prefix=CHECK-RTOL
// CHECK-RTOL: trellis-equiv: error: --rtol must be a finite number >= 0, got nan
// RUN: not trellis-equiv %s --entry=ref --test-entry=same --input=%t.x.npy --atol=-1e-3 2>&1 | FileCheck %s --check-prefix=CHECK-ATOL
// CHECK-ATOL: trellis-equiv: error: --atol must be a finite number >= 0, got -0.001
// RUN: not trellis-equiv %s --entry=ref --test-entry=same --input=%t.x.npy --norm-rtol=-0.5 2>&1 | FileCheck %s --check-prefix=CHECK-NORM
// CHECK-NORM: trellis-equiv: error: --norm-rtol must be a finite number >= 0, got -0.5
// RUN: not trellis-equiv %s --entry=ref --test-entry=same --input=%t.x.npy --atol=inf 2>&1 | FileCheck %s --check-prefix=CHECK-INF
// CHECK-INF: trellis-equiv: error: --atol must be a finite number >= 0, got inf

func.func @ref(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.tanh %x : tensor<2x3xf32>
  %z = math.exp %x : tensor<2x3xf32>
  %zz = arith.mulf %z, %z : tensor<2x3xf32>
  return %y, %zz : tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @same(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.tanh %x : tensor<2x3xf32>
  %two = arith.constant dense<2.0> : tensor<2x3xf32>
  %x2 = arith.mulf %x, %two : tensor<2x3xf32>
  %zz = math.exp %x2 : tensor<2x3xf32>
  return %y, %zz : tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @shifted(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.tanh %x : tensor<2x3xf32>
  %z = math.exp %x : tensor<2x3xf32>
  %zz = arith.mulf %z, %z : tensor<2x3xf32>
  %c = arith.constant dense<0.01> : tensor<2x3xf32>
  %s = arith.addf %zz, %c : tensor<2x3xf32>
  return %y, %s : tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @fewer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = nn.tanh %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @logs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = math.log %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @logs_too(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = math.log %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @abs_logs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = math.absf %x : tensor<2x3xf32>
  %y = math.log %a : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
