// RevNet blocks with batch norm inside (Gomez et al. 2017): an
// nn.reversible_serial of conv2d/batch_norm/relu half-residuals, one of them
// in a nested serial, whose blocks return batch norm's running statistics as
// layer state. Against PyTorch in f64 (the same network, differentiated by
// autograd with every activation stored): the outputs, the new running
// statistics — one momentum update per step although the backward pass
// recomputes each block — the loss and the gradients of the inputs, conv
// weights and biases and batch-norm scales and shifts. 1e-5 relative in f32
// and 1e-12 in f64 (trellis_testing/run.py); the loss
// mean(flatten(o1) ⊙ c1 + flatten(o2) ⊙ c2) makes the cotangents
// non-uniform.
// REQUIRES: numpy, torch
// RUN: %python %S/revnet_batch_norm_torch.py %s %t.f32 | FileCheck %s
// RUN: %python %S/revnet_batch_norm_torch.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS forward.o1:
// CHECK: PASS forward.o2:
// CHECK: PASS forward.state:
// CHECK: PASS step.loss:
// CHECK: PASS step.state:
// CHECK: PASS step.dx1:
// CHECK: PASS step.dx2:
// CHECK: PASS step.dw1:
// CHECK: PASS step.dcb1:
// CHECK: PASS step.dscale1:
// CHECK: PASS step.dshift1:
// CHECK: PASS step.dw2:
// CHECK: PASS step.dcb2:
// CHECK: PASS step.dscale2:
// CHECK: PASS step.dshift2:
// CHECK: ALL CHECKS PASSED

func.func @forward(%x1: tensor<2x6x6x3xf32>, %x2: tensor<2x6x6x3xf32>, %w1: tensor<3x3x3x3xf32>, %cb1: tensor<3xf32>, %s1: tensor<3xf32>, %bb1: tensor<3xf32>, %rm1: tensor<3xf32>, %rv1: tensor<3xf32>, %w2: tensor<3x3x3x3xf32>, %cb2: tensor<3xf32>, %s2: tensor<3xf32>, %bb2: tensor<3xf32>, %rm2: tensor<3xf32>, %rv2: tensor<3xf32>)
    -> (tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %o1, %o2, %m1, %v1, %m2, %v2 = nn.reversible_serial %x1, %x2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
  ^bb0(%a: tensor<2x6x6x3xf32>, %b: tensor<2x6x6x3xf32>):
    %a1, %b1, %n1, %u1 = nn.reversible_half_residual %a, %b : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
    ^bb0(%c: tensor<2x6x6x3xf32>):
      %h = nn.conv2d %c, %w1, %cb1 {padding = array<i64: 1, 1, 1, 1>}
          : (tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x6x6x3xf32>
      %y, %nm, %nv = nn.batch_norm %h, %s1, %bb1, %rm1, %rv1 {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
          : (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>)
      %r = nn.relu %y : tensor<2x6x6x3xf32>
      nn.yield %r, %nm, %nv : tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
    }
    %p, %q = nn.reversible_swap %a1, %b1 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>
    %i1, %i2, %n2, %u2 = nn.reversible_serial %p, %q : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
    ^bb0(%e: tensor<2x6x6x3xf32>, %f: tensor<2x6x6x3xf32>):
      %e1, %f1, %k1, %k2 = nn.reversible_half_residual %e, %f : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
      ^bb0(%c: tensor<2x6x6x3xf32>):
        %h = nn.conv2d %c, %w2, %cb2 {padding = array<i64: 1, 1, 1, 1>}
            : (tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x6x6x3xf32>
        %y, %nm, %nv = nn.batch_norm %h, %s2, %bb2, %rm2, %rv2 {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
            : (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>)
        %r = nn.relu %y : tensor<2x6x6x3xf32>
        nn.yield %r, %nm, %nv : tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
      }
      %g1, %g2 = nn.reversible_swap %e1, %f1 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>
      nn.yield %g1, %g2, %k1, %k2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
    }
    nn.yield %i1, %i2, %n1, %u1, %n2, %u2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %o1, %o2, %m1, %v1, %m2, %v2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

func.func private @loss(%x1: tensor<2x6x6x3xf32>, %x2: tensor<2x6x6x3xf32>, %w1: tensor<3x3x3x3xf32>, %cb1: tensor<3xf32>, %s1: tensor<3xf32>, %bb1: tensor<3xf32>, %rm1: tensor<3xf32>, %rv1: tensor<3xf32>, %w2: tensor<3x3x3x3xf32>, %cb2: tensor<3xf32>, %s2: tensor<3xf32>, %bb2: tensor<3xf32>, %rm2: tensor<3xf32>, %rv2: tensor<3xf32>, %c1: tensor<2x108xf32>, %c2: tensor<2x108xf32>)
    -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %o1, %o2, %m1, %v1, %m2, %v2 = nn.reversible_serial %x1, %x2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
  ^bb0(%a: tensor<2x6x6x3xf32>, %b: tensor<2x6x6x3xf32>):
    %a1, %b1, %n1, %u1 = nn.reversible_half_residual %a, %b : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
    ^bb0(%c: tensor<2x6x6x3xf32>):
      %h = nn.conv2d %c, %w1, %cb1 {padding = array<i64: 1, 1, 1, 1>}
          : (tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x6x6x3xf32>
      %y, %nm, %nv = nn.batch_norm %h, %s1, %bb1, %rm1, %rv1 {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
          : (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>)
      %r = nn.relu %y : tensor<2x6x6x3xf32>
      nn.yield %r, %nm, %nv : tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
    }
    %p, %q = nn.reversible_swap %a1, %b1 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>
    %i1, %i2, %n2, %u2 = nn.reversible_serial %p, %q : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
    ^bb0(%e: tensor<2x6x6x3xf32>, %f: tensor<2x6x6x3xf32>):
      %e1, %f1, %k1, %k2 = nn.reversible_half_residual %e, %f : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32> {
      ^bb0(%c: tensor<2x6x6x3xf32>):
        %h = nn.conv2d %c, %w2, %cb2 {padding = array<i64: 1, 1, 1, 1>}
            : (tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>) -> tensor<2x6x6x3xf32>
        %y, %nm, %nv = nn.batch_norm %h, %s2, %bb2, %rm2, %rv2 {epsilon = 1.0e-03 : f32, momentum = 3.0e-01 : f32}
            : (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>)
        %r = nn.relu %y : tensor<2x6x6x3xf32>
        nn.yield %r, %nm, %nv : tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
      }
      %g1, %g2 = nn.reversible_swap %e1, %f1 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>
      nn.yield %g1, %g2, %k1, %k2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>
    }
    nn.yield %i1, %i2, %n1, %u1, %n2, %u2 : tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  %f1 = nn.flatten %o1 : (tensor<2x6x6x3xf32>) -> tensor<2x108xf32>
  %f2 = nn.flatten %o2 : (tensor<2x6x6x3xf32>) -> tensor<2x108xf32>
  %p1 = arith.mulf %f1, %c1 : tensor<2x108xf32>
  %p2 = arith.mulf %f2, %c2 : tensor<2x108xf32>
  %s = arith.addf %p1, %p2 : tensor<2x108xf32>
  %l = nn.mean %s : (tensor<2x108xf32>) -> tensor<f32>
  return %l, %m1, %v1, %m2, %v2 : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

func.func @step(%x1: tensor<2x6x6x3xf32>, %x2: tensor<2x6x6x3xf32>, %w1: tensor<3x3x3x3xf32>, %cb1: tensor<3xf32>, %s1: tensor<3xf32>, %bb1: tensor<3xf32>, %rm1: tensor<3xf32>, %rv1: tensor<3xf32>, %w2: tensor<3x3x3x3xf32>, %cb2: tensor<3xf32>, %s2: tensor<3xf32>, %bb2: tensor<3xf32>, %rm2: tensor<3xf32>, %rv2: tensor<3xf32>, %c1: tensor<2x108xf32>, %c2: tensor<2x108xf32>)
    -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %l, %m1, %v1, %m2, %v2, %g:10 = ad.value_and_grad @loss(%x1, %x2, %w1, %cb1, %s1, %bb1, %rm1, %rv1, %w2, %cb2, %s2, %bb2, %rm2, %rv2, %c1, %c2)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 8, 9, 10, 11>, has_aux = true}
      : (tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x108xf32>, tensor<2x108xf32>)
      -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %l, %m1, %v1, %m2, %v2, %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9
      : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x6x6x3xf32>, tensor<2x6x6x3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
