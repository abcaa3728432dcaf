// An entry that returns its argument (unreadable-files.test).
func.func @noop(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
