// Functions compiled ahead of time by aot.test.

// relu(x · w + b), as examples/embedding/model.mlir.
func.func @predict(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>,
                   %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %h = nn.dense %x, %w, %b
      : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = nn.relu %h : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// A scalar argument and two results, the second the argument itself.
func.func @scale(%x: tensor<4xf64>, %a: f64) -> (tensor<4xf64>, tensor<4xf64>) {
  %s = tensor.splat %a : tensor<4xf64>
  %y = arith.mulf %x, %s : tensor<4xf64>
  return %y, %x : tensor<4xf64>, tensor<4xf64>
}

// One scalar result, returned by value.
func.func @last(%x: tensor<3xi32>) -> i32 {
  %c2 = arith.constant 2 : index
  %v = tensor.extract %x[%c2] : tensor<3xi32>
  return %v : i32
}
