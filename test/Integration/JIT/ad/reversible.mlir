// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of the reversible layers:
// reversible_half_residual with two context values and weights captured in
// its body, reversible_swap of differently shaped values, reversible_serial
// (tanh / dense half-residuals and swaps) and a serial of two nested
// serials with four weight tensors, and a three-stream serial whose
// half-residual reads two context streams.
// REQUIRES: numpy
// RUN: %python %S/reversible.py %s %t | FileCheck %s

// CHECK: PASS half_residual.acc:
// CHECK: PASS half_residual.ctx1:
// CHECK: PASS half_residual.ctx2:
// CHECK: PASS half_residual.w:
// CHECK: PASS half_residual.b:
// CHECK: PASS swap.a:
// CHECK: PASS swap.b:
// CHECK: PASS serial.x1:
// CHECK: PASS serial.x2:
// CHECK: PASS serial.w:
// CHECK: PASS serial.b:
// CHECK: PASS serial_nested.x1:
// CHECK: PASS serial_nested.x2:
// CHECK: PASS serial_nested.w:
// CHECK: PASS serial_nested.b:
// CHECK: PASS serial_nested.w2:
// CHECK: PASS serial_nested.b2:
// CHECK: PASS serial3.x1:
// CHECK: PASS serial3.x2:
// CHECK: PASS serial3.x3:
// CHECK: PASS serial3.w:
// CHECK: PASS serial3.b:
// CHECK: PASS half_residual_identity.x:
// CHECK: PASS half_residual_identity.ctx:
// CHECK: PASS half_residual_identity.w:
// CHECK: ALL CHECKS PASSED

// y1 = x1 + dense(tanh(c1) * c2, w, b); c1, c2 pass through.
func.func @loss_half_residual(%x1: tensor<3x4xf64>, %c1: tensor<3x4xf64>,
                              %c2: tensor<3x4xf64>, %w: tensor<4x4xf64>,
                              %b: tensor<4xf64>, %k1: tensor<3x4xf64>,
                              %k2: tensor<3x4xf64>, %k3: tensor<3x4xf64>) -> tensor<f64> {
  %y1, %y2, %y3 = nn.reversible_half_residual %x1, %c1, %c2
      : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64> {
  ^bb0(%a: tensor<3x4xf64>, %d: tensor<3x4xf64>):
    %t = nn.tanh %a : tensor<3x4xf64>
    %m = arith.mulf %t, %d : tensor<3x4xf64>
    %r = nn.dense %m, %w, %b : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
    nn.yield %r : tensor<3x4xf64>
  }
  %p1 = arith.mulf %y1, %k1 : tensor<3x4xf64>
  %p2 = arith.mulf %y2, %k2 : tensor<3x4xf64>
  %p3 = arith.mulf %y3, %k3 : tensor<3x4xf64>
  %s1 = arith.addf %p1, %p2 : tensor<3x4xf64>
  %s2 = arith.addf %s1, %p3 : tensor<3x4xf64>
  %l = nn.mean %s2 : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_swap(%a: tensor<3x4xf64>, %b: tensor<2x5xf64>,
                     %ka: tensor<2x5xf64>, %kb: tensor<3x4xf64>) -> tensor<f64> {
  %p, %q = nn.reversible_swap %a, %b : tensor<3x4xf64>, tensor<2x5xf64>
  %t = nn.tanh %p : tensor<2x5xf64>
  %pp = arith.mulf %t, %ka : tensor<2x5xf64>
  %qq = arith.mulf %q, %kb : tensor<3x4xf64>
  %l1 = nn.mean %pp : (tensor<2x5xf64>) -> tensor<f64>
  %l2 = nn.mean %qq : (tensor<3x4xf64>) -> tensor<f64>
  %l = arith.addf %l1, %l2 : tensor<f64>
  return %l : tensor<f64>
}

// y1 = x1 + tanh(x2); y2 = x2 + dense(y1, w, b) (the swaps put them back).
func.func @loss_serial(%x1: tensor<3x4xf64>, %x2: tensor<3x4xf64>,
                       %w: tensor<4x4xf64>, %b: tensor<4xf64>,
                       %k1: tensor<3x4xf64>, %k2: tensor<3x4xf64>) -> tensor<f64> {
  %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<3x4xf64>, tensor<3x4xf64> {
  ^bb0(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>):
    %a1, %c1 = nn.reversible_half_residual %a, %c : tensor<3x4xf64>, tensor<3x4xf64> {
    ^bb0(%ctx: tensor<3x4xf64>):
      %r = nn.tanh %ctx : tensor<3x4xf64>
      nn.yield %r : tensor<3x4xf64>
    }
    %s1, %s2 = nn.reversible_swap %a1, %c1 : tensor<3x4xf64>, tensor<3x4xf64>
    %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<3x4xf64>, tensor<3x4xf64> {
    ^bb0(%ctx: tensor<3x4xf64>):
      %r = nn.dense %ctx, %w, %b
          : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
      nn.yield %r : tensor<3x4xf64>
    }
    %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<3x4xf64>, tensor<3x4xf64>
    nn.yield %t1, %t2 : tensor<3x4xf64>, tensor<3x4xf64>
  }
  %p1 = arith.mulf %y1, %k1 : tensor<3x4xf64>
  %p2 = arith.mulf %y2, %k2 : tensor<3x4xf64>
  %s = arith.addf %p1, %p2 : tensor<3x4xf64>
  %l = nn.mean %s : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Two blocks, each a nested reversible_serial; the second block's residuals
// are gelu and a dense with other weights.
func.func @loss_serial_nested(%x1: tensor<3x4xf64>, %x2: tensor<3x4xf64>,
                              %w: tensor<4x4xf64>, %b: tensor<4xf64>,
                              %w2: tensor<4x4xf64>, %b2: tensor<4xf64>,
                              %k1: tensor<3x4xf64>, %k2: tensor<3x4xf64>) -> tensor<f64> {
  %y1, %y2 = nn.reversible_serial %x1, %x2 : tensor<3x4xf64>, tensor<3x4xf64> {
  ^bb0(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>):
    %p1, %p2 = nn.reversible_serial %a, %c : tensor<3x4xf64>, tensor<3x4xf64> {
    ^bb0(%u: tensor<3x4xf64>, %v: tensor<3x4xf64>):
      %u1, %v1 = nn.reversible_half_residual %u, %v : tensor<3x4xf64>, tensor<3x4xf64> {
      ^bb0(%ctx: tensor<3x4xf64>):
        %r = nn.tanh %ctx : tensor<3x4xf64>
        nn.yield %r : tensor<3x4xf64>
      }
      %s1, %s2 = nn.reversible_swap %u1, %v1 : tensor<3x4xf64>, tensor<3x4xf64>
      %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<3x4xf64>, tensor<3x4xf64> {
      ^bb0(%ctx: tensor<3x4xf64>):
        %r = nn.dense %ctx, %w, %b
            : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
        nn.yield %r : tensor<3x4xf64>
      }
      %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<3x4xf64>, tensor<3x4xf64>
      nn.yield %t1, %t2 : tensor<3x4xf64>, tensor<3x4xf64>
    }
    %q1, %q2 = nn.reversible_serial %p1, %p2 : tensor<3x4xf64>, tensor<3x4xf64> {
    ^bb0(%u: tensor<3x4xf64>, %v: tensor<3x4xf64>):
      %u1, %v1 = nn.reversible_half_residual %u, %v : tensor<3x4xf64>, tensor<3x4xf64> {
      ^bb0(%ctx: tensor<3x4xf64>):
        %r = nn.gelu %ctx : tensor<3x4xf64>
        nn.yield %r : tensor<3x4xf64>
      }
      %s1, %s2 = nn.reversible_swap %u1, %v1 : tensor<3x4xf64>, tensor<3x4xf64>
      %d1, %d2 = nn.reversible_half_residual %s1, %s2 : tensor<3x4xf64>, tensor<3x4xf64> {
      ^bb0(%ctx: tensor<3x4xf64>):
        %h = nn.dense %ctx, %w2, %b2
            : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
        %r = nn.tanh %h : tensor<3x4xf64>
        nn.yield %r : tensor<3x4xf64>
      }
      %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<3x4xf64>, tensor<3x4xf64>
      nn.yield %t1, %t2 : tensor<3x4xf64>, tensor<3x4xf64>
    }
    nn.yield %q1, %q2 : tensor<3x4xf64>, tensor<3x4xf64>
  }
  %p1 = arith.mulf %y1, %k1 : tensor<3x4xf64>
  %p2 = arith.mulf %y2, %k2 : tensor<3x4xf64>
  %s = arith.addf %p1, %p2 : tensor<3x4xf64>
  %l = nn.mean %s : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Three streams: x1 += dense(x2 * tanh(x3), w, b); swap x1 and x3;
// then x3 += gelu(x2 + x1) (the context order differs from the streams).
func.func @loss_serial3(%x1: tensor<2x4xf64>, %x2: tensor<2x4xf64>, %x3: tensor<2x4xf64>,
                        %w: tensor<4x4xf64>, %b: tensor<4xf64>, %k1: tensor<2x4xf64>,
                        %k2: tensor<2x4xf64>, %k3: tensor<2x4xf64>) -> tensor<f64> {
  %y1, %y2, %y3 = nn.reversible_serial %x1, %x2, %x3
      : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64> {
  ^bb0(%a: tensor<2x4xf64>, %c: tensor<2x4xf64>, %e: tensor<2x4xf64>):
    %a1, %c1, %e1 = nn.reversible_half_residual %a, %c, %e
        : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64> {
    ^bb0(%u: tensor<2x4xf64>, %v: tensor<2x4xf64>):
      %t = nn.tanh %v : tensor<2x4xf64>
      %m = arith.mulf %u, %t : tensor<2x4xf64>
      %r = nn.dense %m, %w, %b : (tensor<2x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
      nn.yield %r : tensor<2x4xf64>
    }
    %s1, %s2 = nn.reversible_swap %a1, %e1 : tensor<2x4xf64>, tensor<2x4xf64>
    %f1, %f2, %f3 = nn.reversible_half_residual %s1, %c1, %s2
        : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64> {
    ^bb0(%u: tensor<2x4xf64>, %v: tensor<2x4xf64>):
      %s = arith.addf %u, %v : tensor<2x4xf64>
      %r = nn.gelu %s : tensor<2x4xf64>
      nn.yield %r : tensor<2x4xf64>
    }
    nn.yield %f1, %f2, %f3 : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>
  }
  %p1 = arith.mulf %y1, %k1 : tensor<2x4xf64>
  %p2 = arith.mulf %y2, %k2 : tensor<2x4xf64>
  %p3 = arith.mulf %y3, %k3 : tensor<2x4xf64>
  %s1 = arith.addf %p1, %p2 : tensor<2x4xf64>
  %s2 = arith.addf %s1, %p3 : tensor<2x4xf64>
  %l = nn.mean %s2 : (tensor<2x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// y = x + ctx (the body yields its argument), then y + w (a captured value).
func.func @loss_half_residual_identity(%x: tensor<2x3xf64>, %ctx: tensor<2x3xf64>, %w: tensor<2x3xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %y, %cc = nn.reversible_half_residual %x, %ctx : tensor<2x3xf64>, tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>):
    nn.yield %a : tensor<2x3xf64>
  }
  %y2, %cc2 = nn.reversible_half_residual %y, %cc : tensor<2x3xf64>, tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>):
    nn.yield %w : tensor<2x3xf64>
  }
  %t = nn.tanh %y2 : tensor<2x3xf64>
  %m = arith.mulf %t, %cc2 : tensor<2x3xf64>
  %p = arith.mulf %m, %c : tensor<2x3xf64>
  %l = nn.mean %p : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
