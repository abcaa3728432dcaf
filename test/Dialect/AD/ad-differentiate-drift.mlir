// ad-differentiate remarks where a reverse pass reconstructs an f32 stack
// of more than 64 residual blocks, as ad-build-inverse does
// (docs/reversible.md, "Inverting a stack, and drift"): a loop of 33 steps
// of two half-residuals (66 blocks) and a serial of 65; not a loop of 32
// steps (64 blocks), nor 33 steps in f64.
// RUN: trellis-opt %s -split-input-file --ad-differentiate 2>&1 | FileCheck %s

// CHECK: remark: f32 reversible stack of 66 residual blocks (more than 64): reconstruction drifts (1.4e-4 relative gradient error at 128 blocks); use f64 or store the activations (docs/reversible.md)
// CHECK-LABEL: func.func private @deep_loop
func.func private @deep_loop(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> tensor<f32> {
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
  %p = arith.mulf %y#0, %y#1 : tensor<2x4xf32>
  %m = nn.mean %p : (tensor<2x4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @g_deep_loop(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %g:2 = ad.grad @deep_loop(%x1, %x2) {argnums = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %g#0, %g#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-NOT: remark
// CHECK-LABEL: func.func private @shallow_loop
func.func private @shallow_loop(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> tensor<f32> {
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
  %p = arith.mulf %y#0, %y#1 : tensor<2x4xf32>
  %m = nn.mean %p : (tensor<2x4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @g_shallow_loop(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %g:2 = ad.grad @shallow_loop(%x1, %x2) {argnums = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %g#0, %g#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-NOT: remark
// CHECK-LABEL: func.func private @deep_loop_f64
func.func private @deep_loop_f64(%x1: tensor<2x4xf64>, %x2: tensor<2x4xf64>) -> tensor<f64> {
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
  %p = arith.mulf %y#0, %y#1 : tensor<2x4xf64>
  %m = nn.mean %p : (tensor<2x4xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
func.func @g_deep_loop_f64(%x1: tensor<2x4xf64>, %x2: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %g:2 = ad.grad @deep_loop_f64(%x1, %x2) {argnums = array<i64: 0, 1>} : (tensor<2x4xf64>, tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
  return %g#0, %g#1 : tensor<2x4xf64>, tensor<2x4xf64>
}

// -----

// CHECK: remark: f32 reversible stack of 65 residual blocks (more than 64)
// CHECK-LABEL: func.func private @deep_serial
func.func private @deep_serial(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> tensor<f32> {
  %y:2 = nn.reversible_serial %x1, %x2 : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%i1: tensor<2x4xf32>, %i2: tensor<2x4xf32>):
      %h0:2 = nn.reversible_half_residual %i1, %i2 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s0:2 = nn.reversible_swap %h0#0, %h0#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h1:2 = nn.reversible_half_residual %s0#0, %s0#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s1:2 = nn.reversible_swap %h1#0, %h1#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h2:2 = nn.reversible_half_residual %s1#0, %s1#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s2:2 = nn.reversible_swap %h2#0, %h2#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h3:2 = nn.reversible_half_residual %s2#0, %s2#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s3:2 = nn.reversible_swap %h3#0, %h3#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h4:2 = nn.reversible_half_residual %s3#0, %s3#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s4:2 = nn.reversible_swap %h4#0, %h4#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h5:2 = nn.reversible_half_residual %s4#0, %s4#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s5:2 = nn.reversible_swap %h5#0, %h5#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h6:2 = nn.reversible_half_residual %s5#0, %s5#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s6:2 = nn.reversible_swap %h6#0, %h6#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h7:2 = nn.reversible_half_residual %s6#0, %s6#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s7:2 = nn.reversible_swap %h7#0, %h7#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h8:2 = nn.reversible_half_residual %s7#0, %s7#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s8:2 = nn.reversible_swap %h8#0, %h8#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h9:2 = nn.reversible_half_residual %s8#0, %s8#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s9:2 = nn.reversible_swap %h9#0, %h9#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h10:2 = nn.reversible_half_residual %s9#0, %s9#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s10:2 = nn.reversible_swap %h10#0, %h10#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h11:2 = nn.reversible_half_residual %s10#0, %s10#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s11:2 = nn.reversible_swap %h11#0, %h11#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h12:2 = nn.reversible_half_residual %s11#0, %s11#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s12:2 = nn.reversible_swap %h12#0, %h12#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h13:2 = nn.reversible_half_residual %s12#0, %s12#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s13:2 = nn.reversible_swap %h13#0, %h13#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h14:2 = nn.reversible_half_residual %s13#0, %s13#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s14:2 = nn.reversible_swap %h14#0, %h14#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h15:2 = nn.reversible_half_residual %s14#0, %s14#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s15:2 = nn.reversible_swap %h15#0, %h15#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h16:2 = nn.reversible_half_residual %s15#0, %s15#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s16:2 = nn.reversible_swap %h16#0, %h16#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h17:2 = nn.reversible_half_residual %s16#0, %s16#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s17:2 = nn.reversible_swap %h17#0, %h17#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h18:2 = nn.reversible_half_residual %s17#0, %s17#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s18:2 = nn.reversible_swap %h18#0, %h18#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h19:2 = nn.reversible_half_residual %s18#0, %s18#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s19:2 = nn.reversible_swap %h19#0, %h19#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h20:2 = nn.reversible_half_residual %s19#0, %s19#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s20:2 = nn.reversible_swap %h20#0, %h20#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h21:2 = nn.reversible_half_residual %s20#0, %s20#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s21:2 = nn.reversible_swap %h21#0, %h21#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h22:2 = nn.reversible_half_residual %s21#0, %s21#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s22:2 = nn.reversible_swap %h22#0, %h22#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h23:2 = nn.reversible_half_residual %s22#0, %s22#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s23:2 = nn.reversible_swap %h23#0, %h23#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h24:2 = nn.reversible_half_residual %s23#0, %s23#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s24:2 = nn.reversible_swap %h24#0, %h24#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h25:2 = nn.reversible_half_residual %s24#0, %s24#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s25:2 = nn.reversible_swap %h25#0, %h25#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h26:2 = nn.reversible_half_residual %s25#0, %s25#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s26:2 = nn.reversible_swap %h26#0, %h26#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h27:2 = nn.reversible_half_residual %s26#0, %s26#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s27:2 = nn.reversible_swap %h27#0, %h27#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h28:2 = nn.reversible_half_residual %s27#0, %s27#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s28:2 = nn.reversible_swap %h28#0, %h28#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h29:2 = nn.reversible_half_residual %s28#0, %s28#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s29:2 = nn.reversible_swap %h29#0, %h29#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h30:2 = nn.reversible_half_residual %s29#0, %s29#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s30:2 = nn.reversible_swap %h30#0, %h30#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h31:2 = nn.reversible_half_residual %s30#0, %s30#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s31:2 = nn.reversible_swap %h31#0, %h31#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h32:2 = nn.reversible_half_residual %s31#0, %s31#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s32:2 = nn.reversible_swap %h32#0, %h32#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h33:2 = nn.reversible_half_residual %s32#0, %s32#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s33:2 = nn.reversible_swap %h33#0, %h33#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h34:2 = nn.reversible_half_residual %s33#0, %s33#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s34:2 = nn.reversible_swap %h34#0, %h34#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h35:2 = nn.reversible_half_residual %s34#0, %s34#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s35:2 = nn.reversible_swap %h35#0, %h35#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h36:2 = nn.reversible_half_residual %s35#0, %s35#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s36:2 = nn.reversible_swap %h36#0, %h36#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h37:2 = nn.reversible_half_residual %s36#0, %s36#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s37:2 = nn.reversible_swap %h37#0, %h37#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h38:2 = nn.reversible_half_residual %s37#0, %s37#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s38:2 = nn.reversible_swap %h38#0, %h38#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h39:2 = nn.reversible_half_residual %s38#0, %s38#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s39:2 = nn.reversible_swap %h39#0, %h39#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h40:2 = nn.reversible_half_residual %s39#0, %s39#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s40:2 = nn.reversible_swap %h40#0, %h40#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h41:2 = nn.reversible_half_residual %s40#0, %s40#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s41:2 = nn.reversible_swap %h41#0, %h41#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h42:2 = nn.reversible_half_residual %s41#0, %s41#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s42:2 = nn.reversible_swap %h42#0, %h42#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h43:2 = nn.reversible_half_residual %s42#0, %s42#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s43:2 = nn.reversible_swap %h43#0, %h43#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h44:2 = nn.reversible_half_residual %s43#0, %s43#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s44:2 = nn.reversible_swap %h44#0, %h44#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h45:2 = nn.reversible_half_residual %s44#0, %s44#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s45:2 = nn.reversible_swap %h45#0, %h45#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h46:2 = nn.reversible_half_residual %s45#0, %s45#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s46:2 = nn.reversible_swap %h46#0, %h46#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h47:2 = nn.reversible_half_residual %s46#0, %s46#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s47:2 = nn.reversible_swap %h47#0, %h47#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h48:2 = nn.reversible_half_residual %s47#0, %s47#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s48:2 = nn.reversible_swap %h48#0, %h48#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h49:2 = nn.reversible_half_residual %s48#0, %s48#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s49:2 = nn.reversible_swap %h49#0, %h49#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h50:2 = nn.reversible_half_residual %s49#0, %s49#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s50:2 = nn.reversible_swap %h50#0, %h50#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h51:2 = nn.reversible_half_residual %s50#0, %s50#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s51:2 = nn.reversible_swap %h51#0, %h51#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h52:2 = nn.reversible_half_residual %s51#0, %s51#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s52:2 = nn.reversible_swap %h52#0, %h52#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h53:2 = nn.reversible_half_residual %s52#0, %s52#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s53:2 = nn.reversible_swap %h53#0, %h53#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h54:2 = nn.reversible_half_residual %s53#0, %s53#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s54:2 = nn.reversible_swap %h54#0, %h54#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h55:2 = nn.reversible_half_residual %s54#0, %s54#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s55:2 = nn.reversible_swap %h55#0, %h55#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h56:2 = nn.reversible_half_residual %s55#0, %s55#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s56:2 = nn.reversible_swap %h56#0, %h56#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h57:2 = nn.reversible_half_residual %s56#0, %s56#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s57:2 = nn.reversible_swap %h57#0, %h57#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h58:2 = nn.reversible_half_residual %s57#0, %s57#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s58:2 = nn.reversible_swap %h58#0, %h58#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h59:2 = nn.reversible_half_residual %s58#0, %s58#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s59:2 = nn.reversible_swap %h59#0, %h59#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h60:2 = nn.reversible_half_residual %s59#0, %s59#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s60:2 = nn.reversible_swap %h60#0, %h60#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h61:2 = nn.reversible_half_residual %s60#0, %s60#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s61:2 = nn.reversible_swap %h61#0, %h61#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h62:2 = nn.reversible_half_residual %s61#0, %s61#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s62:2 = nn.reversible_swap %h62#0, %h62#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h63:2 = nn.reversible_half_residual %s62#0, %s62#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s63:2 = nn.reversible_swap %h63#0, %h63#1 : tensor<2x4xf32>, tensor<2x4xf32>
      %h64:2 = nn.reversible_half_residual %s63#0, %s63#1 : tensor<2x4xf32>, tensor<2x4xf32> {
      ^bb0(%u: tensor<2x4xf32>):
        %f = nn.tanh %u : tensor<2x4xf32>
        nn.yield %f : tensor<2x4xf32>
      }
      %s64:2 = nn.reversible_swap %h64#0, %h64#1 : tensor<2x4xf32>, tensor<2x4xf32>
      nn.yield %s64#0, %s64#1 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %p = arith.mulf %y#0, %y#1 : tensor<2x4xf32>
  %m = nn.mean %p : (tensor<2x4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @g_deep_serial(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %g:2 = ad.grad @deep_serial(%x1, %x2) {argnums = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %g#0, %g#1 : tensor<2x4xf32>, tensor<2x4xf32>
}
