// The elementwise activations over a wide range of inputs (±50, tiny values,
// exact zeros): relu bit-exact, tanh, exact (erf) gelu and tanh-form gelu
// against NumPy (float64), 1e-5 relative in f32 and 1e-12 with f64 tensors
// (trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/activations.py %s %t.f32 | FileCheck %s
// RUN: %python %S/activations.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS activations.relu:
// CHECK: PASS activations.tanh:
// CHECK: PASS activations.gelu:
// CHECK: PASS activations.gelu_tanh:
// CHECK: PASS activations.gelu_forms_differ:
// CHECK: ALL CHECKS PASSED

func.func @activations(%x: tensor<8x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %r = nn.relu %x : tensor<8x64xf32>
  %t = nn.tanh %x : tensor<8x64xf32>
  %g = nn.gelu %x {approximate = false} : tensor<8x64xf32>
  %ga = nn.gelu %x {approximate = true} : tensor<8x64xf32>
  return %r, %t, %g, %ga
      : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}
