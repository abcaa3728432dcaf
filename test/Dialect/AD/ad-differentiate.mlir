// RUN: trellis-opt %s -split-input-file --ad-differentiate | FileCheck %s

// Fan-out accumulates (x·x gives x two cotangents, summed), an unused
// argument gets zeros, an integer argument gets nothing, and the forward
// values the reverse sweep does not need are gone.
// CHECK-LABEL: func.func private @square__grad_0_1
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %{{.*}}: tensor<2xf32>, %{{.*}}: tensor<4xi32>) -> (tensor<4xf32>, tensor<2xf32>)
// CHECK-NOT: nn.mean
// CHECK: %[[DSQ:.*]] = linalg.generic
// CHECK: %[[P:.*]] = arith.mulf %[[DSQ]], %[[X]] : tensor<4xf32>
// CHECK: %[[DX:.*]] = arith.addf %[[P]], %[[P]] : tensor<4xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: return %[[DX]], %[[Z]]
// CHECK-LABEL: func.func @use
// CHECK: %[[G:.*]]:2 = call @square__grad_0_1(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @square(%x: tensor<4xf32>, %unused: tensor<2xf32>, %n: tensor<4xi32>) -> tensor<f32> {
  %sq = arith.mulf %x, %x : tensor<4xf32>
  %m = nn.mean %sq : (tensor<4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use(%x: tensor<4xf32>, %u: tensor<2xf32>, %n: tensor<4xi32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %g:2 = ad.grad @square(%x, %u, %n) {argnums = array<i64: 0, 1>} : (tensor<4xf32>, tensor<2xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<2xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<2xf32>
}

// -----

// value_and_grad with aux: loss, aux, then grads; nested calls are inlined;
// one derivative function serves both uses.
// CHECK-LABEL: func.func private @model__value_and_grad_0
// CHECK-NOT: call
// CHECK: %[[H:.*]] = nn.dense
// CHECK: %[[T:.*]] = nn.tanh %[[H]]
// CHECK: %[[L:.*]] = nn.mean %[[T]]
// CHECK: return %[[L]], %[[T]], %{{.*}} : tensor<f32>, tensor<2x3xf32>, tensor<4x3xf32>
// CHECK-LABEL: func.func @train
// CHECK: call @model__value_and_grad_0
// CHECK: call @model__value_and_grad_0
// CHECK-NOT: ad.
func.func @layer(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %h = nn.dense %x, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = nn.tanh %h : tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}
func.func @model(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<2x4xf32>) -> (tensor<f32>, tensor<2x3xf32>) {
  %t = func.call @layer(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %l = nn.mean %t : (tensor<2x3xf32>) -> tensor<f32>
  return %l, %t : tensor<f32>, tensor<2x3xf32>
}
func.func @train(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<2x4xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
  %l, %aux, %g = ad.value_and_grad @model(%w, %b, %x) {has_aux = true} : (tensor<4x3xf32>, tensor<3xf32>, tensor<2x4xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<4x3xf32>)
  %l2, %aux2, %g2 = ad.value_and_grad @model(%g, %b, %x) {has_aux = true} : (tensor<4x3xf32>, tensor<3xf32>, tensor<2x4xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<4x3xf32>)
  return %l2, %g2 : tensor<f32>, tensor<4x3xf32>
}

// -----

// A checkpointed region is inlined in the forward sweep and recomputed in
// the reverse sweep: tanh appears twice, the second one after the seed.
// CHECK-LABEL: func.func @ckpt
// CHECK-NOT: ad.checkpoint
// CHECK: nn.tanh
// CHECK-LABEL: func.func private @ckpt__value_and_grad_0
// CHECK-NOT: ad.checkpoint
// CHECK: %[[FWD:.*]] = nn.tanh %[[X:.*]] :
// CHECK: nn.mean %[[FWD]]
// CHECK: %[[RE:.*]] = nn.tanh %[[X]] :
// CHECK: linalg.generic {{.*}} ins(%[[RE]], %{{.*}} :
func.func @ckpt(%x: tensor<4xf32>) -> tensor<f32> {
  %c = ad.checkpoint %x : tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %t = nn.tanh %a : tensor<4xf32>
    ad.yield %t : tensor<4xf32>
  }
  %m = nn.mean %c : (tensor<4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use_ckpt(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %l, %g = ad.value_and_grad @ckpt(%x) : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Grad of grad: the inner ad.grad is lowered first, then the outer
// derivative differentiates through the inner derivative's code.
// CHECK-LABEL: func.func private @inner__grad_0
// CHECK-LABEL: func.func private @outer__grad_0
// CHECK-NOT: call
// CHECK: math.tanh
// CHECK: return
// CHECK-NOT: ad.grad
func.func @inner(%x: tensor<3xf64>) -> tensor<f64> {
  %t = math.tanh %x : tensor<3xf64>
  %m = nn.mean %t : (tensor<3xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
func.func @outer(%x: tensor<3xf64>) -> tensor<f64> {
  %g = ad.grad @inner(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %sq = arith.mulf %g, %g : tensor<3xf64>
  %m = nn.mean %sq : (tensor<3xf64>) -> tensor<f64>
  return %m : tensor<f64>
}
func.func @second(%x: tensor<3xf64>) -> tensor<3xf64> {
  %h = ad.grad @outer(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %h : tensor<3xf64>
}

// -----

// vjp: results first, then one cotangent per primal (zeros for the integer).
// CHECK-LABEL: func.func private @scale__vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[N:.*]]: tensor<3xi32>, %[[DY:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>)
// CHECK: %[[ZI:.*]] = arith.constant dense<0> : tensor<3xi32>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: return %[[Y]], %{{.*}}, %[[ZI]]
func.func @scale(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<3xf32> {
  %y = arith.mulf %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @use_vjp(%x: tensor<3xf32>, %n: tensor<3xi32>, %dy: tensor<3xf32>) -> tensor<3xf32> {
  %y, %dx, %dn = ad.vjp @scale(%x, %n, %dy) : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>)
  return %dx : tensor<3xf32>
}
