// Gradient checks (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of one checkpointed body under each policy
// of ad.checkpoint: recomputing everything, keeping the matrix products,
// keeping a named op. What each stores is checked by
// test/Dialect/AD/ad-differentiate-checkpoint-policy.mlir; here the
// gradients must not change.
// REQUIRES: numpy
// RUN: %python %S/checkpoint_policies.py %s %t | FileCheck %s

// CHECK: PASS policy_nothing.x:
// CHECK: PASS policy_nothing.w:
// CHECK: PASS policy_nothing.b:
// CHECK: PASS policy_dots.x:
// CHECK: PASS policy_dots.w:
// CHECK: PASS policy_dots.b:
// CHECK: PASS policy_named.x:
// CHECK: PASS policy_named.w:
// CHECK: PASS policy_named.b:
// CHECK: ALL CHECKS PASSED

func.func @f_nothing(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %y = ad.checkpoint %x, %w {policy = "nothing_saveable"} : tensor<4x3xf64>, tensor<3x3xf64> -> tensor<4x3xf64> {
  ^bb0(%a: tensor<4x3xf64>, %v: tensor<3x3xf64>):
    %d = nn.dense %a, %v, %b : (tensor<4x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
    %t = nn.tanh %d {ad.name = "act"} : tensor<4x3xf64>
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %m = linalg.matmul ins(%t, %v : tensor<4x3xf64>, tensor<3x3xf64>) outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
    %s = arith.mulf %m, %a {ad.name = "out"} : tensor<4x3xf64>
    %e = nn.gelu %s : tensor<4x3xf64>
    ad.yield %e : tensor<4x3xf64>
  }
  %q = arith.mulf %y, %y : tensor<4x3xf64>
  %l = nn.mean %q : (tensor<4x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @f_dots(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %y = ad.checkpoint %x, %w {policy = "dots_saveable"} : tensor<4x3xf64>, tensor<3x3xf64> -> tensor<4x3xf64> {
  ^bb0(%a: tensor<4x3xf64>, %v: tensor<3x3xf64>):
    %d = nn.dense %a, %v, %b : (tensor<4x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
    %t = nn.tanh %d {ad.name = "act"} : tensor<4x3xf64>
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %m = linalg.matmul ins(%t, %v : tensor<4x3xf64>, tensor<3x3xf64>) outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
    %s = arith.mulf %m, %a {ad.name = "out"} : tensor<4x3xf64>
    %e = nn.gelu %s : tensor<4x3xf64>
    ad.yield %e : tensor<4x3xf64>
  }
  %q = arith.mulf %y, %y : tensor<4x3xf64>
  %l = nn.mean %q : (tensor<4x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @f_named(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>, %b: tensor<3xf64>) -> tensor<f64> {
  %y = ad.checkpoint %x, %w {policy = "save:act,out"} : tensor<4x3xf64>, tensor<3x3xf64> -> tensor<4x3xf64> {
  ^bb0(%a: tensor<4x3xf64>, %v: tensor<3x3xf64>):
    %d = nn.dense %a, %v, %b : (tensor<4x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
    %t = nn.tanh %d {ad.name = "act"} : tensor<4x3xf64>
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %m = linalg.matmul ins(%t, %v : tensor<4x3xf64>, tensor<3x3xf64>) outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
    %s = arith.mulf %m, %a {ad.name = "out"} : tensor<4x3xf64>
    %e = nn.gelu %s : tensor<4x3xf64>
    ad.yield %e : tensor<4x3xf64>
  }
  %q = arith.mulf %y, %y : tensor<4x3xf64>
  %l = nn.mean %q : (tensor<4x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

