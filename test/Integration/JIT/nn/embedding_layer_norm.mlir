// nn.embedding with out-of-range ids (clamped to [0, V)) feeding
// nn.layer_norm with the default epsilon (1e-6) and an explicit one. The
// gather must be bit-exact; layer_norm within 1e-5 relative in f32, 1e-12
// in f64 (see trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/embedding_layer_norm.py %s %t.f32 | FileCheck %s
// RUN: %python %S/embedding_layer_norm.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS embed_norm.rows:
// CHECK: PASS embed_norm.normed:
// CHECK: PASS embed_norm.normed_eps:
// CHECK: PASS embed_norm.epsilon_matters:
// CHECK: PASS embed_rank1.rows:
// CHECK: ALL CHECKS PASSED

// V = 10 rows of D = 16; ids 4x6 (rank 2).
func.func @embed_norm(%ids: tensor<4x6xi32>, %table: tensor<10x16xf32>,
                      %scale: tensor<16xf32>, %bias: tensor<16xf32>)
    -> (tensor<4x6x16xf32>, tensor<4x6x16xf32>, tensor<4x6x16xf32>) {
  %e = nn.embedding %ids, %table
      : (tensor<4x6xi32>, tensor<10x16xf32>) -> tensor<4x6x16xf32>
  %n = nn.layer_norm %e, %scale, %bias
      : (tensor<4x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x6x16xf32>
  %n2 = nn.layer_norm %e, %scale, %bias {epsilon = 1.0e-03 : f32}
      : (tensor<4x6x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x6x16xf32>
  return %e, %n, %n2 : tensor<4x6x16xf32>, tensor<4x6x16xf32>, tensor<4x6x16xf32>
}

// Rank-1 ids.
func.func @embed_rank1(%ids: tensor<7xi32>, %table: tensor<10x16xf32>)
    -> tensor<7x16xf32> {
  %e = nn.embedding %ids, %table
      : (tensor<7xi32>, tensor<10x16xf32>) -> tensor<7x16xf32>
  return %e : tensor<7x16xf32>
}
