// Gradient check (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of a chain of plain linalg.generic ops:
// a row sum (reduction), a 1-D elementwise scale (the mean), and a 2-D
// generic that broadcasts the mean over the rows: y = x − mean_row(x).
//
// Regression test: the linalg.generic rule once accumulated into its output
// even for inputs covering all loops; after elementwise fusion with a
// broadcasting consumer that read back earlier writes (wrong gradients).
// REQUIRES: numpy
// RUN: %python %S/generic_broadcast_chain.py %s %t | FileCheck %s

// CHECK: PASS center.x:
// CHECK: ALL CHECKS PASSED

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#vec = affine_map<(i) -> (i)>

func.func @loss_center(%x: tensor<2x5xf64>, %d: tensor<2x5xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %fifth = arith.constant 0.2 : f64
  %e1 = tensor.empty() : tensor<2xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e1 : tensor<2xf64>) -> tensor<2xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x5xf64>) outs(%z : tensor<2xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.addf %a, %o : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %mean = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sum : tensor<2xf64>) outs(%e1 : tensor<2xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.mulf %a, %fifth : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %e = tensor.empty() : tensor<2x5xf64>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<2x5xf64>, tensor<2xf64>) outs(%e : tensor<2x5xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %s = arith.subf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<2x5xf64>
  %p = arith.mulf %y, %d : tensor<2x5xf64>
  %l = nn.mean %p : (tensor<2x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
