// coll-average-gradients and batch norm inside a reversible block (RevNet):
// with batch-norm=local the running statistics are averaged where they leave
// the reversible_serial, not in the block's body, which the backward pass
// recomputes (a collective there would run again per block for a dead
// value); with batch-norm=sync the batch norm itself reduces its batch
// moments over the axis.
// RUN: trellis-opt %s --coll-average-gradients | FileCheck %s --check-prefix=CHECK-LOCAL
// RUN: trellis-opt %s '--coll-average-gradients=batch-norm=sync' | FileCheck %s --check-prefix=CHECK-SYNC

// CHECK-LOCAL-LABEL: func.func private @loss
// CHECK-LOCAL: %[[Y:.*]]:4 = nn.reversible_serial
// CHECK-LOCAL-NOT: coll.pmean
// CHECK-LOCAL: nn.yield %{{.*}}#0, %{{.*}}#1, %{{.*}}#2, %{{.*}}#3
// CHECK-LOCAL-NEXT: }
// CHECK-LOCAL-DAG: %[[V:.*]] = coll.pmean %[[Y]]#3 {axis = "batch"}
// CHECK-LOCAL-DAG: %[[M:.*]] = coll.pmean %[[Y]]#2 {axis = "batch"}
// CHECK-LOCAL: return %{{.*}}, %[[M]], %[[V]]

// CHECK-SYNC-LABEL: func.func private @loss
// CHECK-SYNC: nn.batch_norm {{.*}} {axis_name = "batch"}
// CHECK-SYNC-NOT: coll.pmean
// CHECK-SYNC: return
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
