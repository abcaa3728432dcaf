// RUN: trellis-opt %s --ad-remat="policy=budget budget=41068" 2>&1 | FileCheck %s --check-prefix=CHECK-FIT
// RUN: not trellis-opt %s --ad-remat="policy=budget budget=36505" 2>&1 | FileCheck %s --check-prefix=CHECK-BELOW
// RUN: trellis-opt %s --ad-remat="policy=budget budget=41068 print-predictions=true" 2>&1 | FileCheck %s --check-prefix=CHECK-MODEL

// ad-remat's lower bound (lib/Dialect/AD/Transforms/RematBound.h) on a
// 4-layer dense/tanh chain (batch 64, width 32) differentiated with respect
// to every weight and bias; storing everything peaks at 45632 bytes.
//
// At 90 % the schedule chosen, the first three layers checkpointed, costs
// what the bound proves every schedule within the budget costs at least: it
// is optimal among schedules of nested checkpoints.
// CHECK-FIT: remark: ad-remat: checkpointing layers [0-2] of 9; predicted peak 37824 bytes within the budget of 41068 (all stored: 45632); recomputes 3 layers, cost 133120 (0.49 forward passes), {{.*}}; every schedule within the budget recomputes at least 133120 (this one 1.000 x that lower bound), checked against {{[0-9]+}} predictions
// CHECK-FIT: ad.checkpoint
//
// At 80 % no schedule the pass compares fits, and the bound proves that
// none can: every schedule of nested checkpoints holds at least 37632 bytes
// at once (the gradients, the cotangent and what the last layers' rules
// read), which the smallest schedule found reaches.
// CHECK-BELOW: error: ad-remat: budget of 36505 bytes is infeasible: the smallest predicted peak of any checkpointing schedule is 37632 bytes (all stored: 45632; schedule [0-3 [0-1]] [4-5]); no schedule of nested checkpoints goes below 37632 bytes (the lower bound's model, checked against {{[0-9]+}} predictions){{$}}
//
// The model never exceeds the prediction; storing everything, it equals it.
// CHECK-MODEL: remark: ad-remat: schedule none: predicted peak 45632 bytes, recomputation cost 0, lower-bound model 45632 bytes

func.func @chain(%x: tensor<64x32xf32>, %w0: tensor<32x32xf32>, %b0: tensor<32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x32xf32>, %b2: tensor<32xf32>, %w3: tensor<32x32xf32>, %b3: tensor<32xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w0, %b0 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h0 = nn.tanh %d0 : tensor<64x32xf32>
  %d1 = nn.dense %h0, %w1, %b1 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h1 = nn.tanh %d1 : tensor<64x32xf32>
  %d2 = nn.dense %h1, %w2, %b2 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h2 = nn.tanh %d2 : tensor<64x32xf32>
  %d3 = nn.dense %h2, %w3, %b3 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %h3 = nn.tanh %d3 : tensor<64x32xf32>
  %l = nn.mean %h3 : (tensor<64x32xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grads(%x: tensor<64x32xf32>, %w0: tensor<32x32xf32>, %b0: tensor<32xf32>, %w1: tensor<32x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x32xf32>, %b2: tensor<32xf32>, %w3: tensor<32x32xf32>, %b3: tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>) {
  %g:8 = ad.grad @chain(%x, %w0, %b0, %w1, %b1, %w2, %b2, %w3, %b3) {argnums = array<i64: 1, 2, 3, 4, 5, 6, 7, 8>} : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7 : tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>
}
