// RUN: trellis-opt %s --ad-remat="policy=budget budget=45000" -verify-diagnostics

// The 4-layer chain of ad-remat.mlir: whatever the segments, the predicted
// peak of the lowered code (inputs, gradients and the activations the
// backward pass needs) is that of storing everything, 50432 bytes, so a
// 45000-byte budget is an error rather than a schedule that exceeds it; the
// lower bound proves it: no schedule goes below 50432 bytes.
// expected-error @+1 {{ad-remat: budget of 45000 bytes is infeasible: the smallest predicted peak of any checkpointing schedule is 50432 bytes (all stored: 50432; schedule none); no schedule of nested checkpoints goes below 50432 bytes}}
func.func @chain(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h0 = nn.tanh %d0 : tensor<256x16xf32>
  %d1 = nn.dense %h0, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h1 = nn.tanh %d1 : tensor<256x16xf32>
  %l = nn.mean %h1 : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @use(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %g = ad.grad @chain(%x, %w, %b) {argnums = array<i64: 1>} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  return %g : tensor<16x16xf32>
}
