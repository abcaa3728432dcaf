// A real forward pass of a 3-layer MLP with a softmax cross-entropy loss,
// against a float64 NumPy reference: f32 within 1e-5 relative, and the same
// model with f64 tensors within 1e-12 (see trellis_testing/run.py).
// REQUIRES: numpy
// RUN: %python %S/mlp_cross_entropy.py %s %t.f32 | FileCheck %s
// RUN: %python %S/mlp_cross_entropy.py %s %t.f64 --dtype=f64 | FileCheck %s

// CHECK: PASS mlp.loss:
// CHECK: PASS mlp.logits:
// CHECK: PASS mlp_tanh.loss:
// CHECK: PASS mlp_tanh.logits:
// CHECK: PASS cross_entropy_bad_labels:
// CHECK: ALL CHECKS PASSED

// dense 32->64, exact gelu, dense 64->64, relu, dense 64->10, cross-entropy.
func.func @mlp(%x: tensor<16x32xf32>,
               %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
               %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
               %w3: tensor<64x10xf32>, %b3: tensor<10xf32>,
               %labels: tensor<16xi32>) -> (tensor<f32>, tensor<16x10xf32>) {
  %h1 = nn.dense %x, %w1, %b1
      : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %a1 = nn.gelu %h1 : tensor<16x64xf32>
  %h2 = nn.dense %a1, %w2, %b2
      : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %a2 = nn.relu %h2 : tensor<16x64xf32>
  %logits = nn.dense %a2, %w3, %b3
      : (tensor<16x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<16x10xf32>
  %loss = nn.cross_entropy %logits, %labels
      : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<16x10xf32>
}

// The same network with the tanh-form gelu and a tanh activation.
func.func @mlp_tanh(%x: tensor<16x32xf32>,
                    %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
                    %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                    %w3: tensor<64x10xf32>, %b3: tensor<10xf32>,
                    %labels: tensor<16xi32>) -> (tensor<f32>, tensor<16x10xf32>) {
  %h1 = nn.dense %x, %w1, %b1
      : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %a1 = nn.gelu %h1 {approximate = true} : tensor<16x64xf32>
  %h2 = nn.dense %a1, %w2, %b2
      : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %a2 = nn.tanh %h2 : tensor<16x64xf32>
  %logits = nn.dense %a2, %w3, %b3
      : (tensor<16x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<16x10xf32>
  %loss = nn.cross_entropy %logits, %labels
      : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<16x10xf32>
}

// Labels outside [0, C) pick no logit: their term is the log-sum-exp alone.
func.func @cross_entropy_bad_labels(%logits: tensor<6x5xf32>,
                                    %labels: tensor<6xi32>) -> tensor<f32> {
  %loss = nn.cross_entropy %logits, %labels
      : (tensor<6x5xf32>, tensor<6xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
