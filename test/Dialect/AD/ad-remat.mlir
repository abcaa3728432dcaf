// RUN: trellis-opt %s -split-input-file --ad-remat="policy=every every=2" | FileCheck %s --check-prefix=CHECK-EVERY
// RUN: trellis-opt %s -split-input-file --ad-remat="policy=budget budget=1000000" 2>&1 | FileCheck %s --check-prefix=CHECK-ROOMY
// RUN: trellis-opt %s -split-input-file --ad-remat="policy=budget budget=50432" 2>&1 | FileCheck %s --check-prefix=CHECK-EXACT
// RUN: trellis-opt %s -split-input-file --ad-remat | FileCheck %s --check-prefix=CHECK-STORE
// RUN: not trellis-opt %s -split-input-file --ad-remat="policy=sometimes" 2>&1 | FileCheck %s --check-prefix=CHECK-BAD

// Four layers of 16 KiB each (dense, tanh, dense, tanh), then the loss.
// CHECK-EVERY-LABEL: func.func @chain
// CHECK-EVERY: %[[A:.*]] = ad.checkpoint {policy = "remat"} -> tensor<256x16xf32> {
// CHECK-EVERY:   nn.dense %{{.*}}, %{{.*}}, %{{.*}}
// CHECK-EVERY:   %[[T:.*]] = nn.tanh
// CHECK-EVERY:   ad.yield %[[T]]
// CHECK-EVERY: %[[B:.*]] = ad.checkpoint {policy = "remat"} -> tensor<256x16xf32> {
// CHECK-EVERY:   nn.dense %[[A]]
// CHECK-EVERY: nn.mean %[[B]]
// Functions that nothing differentiates are left alone.
// CHECK-EVERY-LABEL: func.func @not_differentiated
// CHECK-EVERY-NOT: ad.checkpoint
// CHECK-ROOMY: remark: ad-remat: predicted peak with every activation stored (50432 bytes) fits in the budget of 1000000 bytes; all stored
// CHECK-ROOMY-NOT: ad.checkpoint
// A budget of exactly the predicted peak of storing everything (of the
// lowered code: the gradient needs both tanh outputs and the inputs of both
// dense layers, so no checkpoint lowers it) still stores everything.
// CHECK-EXACT: remark: ad-remat: predicted peak with every activation stored (50432 bytes) fits in the budget of 50432 bytes; all stored
// CHECK-EXACT-NOT: ad.checkpoint
// CHECK-STORE-NOT: ad.checkpoint
// CHECK-BAD: for the --policy option: Cannot find option named 'sometimes'!
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
