// trellis-fill-splats: a splat tensor constant of more than min-elements
// elements (1024) becomes linalg.fill of its scalar into tensor.empty; small
// splats, dense non-splat constants and scalars stay constants.
// RUN: trellis-opt %s --trellis-fill-splats | FileCheck %s
// RUN: trellis-opt %s --trellis-fill-splats=min-elements=8 | FileCheck %s --check-prefix=CHECK-LOW

// CHECK-LABEL: func.func @large
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<64x64xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%[[E]] : tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: return %[[F]]
func.func @large() -> tensor<64x64xf32> {
  %c = arith.constant dense<1.0> : tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @integers
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK: linalg.fill ins(%[[SEVEN]] : i32) outs(%{{.*}} : tensor<2048xi32>)
func.func @integers() -> tensor<2048xi32> {
  %c = arith.constant dense<7> : tensor<2048xi32>
  return %c : tensor<2048xi32>
}

// CHECK-LABEL: func.func @small
// CHECK: arith.constant dense<2.000000e+00> : tensor<16xf32>
// CHECK-NOT: linalg.fill
// CHECK-LOW-LABEL: func.func @small
// CHECK-LOW: linalg.fill
func.func @small() -> tensor<16xf32> {
  %c = arith.constant dense<2.0> : tensor<16xf32>
  return %c : tensor<16xf32>
}

// CHECK-LABEL: func.func @not_splat
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00
// CHECK-NOT: linalg.fill
func.func @not_splat() -> tensor<2048xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = tensor.empty() : tensor<2048xf32>
  %e = tensor.insert_slice %c into %d[0] [2] [1] : tensor<2xf32> into tensor<2048xf32>
  return %e : tensor<2048xf32>
}
