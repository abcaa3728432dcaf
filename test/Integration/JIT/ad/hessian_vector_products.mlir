// Hessian-vector products (issue 19): h(x, v) = <∂f/∂x, v> differentiated
// again, so ∂h/∂x = H·v, checked against central finite differences of h
// in f64 (trellis_testing/gradcheck.py: 4 random directions plus, where
// `full`, every basis vector; 1e-6 relative, floored at 1% of the largest
// entry). Each f differentiates through what once stopped a second
// derivative ("'ad.barrier' op cannot be differentiated", "'nn.attention_grad'
// ... no reverse-mode rule"):
//   f_ctrl   scf.for (constant trips), scf.if (both branches, flag from an
//            argument), ad.checkpoint
//   f_serial nn.reversible_serial (half residuals and swaps)
//   f_block  a Transformer block: causal two-head attention, residual,
//            layer_norm, gelu MLP, residual; squared loss
// REQUIRES: numpy
// RUN: %python %S/hessian_vector_products.py %s %t | FileCheck %s

// CHECK: PASS hvp_ctrl_1.x:
// CHECK: PASS hvp_ctrl_1.w:
// CHECK: PASS hvp_ctrl_0.x:
// CHECK: PASS hvp_ctrl_0.w:
// CHECK: PASS hvp_serial.x1:
// CHECK: PASS hvp_serial.x2:
// CHECK: PASS hvp_serial.w:
// CHECK: PASS hvp_serial.b:
// CHECK: PASS hvp_block.x:
// CHECK: PASS hvp_block.wq:
// CHECK: PASS hvp_block.wk:
// CHECK: PASS hvp_block.wv:
// CHECK: PASS hvp_block.s:
// CHECK: PASS hvp_block.w1:
// CHECK: PASS hvp_block.w2:
// CHECK: ALL CHECKS PASSED

func.func @f_ctrl(%x: tensor<3xf64>, %w: tensor<3xf64>, %cs: tensor<i32>) -> tensor<f64> {
  %ci = tensor.extract %cs[] : tensor<i32>
  %zero = arith.constant 0 : i32
  %c = arith.cmpi ne, %ci, %zero : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %t = math.tanh %a : tensor<3xf64>
    %m = arith.mulf %t, %w : tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  }
  %s = scf.if %c -> tensor<3xf64> {
    %e = math.exp %r : tensor<3xf64>
    scf.yield %e : tensor<3xf64>
  } else {
    %q = arith.mulf %r, %r : tensor<3xf64>
    scf.yield %q : tensor<3xf64>
  }
  %k = ad.checkpoint %s, %w : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64> {
  ^bb0(%a: tensor<3xf64>, %b: tensor<3xf64>):
    %t = math.tanh %a : tensor<3xf64>
    %m = arith.mulf %t, %b : tensor<3xf64>
    %n = arith.mulf %m, %a : tensor<3xf64>
    ad.yield %n : tensor<3xf64>
  }
  %l = nn.mean %k : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @hvp_ctrl(%x: tensor<3xf64>, %w: tensor<3xf64>, %cs: tensor<i32>, %v: tensor<3xf64>, %u: tensor<3xf64>) -> tensor<f64> {
  %gx, %gw = ad.grad @f_ctrl(%x, %w, %cs) {argnums = array<i64: 0, 1>}
      : (tensor<3xf64>, tensor<3xf64>, tensor<i32>) -> (tensor<3xf64>, tensor<3xf64>)
  %p = arith.mulf %gx, %v : tensor<3xf64>
  %q = arith.mulf %gw, %u : tensor<3xf64>
  %s = arith.addf %p, %q : tensor<3xf64>
  %l = nn.mean %s : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @f_serial(%x1: tensor<3x4xf64>, %x2: tensor<3x4xf64>,
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
      %t = nn.tanh %r : tensor<3x4xf64>
      nn.yield %t : tensor<3x4xf64>
    }
    %t1, %t2 = nn.reversible_swap %d1, %d2 : tensor<3x4xf64>, tensor<3x4xf64>
    nn.yield %t1, %t2 : tensor<3x4xf64>, tensor<3x4xf64>
  }
  %p1 = arith.mulf %y1, %k1 : tensor<3x4xf64>
  %p2 = arith.mulf %y2, %y2 : tensor<3x4xf64>
  %p3 = arith.mulf %p2, %k2 : tensor<3x4xf64>
  %s = arith.addf %p1, %p3 : tensor<3x4xf64>
  %l = nn.mean %s : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @hvp_serial(%x1: tensor<3x4xf64>, %x2: tensor<3x4xf64>,
                      %w: tensor<4x4xf64>, %b: tensor<4xf64>,
                      %k1: tensor<3x4xf64>, %k2: tensor<3x4xf64>,
                      %vx: tensor<3x4xf64>, %vw: tensor<4x4xf64>) -> tensor<f64> {
  %gx, %gw = ad.grad @f_serial(%x1, %x2, %w, %b, %k1, %k2) {argnums = array<i64: 0, 2>}
      : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
      -> (tensor<3x4xf64>, tensor<4x4xf64>)
  %p = arith.mulf %gx, %vx : tensor<3x4xf64>
  %q = arith.mulf %gw, %vw : tensor<4x4xf64>
  %lp = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  %lq = nn.mean %q : (tensor<4x4xf64>) -> tensor<f64>
  %l = arith.addf %lp, %lq : tensor<f64>
  return %l : tensor<f64>
}

// A Transformer block: causal two-head self-attention with a residual,
// layer_norm, and a gelu MLP with a residual.
func.func @f_block(%x: tensor<2x4x8xf64>, %wq: tensor<8x8xf64>, %wk: tensor<8x8xf64>,
                   %wv: tensor<8x8xf64>, %s: tensor<8xf64>, %w1: tensor<8x16xf64>,
                   %w2: tensor<16x8xf64>, %c: tensor<2x4x8xf64>) -> tensor<f64> {
  %z8 = arith.constant dense<0.1> : tensor<8xf64>
  %z16 = arith.constant dense<-0.2> : tensor<16xf64>
  %q = nn.dense %x, %wq, %z8 : (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<2x4x8xf64>
  %k = nn.dense %x, %wk, %z8 : (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<2x4x8xf64>
  %v = nn.dense %x, %wv, %z8 : (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<2x4x8xf64>
  %a = nn.attention %q, %k, %v {num_heads = 2 : i64, causal = true}
      : (tensor<2x4x8xf64>, tensor<2x4x8xf64>, tensor<2x4x8xf64>) -> tensor<2x4x8xf64>
  %r = arith.addf %x, %a : tensor<2x4x8xf64>
  %n = nn.layer_norm %r, %s, %z8 : (tensor<2x4x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<2x4x8xf64>
  %h = nn.dense %n, %w1, %z16 : (tensor<2x4x8xf64>, tensor<8x16xf64>, tensor<16xf64>) -> tensor<2x4x16xf64>
  %g = nn.gelu %h : tensor<2x4x16xf64>
  %o = nn.dense %g, %w2, %z8 : (tensor<2x4x16xf64>, tensor<16x8xf64>, tensor<8xf64>) -> tensor<2x4x8xf64>
  %y = arith.addf %n, %o : tensor<2x4x8xf64>
  %yc = arith.mulf %y, %c : tensor<2x4x8xf64>
  %l = nn.mean %yc : (tensor<2x4x8xf64>) -> tensor<f64>
  %l2 = arith.mulf %l, %l : tensor<f64>
  return %l2 : tensor<f64>
}

func.func @hvp_block(%x: tensor<2x4x8xf64>, %wq: tensor<8x8xf64>, %wk: tensor<8x8xf64>,
                     %wv: tensor<8x8xf64>, %s: tensor<8xf64>, %w1: tensor<8x16xf64>,
                     %w2: tensor<16x8xf64>, %c: tensor<2x4x8xf64>,
                     %vx: tensor<2x4x8xf64>, %vq: tensor<8x8xf64>, %vk: tensor<8x8xf64>,
                     %vv: tensor<8x8xf64>, %v1: tensor<8x16xf64>) -> tensor<f64> {
  %gx, %gq, %gk, %gv, %g1 = ad.grad @f_block(%x, %wq, %wk, %wv, %s, %w1, %w2, %c)
      {argnums = array<i64: 0, 1, 2, 3, 5>}
      : (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8xf64>,
         tensor<8x16xf64>, tensor<16x8xf64>, tensor<2x4x8xf64>)
      -> (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>)
  %px = arith.mulf %gx, %vx : tensor<2x4x8xf64>
  %pq = arith.mulf %gq, %vq : tensor<8x8xf64>
  %pk = arith.mulf %gk, %vk : tensor<8x8xf64>
  %pv = arith.mulf %gv, %vv : tensor<8x8xf64>
  %p1 = arith.mulf %g1, %v1 : tensor<8x16xf64>
  %lx = nn.mean %px : (tensor<2x4x8xf64>) -> tensor<f64>
  %lq = nn.mean %pq : (tensor<8x8xf64>) -> tensor<f64>
  %lk = nn.mean %pk : (tensor<8x8xf64>) -> tensor<f64>
  %lv = nn.mean %pv : (tensor<8x8xf64>) -> tensor<f64>
  %l1 = nn.mean %p1 : (tensor<8x16xf64>) -> tensor<f64>
  %s1 = arith.addf %lx, %lq : tensor<f64>
  %s2 = arith.addf %s1, %lk : tensor<f64>
  %s3 = arith.addf %s2, %lv : tensor<f64>
  %s4 = arith.addf %s3, %l1 : tensor<f64>
  return %s4 : tensor<f64>
}

// H·v of the block for every parameter at once, for the PyTorch oracle
// (hessian_vector_products_torch.test).
func.func @hvp_block_hessian(%x: tensor<2x4x8xf64>, %wq: tensor<8x8xf64>, %wk: tensor<8x8xf64>,
                             %wv: tensor<8x8xf64>, %s: tensor<8xf64>, %w1: tensor<8x16xf64>,
                             %w2: tensor<16x8xf64>, %c: tensor<2x4x8xf64>,
                             %vx: tensor<2x4x8xf64>, %vq: tensor<8x8xf64>, %vk: tensor<8x8xf64>,
                             %vv: tensor<8x8xf64>, %v1: tensor<8x16xf64>)
    -> (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8xf64>,
        tensor<8x16xf64>, tensor<16x8xf64>) {
  %hx, %hq, %hk, %hv, %hs, %h1, %h2 = ad.grad @hvp_block(%x, %wq, %wk, %wv, %s, %w1, %w2, %c,
                                                       %vx, %vq, %vk, %vv, %v1)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6>}
      : (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8xf64>,
         tensor<8x16xf64>, tensor<16x8xf64>, tensor<2x4x8xf64>, tensor<2x4x8xf64>,
         tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x16xf64>)
      -> (tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8xf64>,
          tensor<8x16xf64>, tensor<16x8xf64>)
  return %hx, %hq, %hk, %hv, %hs, %h1, %h2 : tensor<2x4x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>,
      tensor<8x8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16x8xf64>
}
