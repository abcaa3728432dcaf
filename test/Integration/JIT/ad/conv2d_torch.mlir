// nn.conv2d and nn.flatten, forward and gradients (x, w, b), against
// PyTorch in f64 (F.pad for the asymmetric zero padding, then F.conv2d on
// NCHW), in odd sizes with strides, padding and dilation: 1e-5 relative in
// f32 and 1e-12 in f64 (trellis_testing/run.py). The loss mean(flatten(y) ⊙ c)
// with a random c makes the cotangent non-uniform. In this directory for
// the `torch` feature of its lit.local.cfg. Also the gradients of two
// stride-1 convolutions: dilation 2 with asymmetric padding (grad_s1), and a
// padded 1x1 kernel (grad_pad1x1), whose padding rows see no tap.
// REQUIRES: numpy, torch
// RUN: %python %S/conv2d_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/conv2d_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS conv2d.forward:
// CHECK: PASS conv2d.dx:
// CHECK: PASS conv2d.dw:
// CHECK: PASS conv2d.db:
// CHECK: PASS conv2d_s1.dx:
// CHECK: PASS conv2d_s1.dw:
// CHECK: PASS conv2d_pad1x1.dx:
// CHECK: PASS conv2d_pad1x1.dw:
// CHECK: ALL CHECKS PASSED

func.func @forward(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x5x4xf32> {
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x5x4xf32>
  return %y : tensor<2x3x5x4xf32>
}

func.func private @loss(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x60xf32>) -> tensor<f32> {
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x5x4xf32>
  %f = nn.flatten %y : (tensor<2x3x5x4xf32>) -> tensor<2x60xf32>
  %p = arith.mulf %f, %c : tensor<2x60xf32>
  %l = nn.mean %p : (tensor<2x60xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x60xf32>)
    -> (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>) {
  %gx, %gw, %gb = ad.grad @loss(%x, %w, %b, %c) {argnums = array<i64: 0, 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>, tensor<2x60xf32>)
      -> (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>)
  return %gx, %gw, %gb : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>
}

func.func private @loss_s1(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x160xf32>) -> tensor<f32> {
  %y = nn.conv2d %x, %w, %b {padding = array<i64: 2, 1, 0, 1>, dilations = array<i64: 1, 2>}
      : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>) -> tensor<2x8x5x4xf32>
  %f = nn.flatten %y : (tensor<2x8x5x4xf32>) -> tensor<2x160xf32>
  %p = arith.mulf %f, %c : tensor<2x160xf32>
  %l = nn.mean %p : (tensor<2x160xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad_s1(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x160xf32>)
    -> (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>) {
  %gx, %gw = ad.grad @loss_s1(%x, %w, %b, %c) {argnums = array<i64: 0, 1>}
      : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>, tensor<4xf32>, tensor<2x160xf32>)
      -> (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>)
  return %gx, %gw : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>
}

func.func private @loss_pad1x1(%x: tensor<2x7x6x3xf32>, %w: tensor<1x1x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x192xf32>) -> tensor<f32> {
  %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 0, 0, 0>}
      : (tensor<2x7x6x3xf32>, tensor<1x1x3x4xf32>, tensor<4xf32>) -> tensor<2x8x6x4xf32>
  %f = nn.flatten %y : (tensor<2x8x6x4xf32>) -> tensor<2x192xf32>
  %p = arith.mulf %f, %c : tensor<2x192xf32>
  %l = nn.mean %p : (tensor<2x192xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad_pad1x1(%x: tensor<2x7x6x3xf32>, %w: tensor<1x1x3x4xf32>, %b: tensor<4xf32>, %c: tensor<2x192xf32>)
    -> (tensor<2x7x6x3xf32>, tensor<1x1x3x4xf32>) {
  %gx, %gw = ad.grad @loss_pad1x1(%x, %w, %b, %c) {argnums = array<i64: 0, 1>}
      : (tensor<2x7x6x3xf32>, tensor<1x1x3x4xf32>, tensor<4xf32>, tensor<2x192xf32>)
      -> (tensor<2x7x6x3xf32>, tensor<1x1x3x4xf32>)
  return %gx, %gw : tensor<2x7x6x3xf32>, tensor<1x1x3x4xf32>
}
