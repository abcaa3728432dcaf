// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of nn.embedding (the table; ids
// with repeats, so the scatter-add accumulates, and ids outside [0, V),
// which read the clamped row) and nn.attention (q, k, v): two heads
// non-causal and causal, Lq != Lk, one head, and self-attention where q, k
// and v are the same SSA value (cotangents of three uses accumulate).
// REQUIRES: numpy
// RUN: %python %S/embedding_attention.py %s %t | FileCheck %s

// CHECK: PASS embedding.table:
// CHECK: PASS embedding_clamped.table:
// CHECK: PASS attention.q:
// CHECK: PASS attention.k:
// CHECK: PASS attention.v:
// CHECK: PASS attention_causal.q:
// CHECK: PASS attention_causal.k:
// CHECK: PASS attention_causal.v:
// CHECK: PASS attention_cross.q:
// CHECK: PASS attention_cross.k:
// CHECK: PASS attention_cross.v:
// CHECK: PASS attention_one_head.q:
// CHECK: PASS attention_one_head.k:
// CHECK: PASS attention_one_head.v:
// CHECK: PASS self_attention.x:
// CHECK: PASS self_attention_causal.x:
// CHECK: ALL CHECKS PASSED

func.func @loss_embedding(%ids: tensor<2x5xi32>, %table: tensor<4x3xf64>,
                          %c: tensor<2x5x3xf64>) -> tensor<f64> {
  %e = nn.embedding %ids, %table : (tensor<2x5xi32>, tensor<4x3xf64>) -> tensor<2x5x3xf64>
  %p = arith.mulf %e, %c : tensor<2x5x3xf64>
  %l = nn.mean %p : (tensor<2x5x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_attention(%q: tensor<2x3x4xf64>, %k: tensor<2x3x4xf64>,
                          %v: tensor<2x3x4xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %o = nn.attention %q, %k, %v {num_heads = 2 : i64, causal = false}
      : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %p = arith.mulf %o, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_attention_causal(%q: tensor<2x3x4xf64>, %k: tensor<2x3x4xf64>,
                                 %v: tensor<2x3x4xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %o = nn.attention %q, %k, %v {num_heads = 2 : i64, causal = true}
      : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %p = arith.mulf %o, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_attention_cross(%q: tensor<2x2x4xf64>, %k: tensor<2x3x4xf64>,
                                %v: tensor<2x3x4xf64>, %c: tensor<2x2x4xf64>) -> tensor<f64> {
  %o = nn.attention %q, %k, %v {num_heads = 2 : i64}
      : (tensor<2x2x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x2x4xf64>
  %p = arith.mulf %o, %c : tensor<2x2x4xf64>
  %l = nn.mean %p : (tensor<2x2x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_attention_one_head(%q: tensor<1x4x3xf64>, %k: tensor<1x4x3xf64>,
                                   %v: tensor<1x4x3xf64>, %c: tensor<1x4x3xf64>) -> tensor<f64> {
  %o = nn.attention %q, %k, %v {num_heads = 1 : i64, causal = true}
      : (tensor<1x4x3xf64>, tensor<1x4x3xf64>, tensor<1x4x3xf64>) -> tensor<1x4x3xf64>
  %p = arith.mulf %o, %c : tensor<1x4x3xf64>
  %l = nn.mean %p : (tensor<1x4x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_self_attention(%x: tensor<2x3x4xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %o = nn.attention %x, %x, %x {num_heads = 2 : i64, causal = false}
      : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %p = arith.mulf %o, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_self_attention_causal(%x: tensor<2x3x4xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %o = nn.attention %x, %x, %x {num_heads = 2 : i64, causal = true}
      : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  %p = arith.mulf %o, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
