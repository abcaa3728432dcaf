// RUN: trellis-opt %s --ad-remat="policy=budget budget=80000" 2>&1 | FileCheck %s --check-prefix=CHECK-STORE
// RUN: trellis-opt %s --ad-remat="policy=budget budget=55000" 2>&1 | FileCheck %s --check-prefix=CHECK-MID
// RUN: trellis-opt %s --ad-remat="policy=budget budget=38144" 2>&1 | FileCheck %s --check-prefix=CHECK-TIGHT
// RUN: not trellis-opt %s --ad-remat="policy=budget budget=38143" 2>&1 | FileCheck %s --check-prefix=CHECK-BELOW
// RUN: not trellis-opt %s --ad-remat="policy=budget budget=4095" 2>&1 | FileCheck %s --check-prefix=CHECK-FLOOR

// The budget policy's schedule on a chain of wide (32x128) and narrow (32x8)
// layers: dense 8→128, tanh, dense 128→8, relu, dense 8→8, tanh, dense 8→128,
// relu, dense 128→8, tanh, dense, relu, dense, tanh, mean, differentiated
// with respect to the first weight. The peaks are those of the lowered code
// (remat/budget.test checks such predictions against trellis-run --stats).
// Storing everything takes 56768 bytes: a budget above it recomputes nothing.
// CHECK-STORE: remark: ad-remat: predicted peak with every activation stored (56768 bytes) fits in the budget of 80000 bytes; all stored
// CHECK-STORE-NOT: ad.checkpoint
// Slightly below: one checkpoint from the first narrow dense to the narrow
// tanh, after the wide tanh (whose output the gradient needs anyway).
// CHECK-MID: remark: ad-remat: checkpointing layers [2-5] of 15; predicted peak 54592 bytes within the budget of 55000 (all stored: 56768); recomputes 4 layers, cost 35328 (0.24 forward passes), the least of {{[0-9]+}} schedules predicted; best uniform segments: every 7, 14 layers, cost 146688; the lower bound is 0 (its model fits the budget with every activation stored), checked against {{[0-9]+}} predictions
// CHECK-MID-LABEL: func.func @mixed
// CHECK-MID: %[[D0:.*]] = nn.dense %{{.*}} -> tensor<32x128xf32>
// CHECK-MID: %[[T0:.*]] = nn.tanh %[[D0]] : tensor<32x128xf32>
// CHECK-MID: %[[C0:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-MID-NEXT:   nn.dense %[[T0]]
// CHECK-MID-NEXT:   nn.relu
// CHECK-MID-NEXT:   nn.dense
// CHECK-MID-NEXT:   %[[T:.*]] = nn.tanh
// CHECK-MID-NEXT:   ad.yield %[[T]] : tensor<32x8xf32>
// CHECK-MID: nn.dense %[[C0]]
// CHECK-MID-NOT: ad.checkpoint
// CHECK-MID: nn.mean
// The smallest feasible budget: the first six layers checkpointed, up to the
// narrow tanh.
// CHECK-TIGHT: remark: ad-remat: checkpointing layers [0-5] of 15; predicted peak 38144 bytes within the budget of 38144 (all stored: 56768); recomputes 6 layers
// CHECK-TIGHT-LABEL: func.func @mixed
// CHECK-TIGHT: %[[A:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-TIGHT-NEXT: nn.dense %arg0
// CHECK-TIGHT-COUNT-4: nn.
// CHECK-TIGHT-NEXT: %[[Y0:.*]] = nn.tanh
// CHECK-TIGHT-NEXT: ad.yield %[[Y0]] : tensor<32x8xf32>
// CHECK-TIGHT: nn.dense %[[A]]
// CHECK-TIGHT-NOT: ad.checkpoint
// CHECK-TIGHT: nn.mean
// One byte less is an error naming that peak and its schedule.
// CHECK-BELOW: error: ad-remat: budget of 38143 bytes is infeasible: the smallest predicted peak of any checkpointing schedule is 38144 bytes (all stored: 56768; schedule [0-5]){{$}}
// Far below, the error names the lower bound's floor (RematBound.h): no
// schedule of nested checkpoints holds less than 32896 bytes at once, more
// than @use's result (the 8x128 f32 gradient, 4096 bytes), the floor named
// when the bound is not available.
// CHECK-FLOOR: error: ad-remat: budget of 4095 bytes is infeasible: {{.*}}; no schedule of nested checkpoints goes below 32896 bytes (the lower bound's model, checked against {{[0-9]+}} predictions){{$}}
func.func @mixed(%x: tensor<32x8xf32>, %w0: tensor<8x128xf32>, %b0: tensor<128xf32>, %w1: tensor<128x8xf32>, %b1: tensor<8xf32>, %w2: tensor<8x8xf32>, %b2: tensor<8xf32>, %w3: tensor<8x128xf32>, %b3: tensor<128xf32>, %w4: tensor<128x8xf32>, %b4: tensor<8xf32>, %w5: tensor<8x8xf32>, %b5: tensor<8xf32>, %w6: tensor<8x8xf32>, %b6: tensor<8xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w0, %b0 : (tensor<32x8xf32>, tensor<8x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %h0 = nn.tanh %d0 : tensor<32x128xf32>
  %d1 = nn.dense %h0, %w1, %b1 : (tensor<32x128xf32>, tensor<128x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %h1 = nn.relu %d1 : tensor<32x8xf32>
  %d2 = nn.dense %h1, %w2, %b2 : (tensor<32x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %h2 = nn.tanh %d2 : tensor<32x8xf32>
  %d3 = nn.dense %h2, %w3, %b3 : (tensor<32x8xf32>, tensor<8x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %h3 = nn.relu %d3 : tensor<32x128xf32>
  %d4 = nn.dense %h3, %w4, %b4 : (tensor<32x128xf32>, tensor<128x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %h4 = nn.tanh %d4 : tensor<32x8xf32>
  %d5 = nn.dense %h4, %w5, %b5 : (tensor<32x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %h5 = nn.relu %d5 : tensor<32x8xf32>
  %d6 = nn.dense %h5, %w6, %b6 : (tensor<32x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<32x8xf32>
  %h6 = nn.tanh %d6 : tensor<32x8xf32>
  %l = nn.mean %h6 : (tensor<32x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @use(%x: tensor<32x8xf32>, %w0: tensor<8x128xf32>, %b0: tensor<128xf32>, %w1: tensor<128x8xf32>, %b1: tensor<8xf32>, %w2: tensor<8x8xf32>, %b2: tensor<8xf32>, %w3: tensor<8x128xf32>, %b3: tensor<128xf32>, %w4: tensor<128x8xf32>, %b4: tensor<8xf32>, %w5: tensor<8x8xf32>, %b5: tensor<8xf32>, %w6: tensor<8x8xf32>, %b6: tensor<8xf32>) -> tensor<8x128xf32> {
  %g = ad.grad @mixed(%x, %w0, %b0, %w1, %b1, %w2, %b2, %w3, %b3, %w4, %b4, %w5, %b5, %w6, %b6) {argnums = array<i64: 1>} : (tensor<32x8xf32>, tensor<8x128xf32>, tensor<128xf32>, tensor<128x8xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8x128xf32>, tensor<128xf32>, tensor<128x8xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x128xf32>
  return %g : tensor<8x128xf32>
}
