// RUN: trellis-opt %s -split-input-file --ad-remat="policy=every every=2" | FileCheck %s --check-prefix=EVERY
// RUN: trellis-opt %s -split-input-file --ad-remat="policy=budget budget=1000000" 2>&1 | FileCheck %s --check-prefix=ROOMY
// RUN: trellis-opt %s -split-input-file --ad-remat="policy=budget budget=40000" 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: trellis-opt %s -split-input-file --ad-remat | FileCheck %s --check-prefix=STORE
// RUN: not trellis-opt %s -split-input-file --ad-remat="policy=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// Four layers of 16 KiB each (dense, tanh, dense, tanh), then the loss.
// EVERY-LABEL: func.func @chain
// EVERY: %[[A:.*]] = ad.checkpoint {policy = "remat"} -> tensor<256x16xf32> {
// EVERY:   nn.dense %{{.*}}, %{{.*}}, %{{.*}}
// EVERY:   %[[T:.*]] = nn.tanh
// EVERY:   ad.yield %[[T]]
// EVERY: %[[B:.*]] = ad.checkpoint {policy = "remat"} -> tensor<256x16xf32> {
// EVERY:   nn.dense %[[A]]
// EVERY: nn.mean %[[B]]
// Functions that nothing differentiates are left alone.
// EVERY-LABEL: func.func @not_differentiated
// EVERY-NOT: ad.checkpoint
// ROOMY: remark: ad-remat: activations (65540 bytes) fit in the budget of 1000000 bytes; all stored
// TIGHT: remark: ad-remat: no segment length lowers the estimated activation peak below storing everything (65540 bytes), which is above the budget of 40000 bytes; all stored
// STORE-NOT: ad.checkpoint
// BAD: ad-remat: unknown policy 'sometimes' (expected store, every or budget)
func.func @chain(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h0 = nn.tanh %d0 : tensor<256x16xf32>
  %d1 = nn.dense %h0, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h1 = nn.tanh %d1 : tensor<256x16xf32>
  %l = nn.mean %h1 : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @not_differentiated(%x: tensor<256x16xf32>) -> tensor<256x16xf32> {
  %t = nn.tanh %x : tensor<256x16xf32>
  %u = nn.tanh %t : tensor<256x16xf32>
  return %u : tensor<256x16xf32>
}
func.func @use(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %g = ad.grad @chain(%x, %w, %b) {argnums = array<i64: 1>} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  return %g : tensor<16x16xf32>
}
