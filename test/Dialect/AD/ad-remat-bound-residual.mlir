// RUN: trellis-opt %s --ad-remat="policy=budget budget=45000 exact-limit=0 print-predictions=true" -o /dev/null 2>&1 | FileCheck %s

// ad-remat's lower bound on a residual chain (r_i = r_(i-1) + tanh(dense
// r_(i-1)), batch 64, width 32): each dense layer's input gradient is a GEMM
// added to the cotangent flowing down the residual stream, and
// trellis-fuse-gemm-updates has the GEMM accumulate into that cotangent's
// buffer instead of allocating its own. The model counted a buffer there,
// so with everything stored it exceeded the lowered code's peak (61952
// against 53696 bytes) and voided every claim of the bound; it now counts
// what the lowering holds. Where the addition is fused into the next
// element-wise op instead (the tanh gradient below a checkpoint), the GEMM's
// result keeps a buffer of its own, and the model counts it: at 84 % of the
// store-all peak the schedule chosen costs exactly the bound (1.886 x before).
// CHECK: remark: ad-remat: schedule none: predicted peak 53696 bytes, recomputation cost 0, lower-bound model 53696 bytes
// CHECK-NOT: no lower bound
// CHECK: remark: ad-remat: checkpointing layers [0-1] [3-4] of 10; predicted peak 41536 bytes within the budget of 45000 {{.*}}; every schedule within the budget recomputes at least 135168 (this one 1.000 x that lower bound), checked against {{[0-9]+}} predictions
func.func @chain(%x: tensor<64x32xf32>, %w0: tensor<32x32xf32>, %b0: tensor<32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x32xf32>, %b2: tensor<32xf32>) -> tensor<f32> {
  %a0 = nn.dense %x, %w0, %b0 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %t0 = nn.tanh %a0 : tensor<64x32xf32>
  %r0 = arith.addf %x, %t0 : tensor<64x32xf32>
  %a1 = nn.dense %r0, %w1, %b1 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %t1 = nn.tanh %a1 : tensor<64x32xf32>
  %r1 = arith.addf %r0, %t1 : tensor<64x32xf32>
  %a2 = nn.dense %r1, %w2, %b2 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %t2 = nn.tanh %a2 : tensor<64x32xf32>
  %r2 = arith.addf %r1, %t2 : tensor<64x32xf32>
  %l = nn.mean %r2 : (tensor<64x32xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grads(%x: tensor<64x32xf32>, %w0: tensor<32x32xf32>, %b0: tensor<32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x32xf32>, %b2: tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>) {
  %g:6 = ad.grad @chain(%x, %w0, %b0, %w1, %b1, %w2, %b2) {argnums = array<i64: 1, 2, 3, 4, 5, 6>} : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5 : tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>
}
