// A function with more than 128 loops has each loop outlined into a
// `noinline` function of its own before LLVM optimizes it
// (lib/Runtime/Optimizer.cpp, outlineLoopsOfLargeFunctions; LLVM's loop
// analyses take time quadratic in the number of sequential loops). The model:
// two layers of bench/long_attention.py's reversible Transformer (attention
// and feed-forward half-residuals) at d = 8, 2 heads, 6 tokens, in f64; its
// differentiated step has over 200 loops. Checked by outline_loops.py:
// the outlined functions are there (and absent with --outline-loops=false),
// the gradient of the outlined code matches central finite differences of the
// loss (1e-6 relative, gradcheck.py), and the step's results equal those of
// the code compiled without outlining to 1e-13 relative. What is left of the
// step's wrapper is straight-line code of over 1024 instructions, generated
// as at -O0 (`optnone`, markLargeStraightLineFunctions); with its loops in
// it, it is not.
// REQUIRES: numpy
// RUN: %python %S/outline_loops.py %s %t | FileCheck %s

// CHECK: OUTLINED step: {{[1-9][0-9]+}} loops, all noinline
// CHECK: MERGED step: 0 outlined loops with the body of another
// CHECK: GLUE step: _mlir_step optnone
// CHECK: NOT OUTLINED step: 0 loops with --outline-loops=false, _mlir_step not optnone
// CHECK: PASS step.
// CHECK: PASS stack.a0_wq:
// CHECK: ALL CHECKS PASSED
func.func @loss(%a0_lns: tensor<8xf64>, %a0_lno: tensor<8xf64>, %a0_wq: tensor<8x8xf64>, %a0_bq: tensor<8xf64>, %a0_wk: tensor<8x8xf64>, %a0_bk: tensor<8xf64>, %a0_wv: tensor<8x8xf64>, %a0_bv: tensor<8xf64>, %a0_wo: tensor<8x8xf64>, %a0_bo: tensor<8xf64>, %f0_lns: tensor<8xf64>, %f0_lno: tensor<8xf64>, %f0_w1: tensor<8x16xf64>, %f0_b1: tensor<16xf64>, %f0_w2: tensor<16x8xf64>, %f0_b2: tensor<8xf64>, %a1_lns: tensor<8xf64>, %a1_lno: tensor<8xf64>, %a1_wq: tensor<8x8xf64>, %a1_bq: tensor<8xf64>, %a1_wk: tensor<8x8xf64>, %a1_bk: tensor<8xf64>, %a1_wv: tensor<8x8xf64>, %a1_bv: tensor<8xf64>, %a1_wo: tensor<8x8xf64>, %a1_bo: tensor<8xf64>, %f1_lns: tensor<8xf64>, %f1_lno: tensor<8xf64>, %f1_w1: tensor<8x16xf64>, %f1_b1: tensor<16xf64>, %f1_w2: tensor<16x8xf64>, %f1_b2: tensor<8xf64>, %x1: tensor<1x6x8xf64>, %x2: tensor<1x6x8xf64>, %c: tensor<1x6x8xf64>) -> tensor<f64> {
  %h1:2 = nn.reversible_half_residual %x1, %x2 : tensor<1x6x8xf64>, tensor<1x6x8xf64> {
  ^bb0(%u2: tensor<1x6x8xf64>):
    %ln3 = nn.layer_norm %u2, %a0_lns, %a0_lno : (tensor<1x6x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d4 = nn.dense %ln3, %a0_wq, %a0_bq : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d5 = nn.dense %ln3, %a0_wk, %a0_bk : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d6 = nn.dense %ln3, %a0_wv, %a0_bv : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %att7 = nn.attention %d4, %d5, %d6 {num_heads = 2 : i64, causal = true} : (tensor<1x6x8xf64>, tensor<1x6x8xf64>, tensor<1x6x8xf64>) -> tensor<1x6x8xf64>
    %d8 = nn.dense %att7, %a0_wo, %a0_bo : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    nn.yield %d8 : tensor<1x6x8xf64>
  }
  %s9:2 = nn.reversible_swap %h1#0, %h1#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64>
  %h10:2 = nn.reversible_half_residual %s9#0, %s9#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64> {
  ^bb0(%u11: tensor<1x6x8xf64>):
    %ln12 = nn.layer_norm %u11, %f0_lns, %f0_lno : (tensor<1x6x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d13 = nn.dense %ln12, %f0_w1, %f0_b1 : (tensor<1x6x8xf64>, tensor<8x16xf64>, tensor<16xf64>) -> tensor<1x6x16xf64>
    %g14 = nn.gelu %d13 : tensor<1x6x16xf64>
    %d15 = nn.dense %g14, %f0_w2, %f0_b2 : (tensor<1x6x16xf64>, tensor<16x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    nn.yield %d15 : tensor<1x6x8xf64>
  }
  %s16:2 = nn.reversible_swap %h10#0, %h10#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64>
  %h17:2 = nn.reversible_half_residual %s16#0, %s16#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64> {
  ^bb0(%u18: tensor<1x6x8xf64>):
    %ln19 = nn.layer_norm %u18, %a1_lns, %a1_lno : (tensor<1x6x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d20 = nn.dense %ln19, %a1_wq, %a1_bq : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d21 = nn.dense %ln19, %a1_wk, %a1_bk : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d22 = nn.dense %ln19, %a1_wv, %a1_bv : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %att23 = nn.attention %d20, %d21, %d22 {num_heads = 2 : i64, causal = true} : (tensor<1x6x8xf64>, tensor<1x6x8xf64>, tensor<1x6x8xf64>) -> tensor<1x6x8xf64>
    %d24 = nn.dense %att23, %a1_wo, %a1_bo : (tensor<1x6x8xf64>, tensor<8x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    nn.yield %d24 : tensor<1x6x8xf64>
  }
  %s25:2 = nn.reversible_swap %h17#0, %h17#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64>
  %h26:2 = nn.reversible_half_residual %s25#0, %s25#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64> {
  ^bb0(%u27: tensor<1x6x8xf64>):
    %ln28 = nn.layer_norm %u27, %f1_lns, %f1_lno : (tensor<1x6x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    %d29 = nn.dense %ln28, %f1_w1, %f1_b1 : (tensor<1x6x8xf64>, tensor<8x16xf64>, tensor<16xf64>) -> tensor<1x6x16xf64>
    %g30 = nn.gelu %d29 : tensor<1x6x16xf64>
    %d31 = nn.dense %g30, %f1_w2, %f1_b2 : (tensor<1x6x16xf64>, tensor<16x8xf64>, tensor<8xf64>) -> tensor<1x6x8xf64>
    nn.yield %d31 : tensor<1x6x8xf64>
  }
  %s32:2 = nn.reversible_swap %h26#0, %h26#1 : tensor<1x6x8xf64>, tensor<1x6x8xf64>
  %sum = arith.addf %s32#0, %s32#1 : tensor<1x6x8xf64>
  %w = arith.mulf %sum, %c : tensor<1x6x8xf64>
  %l = nn.mean %w : (tensor<1x6x8xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @step(%a0_lns: tensor<8xf64>, %a0_lno: tensor<8xf64>, %a0_wq: tensor<8x8xf64>, %a0_bq: tensor<8xf64>, %a0_wk: tensor<8x8xf64>, %a0_bk: tensor<8xf64>, %a0_wv: tensor<8x8xf64>, %a0_bv: tensor<8xf64>, %a0_wo: tensor<8x8xf64>, %a0_bo: tensor<8xf64>, %f0_lns: tensor<8xf64>, %f0_lno: tensor<8xf64>, %f0_w1: tensor<8x16xf64>, %f0_b1: tensor<16xf64>, %f0_w2: tensor<16x8xf64>, %f0_b2: tensor<8xf64>, %a1_lns: tensor<8xf64>, %a1_lno: tensor<8xf64>, %a1_wq: tensor<8x8xf64>, %a1_bq: tensor<8xf64>, %a1_wk: tensor<8x8xf64>, %a1_bk: tensor<8xf64>, %a1_wv: tensor<8x8xf64>, %a1_bv: tensor<8xf64>, %a1_wo: tensor<8x8xf64>, %a1_bo: tensor<8xf64>, %f1_lns: tensor<8xf64>, %f1_lno: tensor<8xf64>, %f1_w1: tensor<8x16xf64>, %f1_b1: tensor<16xf64>, %f1_w2: tensor<16x8xf64>, %f1_b2: tensor<8xf64>, %x1: tensor<1x6x8xf64>, %x2: tensor<1x6x8xf64>, %c: tensor<1x6x8xf64>) -> (tensor<f64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>) {
  %l, %g:32 = ad.value_and_grad @loss(%a0_lns, %a0_lno, %a0_wq, %a0_bq, %a0_wk, %a0_bk, %a0_wv, %a0_bv, %a0_wo, %a0_bo, %f0_lns, %f0_lno, %f0_w1, %f0_b1, %f0_w2, %f0_b2, %a1_lns, %a1_lno, %a1_wq, %a1_bq, %a1_wk, %a1_bk, %a1_wv, %a1_bv, %a1_wo, %a1_bo, %f1_lns, %f1_lno, %f1_w1, %f1_b1, %f1_w2, %f1_b2, %x1, %x2, %c)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31>}
      : (tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>, tensor<1x6x8xf64>, tensor<1x6x8xf64>, tensor<1x6x8xf64>) -> (tensor<f64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>)
  return %l, %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9, %g#10, %g#11, %g#12, %g#13, %g#14, %g#15, %g#16, %g#17, %g#18, %g#19, %g#20, %g#21, %g#22, %g#23, %g#24, %g#25, %g#26, %g#27, %g#28, %g#29, %g#30, %g#31 : tensor<f64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8x16xf64>, tensor<16xf64>, tensor<16x8xf64>, tensor<8xf64>
}

