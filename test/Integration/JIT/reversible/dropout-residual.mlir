// Dropout inside a reversible residual: the backward pass recomputes F with
// the same key, so the recomputed mask equals the forward one and the
// gradients match the stored-activation computation (trellis-equiv,
// norm-relative 1e-6). Two residuals use different keys.
// REQUIRES: numpy
// RUN: %python -m trellis_testing.npy_random %t 8x32:f32 8x32:f32 32x32:f32 32:f32 2:i32 2:i32 8x32:f32 8x32:f32
// RUN: trellis-equiv %s --entry=stored_vjp --test-entry=reversible_vjp --norm-rtol=1e-6 --input=%t.0.npy --input=%t.1.npy --input=%t.2.npy --input=%t.3.npy --input=%t.4.npy --input=%t.5.npy --input=%t.6.npy --input=%t.7.npy | FileCheck %s
// CHECK-COUNT-8: ok
// CHECK: equivalent

func.func @stored(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                  %k1: tensor<2xi32>, %k2: tensor<2xi32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %d = nn.dense %x2, %w, %b : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %t = nn.tanh %d : tensor<8x32xf32>
  %f = nn.dropout %t, %k1 {rate = 0.3 : f32} : (tensor<8x32xf32>, tensor<2xi32>) -> tensor<8x32xf32>
  %y1 = arith.addf %x1, %f : tensor<8x32xf32>
  %g0 = nn.gelu %y1 : tensor<8x32xf32>
  %g = nn.dropout %g0, %k2 {rate = 0.5 : f32} : (tensor<8x32xf32>, tensor<2xi32>) -> tensor<8x32xf32>
  %y2 = arith.addf %x2, %g : tensor<8x32xf32>
  return %y1, %y2 : tensor<8x32xf32>, tensor<8x32xf32>
}

func.func @reversible(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                      %k1: tensor<2xi32>, %k2: tensor<2xi32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %y:2 = nn.reversible_serial %x1, %x2 : tensor<8x32xf32>, tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>, %c: tensor<8x32xf32>):
    %p:2 = nn.reversible_half_residual %a, %c : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%u: tensor<8x32xf32>):
      %d = nn.dense %u, %w, %b : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %t = nn.tanh %d : tensor<8x32xf32>
      %f = nn.dropout %t, %k1 {rate = 0.3 : f32} : (tensor<8x32xf32>, tensor<2xi32>) -> tensor<8x32xf32>
      nn.yield %f : tensor<8x32xf32>
    }
    %s:2 = nn.reversible_swap %p#0, %p#1 : tensor<8x32xf32>, tensor<8x32xf32>
    %q:2 = nn.reversible_half_residual %s#0, %s#1 : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%u: tensor<8x32xf32>):
      %g0 = nn.gelu %u : tensor<8x32xf32>
      %g = nn.dropout %g0, %k2 {rate = 0.5 : f32} : (tensor<8x32xf32>, tensor<2xi32>) -> tensor<8x32xf32>
      nn.yield %g : tensor<8x32xf32>
    }
    %r:2 = nn.reversible_swap %q#0, %q#1 : tensor<8x32xf32>, tensor<8x32xf32>
    nn.yield %r#0, %r#1 : tensor<8x32xf32>, tensor<8x32xf32>
  }
  return %y#0, %y#1 : tensor<8x32xf32>, tensor<8x32xf32>
}

func.func @stored_vjp(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                      %k1: tensor<2xi32>, %k2: tensor<2xi32>, %dy1: tensor<8x32xf32>, %dy2: tensor<8x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>) {
  %r:8 = ad.vjp @stored(%x1, %x2, %w, %b, %k1, %k2, %dy1, %dy2)
      : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>, tensor<8x32xf32>, tensor<8x32xf32>)
      -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>
}

func.func @reversible_vjp(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>, %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                          %k1: tensor<2xi32>, %k2: tensor<2xi32>, %dy1: tensor<8x32xf32>, %dy2: tensor<8x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>) {
  %r:8 = ad.vjp @reversible(%x1, %x2, %w, %b, %k1, %k2, %dy1, %dy2)
      : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>, tensor<8x32xf32>, tensor<8x32xf32>)
      -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<2xi32>, tensor<2xi32>
}
