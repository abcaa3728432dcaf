// trellis-equiv compares layer state like any result (issue 22): a training
// step that returns the batch norm's new running statistics after the loss,
// as the seed's equivalence test compares `state`. The two steps below give
// the same loss (training mode normalizes with the batch statistics either
// way) but different running statistics (momentum 0.1 against 0.2), which
// the checker must catch; the reference against itself is equivalent.
// REQUIRES: numpy
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('%t.x.npy', r.standard_normal((6, 4)).astype(np.float32) * 3 + 1); np.save('%t.c.npy', np.ones(4, np.float32))"
// RUN: trellis-equiv %s --entry=step --test-entry=step_again --input=%t.x.npy --input=%t.c.npy --labels=loss,mean,var | FileCheck %s --check-prefix=CHECK-SAME
// RUN: not trellis-equiv %s --entry=step --test-entry=step_faster_state --input=%t.x.npy --input=%t.c.npy --labels=loss,mean,var | FileCheck %s --check-prefix=CHECK-DIFF

// CHECK-SAME: ok   result 0 (loss):
// CHECK-SAME: ok   result 1 (mean):
// CHECK-SAME: ok   result 2 (var):
// CHECK-SAME: equivalent
// CHECK-DIFF: ok   result 0 (loss):
// CHECK-DIFF: FAIL result 1 (mean):
// CHECK-DIFF: FAIL result 2 (var):
// CHECK-DIFF: NOT equivalent

func.func @step(%x: tensor<6x4xf32>, %c: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c
      : (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %l = nn.mean %y : (tensor<6x4xf32>) -> tensor<f32>
  return %l, %m, %v : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

func.func @step_again(%x: tensor<6x4xf32>, %c: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %l, %m, %v = call @step(%x, %c) : (tensor<6x4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
  return %l, %m, %v : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

func.func @step_faster_state(%x: tensor<6x4xf32>, %c: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c {momentum = 2.0e-01 : f32}
      : (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %l = nn.mean %y : (tensor<6x4xf32>) -> tensor<f32>
  return %l, %m, %v : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
