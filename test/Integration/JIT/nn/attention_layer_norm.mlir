// layer_norm + q/k/v projections + 4-head causal self-attention, and
// cross-attention without a mask where Lq != Lk, against NumPy (float64)
// within 1e-5 relative in f32 (see trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/attention_layer_norm.py %s %t | FileCheck %s

// CHECK: PASS self_attention.normed:
// CHECK: PASS self_attention.out:
// CHECK: PASS self_attention.causality:
// CHECK: PASS cross_attention.out:
// CHECK: PASS cross_attention_1head.out:
// CHECK: ALL CHECKS PASSED

// B=2, L=16, D=32, 4 heads of 8; default layer_norm epsilon (1e-6).
func.func @self_attention(%x: tensor<2x16x32xf32>,
                          %scale: tensor<32xf32>, %bias: tensor<32xf32>,
                          %wq: tensor<32x32xf32>, %bq: tensor<32xf32>,
                          %wk: tensor<32x32xf32>, %bk: tensor<32xf32>,
                          %wv: tensor<32x32xf32>, %bv: tensor<32xf32>)
    -> (tensor<2x16x32xf32>, tensor<2x16x32xf32>) {
  %h = nn.layer_norm %x, %scale, %bias
      : (tensor<2x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %q = nn.dense %h, %wq, %bq
      : (tensor<2x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %k = nn.dense %h, %wk, %bk
      : (tensor<2x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %v = nn.dense %h, %wv, %bv
      : (tensor<2x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32>
  %o = nn.attention %q, %k, %v {num_heads = 4 : i64, causal = true}
      : (tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>)
      -> tensor<2x16x32xf32>
  return %h, %o : tensor<2x16x32xf32>, tensor<2x16x32xf32>
}

// Lq = 8 queries over Lk = 12 keys, 4 heads, no mask.
func.func @cross_attention(%q: tensor<2x8x32xf32>, %k: tensor<2x12x32xf32>,
                           %v: tensor<2x12x32xf32>) -> tensor<2x8x32xf32> {
  %o = nn.attention %q, %k, %v {num_heads = 4 : i64}
      : (tensor<2x8x32xf32>, tensor<2x12x32xf32>, tensor<2x12x32xf32>)
      -> tensor<2x8x32xf32>
  return %o : tensor<2x8x32xf32>
}

// The same with a single head (Dh = D): the head split must not matter.
func.func @cross_attention_1head(%q: tensor<2x8x32xf32>, %k: tensor<2x12x32xf32>,
                                 %v: tensor<2x12x32xf32>) -> tensor<2x8x32xf32> {
  %o = nn.attention %q, %k, %v {num_heads = 1 : i64, causal = false}
      : (tensor<2x8x32xf32>, tensor<2x12x32xf32>, tensor<2x12x32xf32>)
      -> tensor<2x8x32xf32>
  return %o : tensor<2x8x32xf32>
}
