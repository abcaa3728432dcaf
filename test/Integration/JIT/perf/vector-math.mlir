// Loops of exp, log, tanh, erf and erfc are vectorized into calls of glibc's
// libmvec (lib/Runtime/Optimizer.cpp, docs/performance.md), in f32 and f64,
// and the results stay within 4 units in the last place of a more precise
// reference (glibc's documented bound; measured up to 2.8), with special
// values (±0, ±inf, NaN, overflow, underflow, log of 0 and of negatives)
// exact. Softmax and both GELU forms against NumPy in f64. Tolerances:
// vector_math.py.
// REQUIRES: numpy
// RUN: %python %S/vector_math.py %s %t | FileCheck %s --check-prefixes=CHECK,CHECK-%vecabi

// The vector variants are called (SSE: 4 floats, AVX2: 8, AVX-512: 16; the
// width is the host's: %vecabi, test/lit.cfg.py).
// CHECK-AVX2-DAG: CALLS math_f32: _ZGV{{[bd]}}N{{[48]}}v_expf
// CHECK-AVX512-DAG: CALLS math_f32: _ZGVeN16v_expf
// CHECK-AVX2-DAG: CALLS math_f32: _ZGV{{[bd]}}N{{[48]}}v_logf
// CHECK-AVX512-DAG: CALLS math_f32: _ZGVeN16v_logf
// CHECK-AVX2-DAG: CALLS math_f32: _ZGV{{[bd]}}N{{[48]}}v_tanhf
// CHECK-AVX512-DAG: CALLS math_f32: _ZGVeN16v_tanhf
// CHECK-AVX2-DAG: CALLS math_f32: _ZGV{{[bd]}}N{{[48]}}v_erff
// CHECK-AVX512-DAG: CALLS math_f32: _ZGVeN16v_erff
// CHECK: PASS math_f32.exp:
// CHECK: PASS math_f32.log:
// CHECK: PASS math_f32.tanh:
// CHECK: PASS math_f32.erf:
// CHECK-AVX2-DAG: CALLS math_f64: _ZGV{{[bd]}}N{{[24]}}v_exp
// CHECK-AVX512-DAG: CALLS math_f64: _ZGVeN8v_exp
// CHECK-AVX2-DAG: CALLS math_f64: _ZGV{{[bd]}}N{{[24]}}v_log
// CHECK-AVX512-DAG: CALLS math_f64: _ZGVeN8v_log
// CHECK-AVX2-DAG: CALLS math_f64: _ZGV{{[bd]}}N{{[24]}}v_tanh
// CHECK-AVX512-DAG: CALLS math_f64: _ZGVeN8v_tanh
// CHECK-AVX2-DAG: CALLS math_f64: _ZGV{{[bd]}}N{{[24]}}v_erf
// CHECK-AVX512-DAG: CALLS math_f64: _ZGVeN8v_erf
// CHECK: PASS math_f64.exp:
// CHECK: PASS math_f64.log:
// CHECK: PASS math_f64.tanh:
// CHECK: PASS math_f64.erf:
// CHECK-AVX2-DAG: CALLS softmax_gelu: _ZGV{{[bd]}}N{{[48]}}v_expf
// CHECK-AVX512-DAG: CALLS softmax_gelu: _ZGVeN16v_expf
// CHECK-AVX2-DAG: CALLS softmax_gelu: _ZGV{{[bd]}}N{{[48]}}v_tanhf
// CHECK-AVX512-DAG: CALLS softmax_gelu: _ZGVeN16v_tanhf
// CHECK-AVX2-DAG: CALLS softmax_gelu: _ZGV{{[bd]}}N{{[48]}}v_erfcf
// CHECK-AVX512-DAG: CALLS softmax_gelu: _ZGVeN16v_erfcf
// CHECK: PASS softmax_gelu.softmax:
// CHECK: PASS softmax_gelu.gelu_tanh:
// CHECK: PASS softmax_gelu.gelu_erf:
// CHECK: ALL CHECKS PASSED

func.func @math_f32(%x: tensor<1024xf32>, %p: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %e = math.exp %x : tensor<1024xf32>
  %l = math.log %p : tensor<1024xf32>
  %t = math.tanh %x : tensor<1024xf32>
  %r = math.erf %x : tensor<1024xf32>
  return %e, %l, %t, %r
      : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

func.func @math_f64(%x: tensor<1024xf64>, %p: tensor<1024xf64>)
    -> (tensor<1024xf64>, tensor<1024xf64>, tensor<1024xf64>, tensor<1024xf64>) {
  %e = math.exp %x : tensor<1024xf64>
  %l = math.log %p : tensor<1024xf64>
  %t = math.tanh %x : tensor<1024xf64>
  %r = math.erf %x : tensor<1024xf64>
  return %e, %l, %t, %r
      : tensor<1024xf64>, tensor<1024xf64>, tensor<1024xf64>, tensor<1024xf64>
}

// The layers whose loops call them.
func.func @softmax_gelu(%x: tensor<64x256xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %s = nn.softmax %x : tensor<64x256xf32>
  %g = nn.gelu %x {approximate = true} : tensor<64x256xf32>
  %h = nn.gelu %x : tensor<64x256xf32>
  return %s, %g, %h : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}
