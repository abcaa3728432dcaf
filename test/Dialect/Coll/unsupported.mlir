// Gradients coll-average-gradients cannot reduce (the coll ops take static
// f32/f64 tensors) are diagnosed at the ad op, for every reduction
// (issue 8: passes never crash on valid IR they cannot handle).
// RUN: trellis-opt %s -split-input-file --coll-average-gradients=reduce=mean -verify-diagnostics
// RUN: trellis-opt %s -split-input-file --coll-average-gradients=reduce=adasum -verify-diagnostics
// RUN: trellis-opt %s -split-input-file --coll-average-gradients=reduce=adasum-approx -verify-diagnostics

func.func @scalar_loss(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func @scalar_gradient(%x: f32) -> f32 {
  // expected-error @+1 {{'ad.grad' op gradient #0 has type 'f32'; coll-average-gradients reduces static f32/f64 tensors only}}
  %g = ad.grad @scalar_loss(%x) {argnums = array<i64: 0>} : (f32) -> f32
  return %g : f32
}

// -----

func.func @half_loss(%x: f32, %h: tensor<4xf16>) -> f32 {
  return %x : f32
}
func.func @half_gradient(%x: f32, %h: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'ad.grad' op gradient #0 has type 'tensor<4xf16>'; coll-average-gradients reduces static f32/f64 tensors only}}
  %g = ad.grad @half_loss(%x, %h) {argnums = array<i64: 1>} : (f32, tensor<4xf16>) -> tensor<4xf16>
  return %g : tensor<4xf16>
}

// -----

func.func @dynamic_loss(%x: tensor<?xf32>) -> f32 {
  %c = arith.constant 1.0 : f32
  return %c : f32
}
func.func @dynamic_gradient(%x: tensor<?xf32>) -> (f32, tensor<?xf32>) {
  // expected-error @+1 {{'ad.value_and_grad' op gradient #0 has type 'tensor<?xf32>'; coll-average-gradients reduces static f32/f64 tensors only}}
  %v, %g = ad.value_and_grad @dynamic_loss(%x) {argnums = array<i64: 0>} : (tensor<?xf32>) -> (f32, tensor<?xf32>)
  return %v, %g : f32, tensor<?xf32>
}
