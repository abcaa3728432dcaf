// ad.checkpoint's policy decides what the derivative recomputes (issue 19):
// the same body — dense, tanh (ad.name = "act"), dense — under each policy.
// nothing_saveable recomputes the first dense and the tanh in the reverse
// sweep; dots_saveable reads the stored dense and recomputes the tanh from
// it; save:act recomputes nothing. Gradients under each policy:
// test/Integration/JIT/ad/checkpoint_policies.mlir.
// RUN: sed s/POLICY/nothing_saveable/ %s | trellis-opt --ad-differentiate | FileCheck %s --check-prefixes=CHECK,NOTHING
// RUN: sed s/POLICY/dots_saveable/ %s | trellis-opt --ad-differentiate | FileCheck %s --check-prefixes=CHECK,DOTS
// RUN: sed s/POLICY/save:act/ %s | trellis-opt --ad-differentiate | FileCheck %s --check-prefixes=CHECK,NAMED

// The forward pass, the same under every policy.
// CHECK-LABEL: func.func private @f__value_and_grad_0_1
// CHECK: %[[D:.*]] = nn.dense %arg0, %arg1, %arg2
// CHECK: %[[T:.*]] = nn.tanh %[[D]]
// CHECK: nn.dense %[[T]], %arg1, %arg2
// The reverse sweep: nothing_saveable recomputes the dense and the tanh from
// the input,
// NOTHING: %[[RD:.*]] = nn.dense %arg0, %arg1, %arg2
// NOTHING: nn.tanh %[[RD]]
// dots_saveable recomputes only the tanh, from the kept dense,
// DOTS-NOT: nn.dense
// DOTS: nn.tanh %[[D]]
// DOTS-NOT: nn.dense
// save:act recomputes nothing.
// NAMED-NOT: nn.dense
// NAMED-NOT: nn.tanh
// CHECK: return
// CHECK-NEXT: }

func.func @f(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %y = ad.checkpoint %x {policy = "POLICY"} : tensor<4x3xf32> -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>):
    %d = nn.dense %a, %w, %b : (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    %t = nn.tanh %d {ad.name = "act"} : tensor<4x3xf32>
    %e = nn.dense %t, %w, %b : (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ad.yield %e : tensor<4x3xf32>
  }
  %l = nn.mean %y : (tensor<4x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>, %b: tensor<3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<3x3xf32>) {
  %l, %gx, %gw = ad.value_and_grad @f(%x, %w, %b) {argnums = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<3x3xf32>)
  return %l, %gx, %gw : tensor<f32>, tensor<4x3xf32>, tensor<3x3xf32>
}
