// RUN: trellis-opt %s -split-input-file --ad-build-inverse 2>&1 | FileCheck %s

// ad-build-inverse remarks on f32 reversible stacks of more than 64 residual
// blocks (docs/reversible.md, "Inverting a stack, and drift"): a loop of 33
// steps of two half-residuals is 66 blocks.
// CHECK: remark: f32 reversible stack of 66 residual blocks (more than 64): reconstruction drifts (1.4e-4 relative gradient error at 128 blocks); use f64 or store the activations (docs/reversible.md)
// CHECK-LABEL: func.func @deep_f32
// CHECK-LABEL: func.func @deep_f32__inverse
func.func @deep_f32(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant 33 : index
  %y:2 = scf.for %l = %c0 to %cL step %c1 iter_args(%a = %x1, %c = %x2) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %r:2 = nn.reversible_serial %a, %c : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%i1: tensor<2x4xf32>, %i2: tensor<2x4xf32>):
      %h:2 = nn.reversible_half_residual %i1, %i2 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s:2 = nn.reversible_swap %h#0, %h#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %k:2 = nn.reversible_half_residual %s#0, %s#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %g = nn.tanh %u : tensor<2x4xf32>
        nn.yield %g : tensor<2x4xf32>
      }
      nn.yield %k#0, %k#1 : tensor<2x4xf32>, tensor<2x4xf32>
    }
    scf.yield %r#0, %r#1 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  return %y#0, %y#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// 32 steps (64 blocks) in f32, and 33 steps in f64: no remark.
// CHECK-NOT: remark
// CHECK-LABEL: func.func @shallow_f32
// CHECK-LABEL: func.func @shallow_f32__inverse
func.func @shallow_f32(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant 32 : index
  %y:2 = scf.for %l = %c0 to %cL step %c1 iter_args(%a = %x1, %c = %x2) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %r:2 = nn.reversible_serial %a, %c : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%i1: tensor<2x4xf32>, %i2: tensor<2x4xf32>):
      %h:2 = nn.reversible_half_residual %i1, %i2 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s:2 = nn.reversible_swap %h#0, %h#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %k:2 = nn.reversible_half_residual %s#0, %s#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %g = nn.tanh %u : tensor<2x4xf32>
        nn.yield %g : tensor<2x4xf32>
      }
      nn.yield %k#0, %k#1 : tensor<2x4xf32>, tensor<2x4xf32>
    }
    scf.yield %r#0, %r#1 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  return %y#0, %y#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-NOT: remark
// CHECK-LABEL: func.func @deep_f64
func.func @deep_f64(%x1: tensor<2x4xf64>, %x2: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cL = arith.constant 33 : index
  %y:2 = scf.for %l = %c0 to %cL step %c1 iter_args(%a = %x1, %c = %x2) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
    %r:2 = nn.reversible_serial %a, %c : tensor<2x4xf64>, tensor<2x4xf64> {
    ^bb0(%i1: tensor<2x4xf64>, %i2: tensor<2x4xf64>):
      %h:2 = nn.reversible_half_residual %i1, %i2 : tensor<2x4xf64>, tensor<2x4xf64> {
      ^bb0(%u: tensor<2x4xf64>):
        %f = nn.tanh %u : tensor<2x4xf64>
        nn.yield %f : tensor<2x4xf64>
      }
      %s:2 = nn.reversible_swap %h#0, %h#1 : tensor<2x4xf64>, tensor<2x4xf64>
      %k:2 = nn.reversible_half_residual %s#0, %s#1 : tensor<2x4xf64>, tensor<2x4xf64> {
      ^bb0(%u: tensor<2x4xf64>):
        %g = nn.tanh %u : tensor<2x4xf64>
        nn.yield %g : tensor<2x4xf64>
      }
      nn.yield %k#0, %k#1 : tensor<2x4xf64>, tensor<2x4xf64>
    }
    scf.yield %r#0, %r#1 : tensor<2x4xf64>, tensor<2x4xf64>
  }
  return %y#0, %y#1 : tensor<2x4xf64>, tensor<2x4xf64>
}
