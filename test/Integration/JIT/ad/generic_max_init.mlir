// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of a linalg.generic max reduction whose
// init is a differentiated argument: y[j] = max(init[j], max_i a[i, j]).
// Columns 0 and 2 have init = 5 above every a[i, j] (the init is the
// maximum there), the others init = -5 (an element of a is).
//
// Regression test: the init of a max/min reduction once got no cotangent.
// REQUIRES: numpy
// RUN: %python %S/generic_max_init.py %s %t | FileCheck %s

// CHECK: PASS max_init.a:
// CHECK: PASS max_init.init:
// CHECK: PASS min_init.a:
// CHECK: PASS min_init.init:
// CHECK: ALL CHECKS PASSED

func.func @loss_max_init(%a: tensor<4x5xf64>, %init: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<f64> {
  %y = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x5xf64>) outs(%init : tensor<5xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.maximumf %x, %o : f64
    linalg.yield %s : f64
  } -> tensor<5xf64>
  %p = arith.mulf %y, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_min_init(%a: tensor<4x5xf64>, %init: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<f64> {
  %y = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x5xf64>) outs(%init : tensor<5xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.minimumf %o, %x : f64
    linalg.yield %s : f64
  } -> tensor<5xf64>
  %p = arith.mulf %y, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
