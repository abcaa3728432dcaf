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
