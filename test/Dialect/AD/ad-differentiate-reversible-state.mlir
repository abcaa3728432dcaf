// Layer state out of a reversible_serial (batch norm in a RevNet block): the
// derivative function returns the statistics of the forward serial as aux;
// the backward pass recomputes the block from the serial's outputs, and the
// statistics its recomputed batch norm yields again are dead, so the state
// is updated once per step.
// RUN: trellis-opt %s --ad-differentiate | FileCheck %s

// CHECK-LABEL: func.func private @loss__value_and_grad_2_3
// CHECK: %[[Y:.*]]:4 = nn.reversible_serial
// CHECK: nn.yield %{{.*}}#0, %{{.*}}#1, %{{.*}}#2, %{{.*}}#3
// CHECK-NEXT: }
// The block is recomputed from the output it passed through.
// CHECK: %{{.*}}, %[[RM:.*]], %[[RV:.*]] = nn.batch_norm %[[Y]]#1
// CHECK-NOT: %[[RM]]
// CHECK-NOT: %[[RV]]
// CHECK: return %{{.*}}, %[[Y]]#2, %[[Y]]#3, %{{.*}}, %{{.*}} :
func.func private @loss(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %s: tensor<4xf32>,
                        %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %y1, %y2, %nm, %nv = nn.reversible_serial %x1, %x2 : tensor<2x4xf32>, tensor<2x4xf32> {
  ^bb0(%a: tensor<2x4xf32>, %c: tensor<2x4xf32>):
    %a1, %c1, %m1, %v1 = nn.reversible_half_residual %a, %c : tensor<2x4xf32>, tensor<2x4xf32> {
    ^bb0(%u: tensor<2x4xf32>):
      %y, %m2, %v2 = nn.batch_norm %u, %s, %b, %m, %v
          : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
          -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
      %t = nn.tanh %y : tensor<2x4xf32>
      nn.yield %t, %m2, %v2 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    nn.yield %a1, %c1, %m1, %v1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  %sq = arith.mulf %y1, %y2 : tensor<2x4xf32>
  %l = nn.mean %sq : (tensor<2x4xf32>) -> tensor<f32>
  return %l, %nm, %nv : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
func.func @step(%x1: tensor<2x4xf32>, %x2: tensor<2x4xf32>, %s: tensor<4xf32>,
                %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %l, %nm, %nv, %gs, %gb = ad.value_and_grad @loss(%x1, %x2, %s, %b, %m, %v) {argnums = array<i64: 2, 3>, has_aux = true}
      : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %l, %nm, %nv, %gs, %gb : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
