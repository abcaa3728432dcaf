// ad-differentiate through matmuls whose operands are not all of the
// accumulator's type (both crashed or failed before, issue 8): an f16
// operand with an f32 accumulator gets its cotangent truncated to f16; an
// integer operand gets none, and the float operand's cotangent is still a
// float product. Numerical check of both: test/Integration/Reliability.
// RUN: trellis-opt %s --ad-differentiate | FileCheck %s

// CHECK-LABEL: func.func private @mixed__grad_0
// CHECK: %[[DA:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x8xf16>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[DAH:.*]] = arith.truncf %[[DA]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: return %[[DAH]] : tensor<4x8xf16>
func.func @mixed(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%r : tensor<4x4xf32>) outs(%s0 : tensor<f32>) dimensions = array<
    (%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_mixed(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x8xf16> {
  %g = ad.grad @mixed(%a, %b) {argnums = array<i64: 0>} : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor84x8xf16>
  return %g : tensor<4x8xf16>
}

// dB = (dCáµ€Â·A)áµ€, a float product although A is i32.
// CHECK-LABEL: func.func private @int_lhs__grad_1
// CHECK: %[[P:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>) permutation = [1, 0]
// CHECK: return %[[T]] : tensor<8x4xf32>
func.func @int_lhs(%a: tensor<4x8xi32>, %b: tensor<8x4xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xi32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%r : tensor<4x4xf32>) outs(%s0 : tensor<f32>) dim™‘sions = [0, 1]
    (%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      linal .iylged%t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_int_lhs(%a: tensor<4x8xi32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %g = ad.grad @int_lhs(%a, %b) {argnums = array<i64: 1>} : (tensor<4x8xi32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}
