// A training step for the trellis-train runs of test/Fuzz: the data file is
// read, and rejected, before the module is compiled.
func.func @train_step(%w: tensor<4xf32>,
                      %x: tensor<8x4xf32> {trellis.batch = "x"})
    -> (tensor<4xf32>, tensor<f32>) {
  %l = nn.mean %x : (tensor<8x4xf32>) -> tensor<f32>
  return %w, %l : tensor<4xf32>, tensor<f32>
}
