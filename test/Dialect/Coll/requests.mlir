// coll.psum_start, coll.pmean_start, !coll.request and coll.wait round-trip.
// RUN: trellis-opt %s | trellis-opt | FileCheck %s

// CHECK-LABEL: func.func @bucket
// CHECK: %[[R:.*]] = coll.pmean_start %arg0, %arg1 {axis = "batch"} : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %[[W:.*]]:2 = coll.wait %[[R]] : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %[[S:.*]] = coll.psum_start %arg2 {axis = "batch", groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>} : tensor<2xf64>
// CHECK: coll.wait %[[S]] : tensor<2xf64>
func.func @bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<2xf64>)
    -> (tensor<4x3xf32>, tensor<3xf32>, tensor<2xf64>) {
  %r = coll.pmean_start %a, %b {axis = "batch"} : tensor<4x3xf32>, tensor<3xf32>
  %ra, %rb = coll.wait %r : tensor<4x3xf32>, tensor<3xf32>
  %s = coll.psum_start %c {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<2xf64>
  %rc = coll.wait %s : tensor<2xf64>
  return %ra, %rb, %rc : tensor<4x3xf32>, tensor<3xf32>, tensor<2xf64>
}
