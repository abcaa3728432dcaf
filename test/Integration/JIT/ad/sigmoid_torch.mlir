// nn.sigmoid, forward and gradient, against PyTorch in f64 (torch.sigmoid
// and its autograd): over [-50, 50] (both saturated tails, tiny values,
// exact zeros) in an odd 7x9 shape; the loss mean(sigmoid(x) ⊙ c) with a
// random c makes the cotangent non-uniform. 1e-5 relative in f32 and 1e-12
// with f64 tensors (trellis_testing/run.py); the forward elementwise
// relative (no floor: sigmoid(-50) ≈ 2e-22 must not round to 0). In this
// directory for the `torch` feature of its lit.local.cfg.
// REQUIRES: numpy, torch
// RUN: %python %S/sigmoid_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/sigmoid_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS sigmoid.forward:
// CHECK: PASS sigmoid.grad:
// CHECK: ALL CHECKS PASSED

func.func @forward(%x: tensor<7x9xf32>) -> tensor<7x9xf32> {
  %y = nn.sigmoid %x : tensor<7x9xf32>
  return %y : tensor<7x9xf32>
}

func.func private @loss(%x: tensor<7x9xf32>, %c: tensor<7x9xf32>) -> tensor<f32> {
  %y = nn.sigmoid %x : tensor<7x9xf32>
  %p = arith.mulf %y, %c : tensor<7x9xf32>
  %l = nn.mean %p : (tensor<7x9xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad(%x: tensor<7x9xf32>, %c: tensor<7x9xf32>) -> tensor<7x9xf32> {
  %g = ad.grad @loss(%x, %c) {argnums = array<i64: 0>}
      : (tensor<7x9xf32>, tensor<7x9xf32>) -> tensor<7x9xf32>
  return %g : tensor<7x9xf32>
}
