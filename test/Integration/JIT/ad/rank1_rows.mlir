// Gradient checks (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of the last-dimension ops on rank-1 inputs
// (a single row): nn.softmax, nn.log_softmax, nn.layer_norm, and
// nn.embedding with a 0-d id.
//
// Regression test: row ops on rank-1 tensors once crashed (null map for the
// row of a rank-1 loop nest).
// REQUIRES: numpy
// RUN: %python %S/rank1_rows.py %s %t | FileCheck %s

// CHECK: PASS softmax_rank1.x:
// CHECK: PASS log_softmax_rank1.x:
// CHECK: PASS layer_norm_rank1.x:
// CHECK: PASS layer_norm_rank1.scale:
// CHECK: PASS layer_norm_rank1.bias:
// CHECK: PASS embedding_0d_id.table:
// CHECK: ALL CHECKS PASSED

func.func @loss_softmax_rank1(%x: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<f64> {
  %y = nn.softmax %x : tensor<5xf64>
  %p = arith.mulf %y, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log_softmax_rank1(%x: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<f64> {
  %y = nn.log_softmax %x : tensor<5xf64>
  %p = arith.mulf %y, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_layer_norm_rank1(%x: tensor<5xf64>, %s: tensor<5xf64>, %b: tensor<5xf64>,
                                 %c: tensor<5xf64>) -> tensor<f64> {
  %y = nn.layer_norm %x, %s, %b : (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
  %p = arith.mulf %y, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_embedding_0d_id(%id: tensor<i32>, %t: tensor<4x3xf64>, %c: tensor<3xf64>) -> tensor<f64> {
  %e = nn.embedding %id, %t : (tensor<i32>, tensor<4x3xf64>) -> tensor<3xf64>
  %p = arith.mulf %e, %c : tensor<3xf64>
  %l = nn.mean %p : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
