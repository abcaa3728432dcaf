// A two-layer MLP classifier's forward pass: dense → gelu → dense → softmax
// cross-entropy. Returns the mean loss and the logits.
//
//   trellis-run mlp.mlir --entry=forward --input=x.npy --input=w1.npy \
//     --input=b1.npy --input=w2.npy --input=b2.npy --input=y.npy
func.func @forward(%x: tensor<64x64xf32>,
                   %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                   %w2: tensor<128x10xf32>, %b2: tensor<10xf32>,
                   %labels: tensor<64xi32>) -> (tensor<f32>, tensor<64x10xf32>) {
  %h = nn.dense %x, %w1, %b1
      : (tensor<64x64xf32>, tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %a = nn.gelu %h : tensor<64x128xf32>
  %logits = nn.dense %a, %w2, %b2
      : (tensor<64x128xf32>, tensor<128x10xf32>, tensor<10xf32>) -> tensor<64x10xf32>
  %loss = nn.cross_entropy %logits, %labels
      : (tensor<64x10xf32>, tensor<64xi32>) -> tensor<f32>
  return %loss, %logits : tensor<f32>, tensor<64x10xf32>
}
