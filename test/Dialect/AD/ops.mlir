// Round trip of every ad op, through the custom and the generic form.
// RUN: trellis-opt %s | trellis-opt | FileCheck %s
// RUN: trellis-opt %s --mlir-print-op-generic | trellis-opt | FileCheck %s

func.func @loss(%w: tensor<4x3xf32>, %x: tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>) {
  %z = arith.constant dense<0.0> : tensor<3xf32>
  %h = nn.dense %x, %w, %z : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %l = nn.mean %h : (tensor<8x3xf32>) -> tensor<f32>
  return %l, %h : tensor<f32>, tensor<8x3xf32>
}

func.func @scalar(%w: tensor<4x3xf32>, %x: tensor<8x4xf32>) -> tensor<f32> {
  %l, %h = func.call @loss(%w, %x) : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>)
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @uses
func.func @uses(%w: tensor<4x3xf32>, %x: tensor<8x4xf32>, %dl: tensor<f32>, %dh: tensor<8x3xf32>) {
  // CHECK: ad.grad @scalar(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<8x4xf32>) -> tensor<4x3xf32>
  %g0 = ad.grad @scalar(%w, %x) : (tensor<4x3xf32>, tensor<8x4xf32>) -> tensor<4x3xf32>
  // CHECK: ad.grad @scalar(%{{.*}}, %{{.*}}) {argnums = array<i64: 1, 0>}
  %g1:2 = ad.grad @scalar(%w, %x) {argnums = array<i64: 1, 0>} : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<4x3xf32>)
  // CHECK: ad.grad @loss(%{{.*}}, %{{.*}}) {has_aux = true} : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<4x3xf32>, tensor<8x3xf32>)
  %g2:2 = ad.grad @loss(%w, %x) {has_aux = true} : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<4x3xf32>, tensor<8x3xf32>)
  // CHECK: ad.value_and_grad @loss(%{{.*}}, %{{.*}}) {argnums = array<i64: 0>, has_aux = true} : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>)
  %v:3 = ad.value_and_grad @loss(%w, %x) {argnums = array<i64: 0>, has_aux = true} : (tensor<4x3xf32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>)
  // CHECK: ad.vjp @loss(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<8x3xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<8x4xf32>)
  %j:4 = ad.vjp @loss(%w, %x, %dl, %dh) : (tensor<4x3xf32>, tensor<8x4xf32>, tensor<f32>, tensor<8x3xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<8x4xf32>)
  // CHECK: ad.checkpoint %{{.*}} {policy = "dots_saveable"} : tensor<8x4xf32> -> tensor<8x4xf32> {
  // CHECK: ^bb0(%[[A:.*]]: tensor<8x4xf32>):
  // CHECK:   %[[T:.*]] = nn.tanh %[[A]]
  // CHECK:   ad.yield %[[T]] : tensor<8x4xf32>
  %c = ad.checkpoint %x {policy = "dots_saveable"} : tensor<8x4xf32> -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>):
    %t = nn.tanh %a : tensor<8x4xf32>
    ad.yield %t : tensor<8x4xf32>
  }
  // CHECK: ad.barrier %{{.*}} : tensor<8x4xf32>
  %bar = ad.barrier %c : tensor<8x4xf32>
  return
}
