// The reverse sweep of a reversible_serial reads only the serial's outputs:
// it walks the blocks backwards, recomputing each residual from the block's
// outputs, reconstructing the accumulator (x = y − F(c)), and differentiating
// the recomputation. The serial's inputs are never read again.
// RUN: trellis-opt %s --ad-differentiate | FileCheck %s

// CHECK-LABEL: func.func private @loss__grad_0_1_2_3
// CHECK-SAME: (%[[X1:[a-z0-9]+]]: tensor<4x8xf32>, %[[X2:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>, %[[B:[a-z0-9]+]]: tensor<8xf32>)
// CHECK: %[[Y:.*]]:2 = nn.reversible_serial %[[X1]], %[[X2]]
// CHECK: nn.yield
// CHECK-NEXT: }
// CHECK-NOT: %[[X1]]
// CHECK-NOT: %[[X2]]
// Last block first: G recomputed from the output it passed through.
// CHECK: %[[G:.*]] = nn.gelu %[[Y]]#1
// CHECK-NOT: %[[X1]]
// CHECK-NOT: %[[X2]]
// CHECK: %[[REC:.*]] = arith.subf %[[Y]]#0, %[[G]]
// Then the first block: F recomputed from the reconstructed value.
// CHECK-NOT: %[[X1]]
// CHECK-NOT: %[[X2]]
// CHECK: %[[D:.*]] = nn.dense %[[REC]], %[[W]], %[[B]]
// CHECK-NOT: %[[X1]]
// CHECK-NOT: %[[X2]]
// CHECK: nn.tanh %[[D]]
// CHECK-NOT: %[[X1]]
// CHECK-NOT: %[[X2]]
// CHECK: return
func.func @loss(%x1: tensor<4x8xf32>, %x2: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %y:2 = nn.reversible_serial %x1, %x2 : tensor<4x8xf32>, tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>):
    %p:2 = nn.reversible_half_residual %a, %c : tensor<4x8xf32>, tensor<4x8xf32> {
    ^bb0(%u: tensor<4x8xf32>):
      %d = nn.dense %u, %w, %b : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %t = nn.tanh %d : tensor<4x8xf32>
      nn.yield %t : tensor<4x8xf32>
    }
    %s:2 = nn.reversible_swap %p#0, %p#1 : tensor<4x8xf32>, tensor<4x8xf32>
    %q:2 = nn.reversible_half_residual %s#0, %s#1 : tensor<4x8xf32>, tensor<4x8xf32> {
    ^bb0(%u: tensor<4x8xf32>):
      %t = nn.gelu %u : tensor<4x8xf32>
      nn.yield %t : tensor<4x8xf32>
    }
    nn.yield %q#0, %q#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %sq = arith.mulf %y#0, %y#1 : tensor<4x8xf32>
  %m = nn.mean %sq : (tensor<4x8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @g(%x1: tensor<4x8xf32>, %x2: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) {
  %r:4 = ad.grad @loss(%x1, %x2, %w, %b) {argnums = array<i64: 0, 1, 2, 3>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
}
