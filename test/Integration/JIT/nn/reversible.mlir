// The forward meaning of the reversible layers: a reversible_serial of a
// tanh half-residual, a swap, a dense half-residual capturing its weights
// from the function, and a swap, i.e.
//   y1 = x1 + tanh(x2),  y2 = x2 + dense(y1, w, b),
// and a nested serial of two such blocks; against NumPy (float64), 1e-5
// relative in f32 and 1e-12 with f64 tensors (trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/reversible.py %s %t.f32 | FileCheck %s
// RUN: %python %S/reversible.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS rev_block.y1:
// CHECK: PASS rev_block.y2:
// CHECK: PASS rev_nested.y1:
// CHECK: PASS rev_nested.y2:
// CHECK: ALL CHECKS PASSED

func.func @rev_block(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>,
                     %w: tensor<32x32xf32>, %b: tensor<32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<8x32xf32>, tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>, %c: tensor<8x32xf32>):
    %a1, %c1 = nn.reversible_half_residual %a, %c : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%ctx: tensor<8x32xf32>):
      %r = nn.tanh %ctx : tensor<8x32xf32>
      nn.yield %r : tensor<8x32xf32>
    }
    %s1, %s2 = nn.reversible_swap %a1, %c1 : tensor<8x32xf32>, tensor<8x32xf32>
    %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%ctx: tensor<8x32xf32>):
      %r = nn.dense %ctx, %w, %b
          : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      nn.yield %r : tensor<8x32xf32>
    }
    %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<8x32xf32>, tensor<8x32xf32>
    nn.yield %t1, %t2 : tensor<8x32xf32>, tensor<8x32xf32>
  }
  return %y1, %y2 : tensor<8x32xf32>, tensor<8x32xf32>
}

// Two blocks, each a nested reversible_serial; the second block's residuals
// are gelu and a dense with other weights.
func.func @rev_nested(%x1: tensor<8x32xf32>, %x2: tensor<8x32xf32>,
                      %w: tensor<32x32xf32>, %b: tensor<32xf32>,
                      %w2: tensor<32x32xf32>, %b2: tensor<32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<8x32xf32>, tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>, %c: tensor<8x32xf32>):
    %p1, %p2 = nn.reversible_serial %a, %c : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%u: tensor<8x32xf32>, %v: tensor<8x32xf32>):
      %u1, %v1 = nn.reversible_half_residual %u, %v : tensor<8x32xf32>, tensor<8x32xf32> {
      ^bb0(%ctx: tensor<8x32xf32>):
        %r = nn.tanh %ctx : tensor<8x32xf32>
        nn.yield %r : tensor<8x32xf32>
      }
      %s1, %s2 = nn.reversible_swap %u1, %v1 : tensor<8x32xf32>, tensor<8x32xf32>
      %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<8x32xf32>, tensor<8x32xf32> {
      ^bb0(%ctx: tensor<8x32xf32>):
        %r = nn.dense %ctx, %w, %b
            : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
        nn.yield %r : tensor<8x32xf32>
      }
      %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<8x32xf32>, tensor<8x32xf32>
      nn.yield %t1, %t2 : tensor<8x32xf32>, tensor<8x32xf32>
    }
    %q1, %q2 = nn.reversible_serial %p1, %p2 : tensor<8x32xf32>, tensor<8x32xf32> {
    ^bb0(%u: tensor<8x32xf32>, %v: tensor<8x32xf32>):
      %u1, %v1 = nn.reversible_half_residual %u, %v : tensor<8x32xf32>, tensor<8x32xf32> {
      ^bb0(%ctx: tensor<8x32xf32>):
        %r = nn.gelu %ctx : tensor<8x32xf32>
        nn.yield %r : tensor<8x32xf32>
      }
      %s1, %s2 = nn.reversible_swap %u1, %v1 : tensor<8x32xf32>, tensor<8x32xf32>
      %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<8x32xf32>, tensor<8x32xf32> {
      ^bb0(%ctx: tensor<8x32xf32>):
        %r = nn.dense %ctx, %w2, %b2
            : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
        nn.yield %r : tensor<8x32xf32>
      }
      %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<8x32xf32>, tensor<8x32xf32>
      nn.yield %t1, %t2 : tensor<8x32xf32>, tensor<8x32xf32>
    }
    nn.yield %q1, %q2 : tensor<8x32xf32>, tensor<8x32xf32>
  }
  return %y1, %y2 : tensor<8x32xf32>, tensor<8x32xf32>
}
