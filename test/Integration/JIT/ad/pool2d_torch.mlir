// nn.max_pool2d and nn.avg_pool2d, forward and gradients, against PyTorch in
// f64 (F.pad for the asymmetric padding: −∞ for max, zeros for avg, which
// counts the padding as PyTorch's count_include_pad does), with windows that
// overlap (strides below the window) and that skip (strides above it), and
// windows that tile the input (strides = window, no padding: the reverse
// rules' one-map path, buildTiledWindowAdjoint), ties included: 1e-5
// relative in f32 and 1e-12 in f64 (trellis_testing/run.py). The losses
// mean(flatten(y) ⊙ c) with a random c make the cotangent non-uniform.
// REQUIRES: numpy, torch
// RUN: %python %S/pool2d_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/pool2d_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS max_pool2d.forward:
// CHECK: PASS max_pool2d.dx:
// CHECK: PASS avg_pool2d.forward:
// CHECK: PASS avg_pool2d.dx:
// CHECK: PASS max_pool2d.default_strides:
// CHECK: PASS max_pool2d.nan_positions:
// CHECK: PASS max_pool2d.nan:
// CHECK: PASS max_pool2d.tiled_dx:
// CHECK: PASS max_pool2d.tiled_ties_dx:
// CHECK: PASS avg_pool2d.tiled_dx:
// CHECK: ALL CHECKS PASSED

func.func @max_forward(%x: tensor<2x7x6x3xf32>) -> tensor<2x3x6x3xf32> {
  %y = nn.max_pool2d %x {window = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 1>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x3x6x3xf32>
  return %y : tensor<2x3x6x3xf32>
}

func.func private @max_loss(%x: tensor<2x7x6x3xf32>, %c: tensor<2x54xf32>) -> tensor<f32> {
  %y = nn.max_pool2d %x {window = array<i64: 3, 2>, strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 1>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x3x6x3xf32>
  %f = nn.flatten %y : (tensor<2x3x6x3xf32>) -> tensor<2x54xf32>
  %p = arith.mulf %f, %c : tensor<2x54xf32>
  %l = nn.mean %p : (tensor<2x54xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @max_grad(%x: tensor<2x7x6x3xf32>, %c: tensor<2x54xf32>) -> tensor<2x7x6x3xf32> {
  %g = ad.grad @max_loss(%x, %c) {argnums = array<i64: 0>}
      : (tensor<2x7x6x3xf32>, tensor<2x54xf32>) -> tensor<2x7x6x3xf32>
  return %g : tensor<2x7x6x3xf32>
}

func.func @avg_forward(%x: tensor<2x7x6x3xf32>) -> tensor<2x7x2x3xf32> {
  %y = nn.avg_pool2d %x {window = array<i64: 2, 3>, strides = array<i64: 1, 3>, padding = array<i64: 0, 1, 1, 0>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x7x2x3xf32>
  return %y : tensor<2x7x2x3xf32>
}

func.func private @avg_loss(%x: tensor<2x7x6x3xf32>, %c: tensor<2x42xf32>) -> tensor<f32> {
  %y = nn.avg_pool2d %x {window = array<i64: 2, 3>, strides = array<i64: 1, 3>, padding = array<i64: 0, 1, 1, 0>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x7x2x3xf32>
  %f = nn.flatten %y : (tensor<2x7x2x3xf32>) -> tensor<2x42xf32>
  %p = arith.mulf %f, %c : tensor<2x42xf32>
  %l = nn.mean %p : (tensor<2x42xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @avg_grad(%x: tensor<2x7x6x3xf32>, %c: tensor<2x42xf32>) -> tensor<2x7x6x3xf32> {
  %g = ad.grad @avg_loss(%x, %c) {argnums = array<i64: 0>}
      : (tensor<2x7x6x3xf32>, tensor<2x42xf32>) -> tensor<2x7x6x3xf32>
  return %g : tensor<2x7x6x3xf32>
}

// Strides default to the window: 2x2 pooling of an odd size drops the last
// row and column.
func.func @max_default(%x: tensor<2x7x6x3xf32>) -> tensor<2x3x3x3xf32> {
  %y = nn.max_pool2d %x {window = array<i64: 2, 2>}
      : (tensor<2x7x6x3xf32>) -> tensor<2x3x3x3xf32>
  return %y : tensor<2x3x3x3xf32>
}

// Windows that tile the input: 6x6 in 2x3 windows.
func.func private @max_tiled_loss(%x: tensor<2x6x6x3xf32>, %c: tensor<2x18xf32>) -> tensor<f32> {
  %y = nn.max_pool2d %x {window = array<i64: 2, 3>} : (tensor<2x6x6x3xf32>) -> tensor<2x3x2x3xf32>
  %f = nn.flatten %y : (tensor<2x3x2x3xf32>) -> tensor<2x18xf32>
  %p = arith.mulf %f, %c : tensor<2x18xf32>
  %l = nn.mean %p : (tensor<2x18xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @max_tiled_grad(%x: tensor<2x6x6x3xf32>, %c: tensor<2x18xf32>) -> tensor<2x6x6x3xf32> {
  %g = ad.grad @max_tiled_loss(%x, %c) {argnums = array<i64: 0>}
      : (tensor<2x6x6x3xf32>, tensor<2x18xf32>) -> tensor<2x6x6x3xf32>
  return %g : tensor<2x6x6x3xf32>
}

func.func private @avg_tiled_loss(%x: tensor<2x6x6x3xf32>, %c: tensor<2x18xf32>) -> tensor<f32> {
  %y = nn.avg_pool2d %x {window = array<i64: 2, 3>} : (tensor<2x6x6x3xf32>) -> tensor<2x3x2x3xf32>
  %f = nn.flatten %y : (tensor<2x3x2x3xf32>) -> tensor<2x18xf32>
  %p = arith.mulf %f, %c : tensor<2x18xf32>
  %l = nn.mean %p : (tensor<2x18xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @avg_tiled_grad(%x: tensor<2x6x6x3xf32>, %c: tensor<2x18xf32>) -> tensor<2x6x6x3xf32> {
  %g = ad.grad @avg_tiled_loss(%x, %c) {argnums = array<i64: 0>}
      : (tensor<2x6x6x3xf32>, tensor<2x18xf32>) -> tensor<2x6x6x3xf32>
  return %g : tensor<2x6x6x3xf32>
}
