// The model of ../idx-data.test: @eval reports statistics of the whole IDX
// dataset (12 examples of 2x3 bytes) that idx_data.py compares with NumPy.
func.func @train_step(%w: tensor<f32> {trellis.init = "zeros"}, %x: tensor<4x2x3xf32> {trellis.batch = "x"}, %y: tensor<4xi32> {trellis.batch = "y"}) -> (tensor<f32>, tensor<f32>) {
  %l = nn.mean %x : (tensor<4x2x3xf32>) -> tensor<f32>
  return %w, %l : tensor<f32>, tensor<f32>
}

func.func @eval(%w: tensor<f32>, %x: tensor<12x2x3xf32> {trellis.batch = "x"}, %y: tensor<12xi32> {trellis.batch = "y"}) -> (tensor<f32> {trellis.name = "mean_x"}, tensor<f32> {trellis.name = "mean_y"}, tensor<f32> {trellis.name = "x_5_1_2"}, tensor<f32> {trellis.name = "y_7"}) {
  %mx = nn.mean %x : (tensor<12x2x3xf32>) -> tensor<f32>
  %yf = arith.sitofp %y : tensor<12xi32> to tensor<12xf32>
  %my = nn.mean %yf : (tensor<12xf32>) -> tensor<f32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %e = tensor.extract %x[%c5, %c1, %c2] : tensor<12x2x3xf32>
  %xe = tensor.from_elements %e : tensor<f32>
  %ye = tensor.extract %yf[%c7] : tensor<12xf32>
  %yt = tensor.from_elements %ye : tensor<f32>
  return %mx, %my, %xe, %yt : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
