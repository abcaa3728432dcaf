// Modules that break the training convention get one clear line and exit 1.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=np.zeros((8, 4), np.float32))"
// RUN: not trellis-train %s --data=%t.npz --output-dir=%t.out 2>&1 | FileCheck %s --check-prefix=CHECK-NOBATCH
// RUN: not trellis-train %s --data=%t.missing.npz --output-dir=%t.out 2>&1 | FileCheck %s --check-prefix=CHECK-NODATA

// CHECK-NOBATCH: trellis-train: error: @train_step has no batch argument (mark the data arguments with {trellis.batch = "<array name>"})
// CHECK-NODATA: trellis-train: error: cannot read '{{.*}}.missing.npz'

func.func @train_step(%w: tensor<4xf32>, %x: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %l = nn.mean %x : (tensor<8x4xf32>) -> tensor<f32>
  return %w, %l : tensor<4xf32>, tensor<f32>
}
