// A loop of reversible blocks whose block carries layer state: each of the
// 3 iterations applies the same half-residual (batch norm, then tanh) and
// updates the running statistics it carries, so they see three momentum
// updates in sequence. A loop whose step returns state is differentiated
// with a tape (docs/reversible.md, "RevNet"), not by reconstruction. Against
// PyTorch in f64: the loss, the statistics after the loop and the gradients
// of x1, x2 and the batch norm's scale and shift; 1e-5 relative in f32 and
// 1e-12 in f64 (trellis_testing/run.py).
// REQUIRES: numpy, torch
// RUN: %python %S/loop_state_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/loop_state_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS loop.loss:
// CHECK: PASS loop.state:
// CHECK: PASS loop.dx1:
// CHECK: PASS loop.dx2:
// CHECK: PASS loop.dscale:
// CHECK: PASS loop.dshift:
// CHECK: ALL CHECKS PASSED

func.func private @loss(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %s: tensor<4xf32>,
                        %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:4 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a0 = %x1, %a1 = %x2, %mm = %m, %vv = %v) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %y1, %y2, %nm, %nv = nn.reversible_serial %a0, %a1 : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%a: tensor<2x4xf32>, %c: tensor<2x4xf32>):
      %p1, %p2, %m1, %v1 = nn.reversible_half_residual %a, %c : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %y, %m2, %v2 = nn.batch_norm %u, %s, %b, %mm, %vv
            : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
            -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
        %t = nn.tanh %y : tensor<2x4xf32>
        nn.yield %t, %m2, %v2 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
      }
      %q1, %q2 = nn.reversible_swap %p1, %p2 : tensor<2x4xf32>, tensor<2x4xf32>
      nn.yield %q1, %q2, %m1, %v1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    scf.yield %y1, %y2, %nm, %nv : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  %sq = arith.mulf %r#0, %r#1 : tensor<2x4xf32>
  %l = nn.mean %sq : (tensor<2x4xf32>) -> tensor<f32>
  return %l, %r#2, %r#3 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
func.func @step(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %s: tensor<4xf32>,
                %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %l, %nm, %nv, %gx, %gx2, %gs, %gb = ad.value_and_grad @loss(%x1, %x2, %s, %b, %m, %v) {argnums = array<i64: 0, 1, 2, 3>, has_aux = true}
      : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %l, %nm, %nv, %gx, %gx2, %gs, %gb : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}
