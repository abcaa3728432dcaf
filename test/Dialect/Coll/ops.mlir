// Round trip of every coll op, through the custom and the generic form.
// RUN: trellis-opt %s | trellis-opt | FileCheck %s
// RUN: trellis-opt %s --mlir-print-op-generic | trellis-opt | FileCheck %s
// RUN: trellis-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=CHECK-GENERIC

// CHECK-LABEL: func.func @collectives
// CHECK-GENERIC-LABEL: sym_name = "collectives"
func.func @collectives(%x: tensor<2x3xf32>, %y: tensor<4xf64>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<8x3xf32>,
        tensor<2x3xf32>, tensor<4xf64>, index, index) {
  // CHECK: coll.psum %{{.*}} {axis = "batch"} : tensor<2x3xf32>
  // CHECK-GENERIC: "coll.psum"(%{{.*}}) <{axis = "batch"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = coll.psum %x {axis = "batch"} : tensor<2x3xf32>
  // CHECK: coll.psum %{{.*}} {axis = "batch", groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32>
  %g = coll.psum %x {axis = "batch", groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32>
  // CHECK: coll.pmean %{{.*}} {axis = "batch"} : tensor<2x3xf32>
  %m = coll.pmean %x {axis = "batch"} : tensor<2x3xf32>
  // CHECK: coll.all_gather %{{.*}} {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<8x3xf32>
  // CHECK-GENERIC: "coll.all_gather"(%{{.*}}) <{axis = "batch", dim = 0 : i64}> : (tensor<2x3xf32>) -> tensor<8x3xf32>
  %a = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<8x3xf32>
  // CHECK: coll.ppermute %{{.*}} {axis = "batch", pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : tensor<2x3xf32>
  %p = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : tensor<2x3xf32>
  // CHECK: coll.adasum %{{.*}} {axis = "batch"} : tensor<4xf64>
  %d = coll.adasum %y {axis = "batch"} : tensor<4xf64>
  // CHECK: coll.axis_size {axis = "batch"} : index
  // CHECK-GENERIC: "coll.axis_size"() <{axis = "batch"}> : () -> index
  %n = coll.axis_size {axis = "batch"} : index
  // CHECK: coll.axis_index {axis = "batch"} : index
  %i = coll.axis_index {axis = "batch"} : index
  return %s, %g, %m, %a, %p, %d, %n, %i : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<8x3xf32>,
        tensor<2x3xf32>, tensor<4xf64>, index, index
}
