// A one-layer model for the embedding examples: relu(x · w + b).
//
// With x = [[1, 2, 3], [4, 5, 6]], w = [[1, -1], [0, 1], [1, -2]] and
// b = [0.5, -1]: x · w = [[4, -5], [10, -11]], plus b [[4.5, -6], [10.5, -12]],
// so the result is [[4.5, 0], [10.5, 0]].
func.func @predict(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>,
                   %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %h = nn.dense %x, %w, %b
      : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = nn.relu %h : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
