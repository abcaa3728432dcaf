// softmax, log_softmax and mean over rank-3 inputs with large-magnitude
// values (rows near +1000, near -1000, spanning ±1000), where exp without
// the max subtraction overflows. NumPy reference in float64 (also
// max-subtracted); 1e-5 relative in f32, 1e-12 in f64 (trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/softmax_stability.py %s %t.f32 | FileCheck %s
// RUN: %python %S/softmax_stability.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS normalize.softmax:
// CHECK: PASS normalize.softmax_rows_sum_to_1:
// CHECK: PASS normalize.log_softmax:
// CHECK: PASS normalize.mean:
// CHECK: PASS normalize.mean_of_softmax:
// CHECK: ALL CHECKS PASSED

func.func @normalize(%x: tensor<4x6x32xf32>)
    -> (tensor<4x6x32xf32>, tensor<4x6x32xf32>, tensor<f32>, tensor<f32>) {
  %p = nn.softmax %x : tensor<4x6x32xf32>
  %lp = nn.log_softmax %x : tensor<4x6x32xf32>
  %m = nn.mean %x : (tensor<4x6x32xf32>) -> tensor<f32>
  %mp = nn.mean %p : (tensor<4x6x32xf32>) -> tensor<f32>
  return %p, %lp, %m, %mp : tensor<4x6x32xf32>, tensor<4x6x32xf32>, tensor<f32>, tensor<f32>
}
