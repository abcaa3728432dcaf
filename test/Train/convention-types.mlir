// The new parameters must come back with the parameters' types, then the loss.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.zeros((8, 4), np.float32))"
// RUN: not trellis-train %s --data=%t.npz --output-dir=%t.out 2>&1 | FileCheck %s

// CHECK: trellis-train: error: @train_step: result 0 has type tensor<3xf32> but parameter 0 has type tensor<4xf32>

func.func @train_step(%w: tensor<4xf32>, %x: tensor<8x4xf32> {trellis.batch = "x"}) -> (tensor<3xf32>, tensor<f32>) {
  %l = nn.mean %x : (tensor<8x4xf32>) -> tensor<f32>
  %c = arith.constant dense<0.0> : tensor<3xf32>
  return %c, %l : tensor<3xf32>, tensor<f32>
}
