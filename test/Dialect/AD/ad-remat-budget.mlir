// RUN: trellis-opt %s --ad-remat="policy=budget budget=150000" 2>&1 | FileCheck %s --check-prefix=CHECK-MID
// RUN: trellis-opt %s --ad-remat="policy=budget budget=160000" 2>&1 | FileCheck %s --check-prefix=CHECK-LOOSE
// RUN: trellis-opt %s --ad-remat="policy=budget budget=130000" 2>&1 | FileCheck %s --check-prefix=CHECK-TIGHT

// The budget policy's schedule on a chain of wide (32x128) and narrow (32x8)
// layers: dense 8→128, tanh, dense 128→8, relu, dense 8→8, tanh, dense 8→128,
// relu, dense 128→8, tanh, dense, relu, dense, tanh, mean. Checkpoints
// start after the expensive wide dense layers and end at narrow activations;
// uniform segments of 2 (the best that fits) recompute 14 layers.
// CHECK-MID: remark: ad-remat: checkpointing layers [1-5] [9-11] of 15; estimated peak 149284 bytes within the budget of 150000 (all stored: 171172); recomputes 8 layers, cost 41984; best uniform segments: every 2, 14 layers, cost 146688
// CHECK-MID-LABEL: func.func @mixed
// CHECK-MID: %[[D0:.*]] = nn.dense %{{.*}} -> tensor<32x128xf32>
// CHECK-MID: %[[C0:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-MID:   nn.tanh %[[D0]] : tensor<32x128xf32>
// CHECK-MID:   nn.dense
// CHECK-MID:   nn.relu
// CHECK-MID:   nn.dense
// CHECK-MID:   %[[T:.*]] = nn.tanh
// CHECK-MID:   ad.yield %[[T]] : tensor<32x8xf32>
// CHECK-MID: nn.dense %[[C0]]
// CHECK-MID: nn.relu
// CHECK-MID: %[[D4:.*]] = nn.dense
// CHECK-MID: %[[C1:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-MID:   nn.tanh %[[D4]]
// CHECK-MID:   nn.dense
// CHECK-MID:   %[[R:.*]] = nn.relu
// CHECK-MID:   ad.yield %[[R]]
// CHECK-MID: nn.dense %[[C1]]
// CHECK-MID-NOT: ad.checkpoint
// A looser budget: one segment, the wide tanh and the dense after it.
// CHECK-LOOSE: remark: ad-remat: checkpointing layers [1-2] of 15; estimated peak 154724 bytes within the budget of 160000 (all stored: 171172); recomputes 2 layers, cost 36864; best uniform segments: every 2, 14 layers, cost 146688
// CHECK-LOOSE-LABEL: func.func @mixed
// CHECK-LOOSE: %[[D0:.*]] = nn.dense
// CHECK-LOOSE: ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-LOOSE-NEXT: nn.tanh %[[D0]]
// CHECK-LOOSE-NEXT: %[[D1:.*]] = nn.dense
// CHECK-LOOSE-NEXT: ad.yield %[[D1]]
// CHECK-LOOSE-NOT: ad.checkpoint
// The smallest feasible budget: no uniform segment length fits.
// CHECK-TIGHT: remark: ad-remat: checkpointing layers [0-2] [3-5] [6-7] of 15; estimated peak 129504 bytes within the budget of 130000 (all stored: 171172); recomputes 8 layers, cost 109056; best uniform segments: none fits
// CHECK-TIGHT-LABEL: func.func @mixed
// CHECK-TIGHT: %[[A:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-TIGHT-NEXT: nn.dense %arg0
// CHECK-TIGHT-NEXT: nn.tanh
// CHECK-TIGHT-NEXT: %[[Y0:.*]] = nn.dense
// CHECK-TIGHT-NEXT: ad.yield %[[Y0]] : tensor<32x8xf32>
// CHECK-TIGHT: %[[B:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x8xf32> {
// CHECK-TIGHT-NEXT: nn.relu %[[A]]
// CHECK-TIGHT-NEXT: nn.dense
// CHECK-TIGHT-NEXT: %[[Y1:.*]] = nn.tanh
// CHECK-TIGHT-NEXT: ad.yield %[[Y1]] : tensor<32x8xf32>
// CHECK-TIGHT: %[[C:.*]] = ad.checkpoint {policy = "remat"} -> tensor<32x128xf32> {
// CHECK-TIGHT-NEXT: nn.dense %[[B]]
// CHECK-TIGHT-NEXT: %[[Y2:.*]] = nn.relu
// CHECK-TIGHT-NEXT: ad.yield %[[Y2]] : tensor<32x128xf32>
// CHECK-TIGHT: nn.dense %[[C]]
// CHECK-TIGHT-NOT: ad.checkpoint
// CHECK-TIGHT: nn.mean
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
