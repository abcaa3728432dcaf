// nn.batch_norm in both modes against PyTorch's F.batch_norm in f64: the
// output, the running statistics (momentum 0.3, PyTorch's convention with
// the unbiased batch variance) and the gradients of x, scale and bias, on an
// NHWC 4x3x5x6 input (statistics over the 60 positions of N, H, W) and a
// rank-2 7x5 one; epsilon 1e-3 so that it shows. 1e-5 relative in f32 and
// 1e-12 in f64 (trellis_testing/run.py). The losses mean(y ⊙ c) with a
// random c make the cotangent non-uniform (Σ dy ≠ 0, Σ dy·x̂ ≠ 0).
// REQUIRES: numpy, torch
// RUN: %python %S/batch_norm_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/batch_norm_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS train.y:
// CHECK: PASS train.new_mean:
// CHECK: PASS train.new_var:
// CHECK: PASS train.dx:
// CHECK: PASS train.dscale:
// CHECK: PASS train.dbias:
// CHECK: PASS eval.y:
// CHECK: PASS eval.state_unchanged:
// CHECK: PASS eval.dx:
// CHECK: PASS eval.dscale:
// CHECK: PASS eval.dbias:
// CHECK: PASS rank2.y:
// CHECK: PASS rank2.new_var:
// CHECK: PASS rank2.dx:
// CHECK: ALL CHECKS PASSED

func.func @train_forward(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                         %m: tensor<6xf32>, %v: tensor<6xf32>)
    -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %y, %nm, %nv : tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>
}

func.func private @train_loss(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                              %m: tensor<6xf32>, %v: tensor<6xf32>, %c: tensor<4x90xf32>)
    -> tensor<f32> {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  %f = nn.flatten %y : (tensor<4x3x5x6xf32>) -> tensor<4x90xf32>
  %p = arith.mulf %f, %c : tensor<4x90xf32>
  %l = nn.mean %p : (tensor<4x90xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @train_grad(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                      %m: tensor<6xf32>, %v: tensor<6xf32>, %c: tensor<4x90xf32>)
    -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %gx, %gs, %gb = ad.grad @train_loss(%x, %s, %b, %m, %v, %c) {argnums = array<i64: 0, 1, 2>}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<4x90xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %gx, %gs, %gb : tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>
}

func.func @eval_forward(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                        %m: tensor<6xf32>, %v: tensor<6xf32>)
    -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-03 : f32, training = false}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %y, %nm, %nv : tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>
}

func.func private @eval_loss(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                             %m: tensor<6xf32>, %v: tensor<6xf32>, %c: tensor<4x90xf32>)
    -> tensor<f32> {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-03 : f32, training = false}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  %f = nn.flatten %y : (tensor<4x3x5x6xf32>) -> tensor<4x90xf32>
  %p = arith.mulf %f, %c : tensor<4x90xf32>
  %l = nn.mean %p : (tensor<4x90xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @eval_grad(%x: tensor<4x3x5x6xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>,
                     %m: tensor<6xf32>, %v: tensor<6xf32>, %c: tensor<4x90xf32>)
    -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %gx, %gs, %gb = ad.grad @eval_loss(%x, %s, %b, %m, %v, %c) {argnums = array<i64: 0, 1, 2>}
      : (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<4x90xf32>)
      -> (tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %gx, %gs, %gb : tensor<4x3x5x6xf32>, tensor<6xf32>, tensor<6xf32>
}

func.func @rank2_forward(%x: tensor<7x5xf32>, %s: tensor<5xf32>, %b: tensor<5xf32>,
                         %m: tensor<5xf32>, %v: tensor<5xf32>)
    -> (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v
      : (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
      -> (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>)
  return %y, %nm, %nv : tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>
}

func.func private @rank2_loss(%x: tensor<7x5xf32>, %s: tensor<5xf32>, %b: tensor<5xf32>,
                              %m: tensor<5xf32>, %v: tensor<5xf32>, %c: tensor<7x5xf32>)
    -> tensor<f32> {
  %y, %nm, %nv = nn.batch_norm %x, %s, %b, %m, %v
      : (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
      -> (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>)
  %p = arith.mulf %y, %c : tensor<7x5xf32>
  %l = nn.mean %p : (tensor<7x5xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @rank2_grad(%x: tensor<7x5xf32>, %s: tensor<5xf32>, %b: tensor<5xf32>,
                      %m: tensor<5xf32>, %v: tensor<5xf32>, %c: tensor<7x5xf32>)
    -> tensor<7x5xf32> {
  %gx = ad.grad @rank2_loss(%x, %s, %b, %m, %v, %c) {argnums = array<i64: 0>}
      : (tensor<7x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<7x5xf32>)
      -> tensor<7x5xf32>
  return %gx : tensor<7x5xf32>
}
