// Gradient checks (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of loops whose trip count is known at run
// time only (issue 19), each at several trip counts including zero:
//   f_fori        scf.for 0..n (JAX fori_loop with a traced bound), n = 0, 1, 3, 5
//   f_strided     scf.for 1..n step 2 carrying a tensor and a scalar, n = 0..7
//                 (n ≤ 1: no trip)
//   f_while_count scf.while counting to n, the before region computing the
//                 forwarded value, n = 0, 1, 4, 20 (20 > the tape's first
//                 capacity of 8: the tape is grown twice)
//   f_while_float scf.while on a float it carries (0, 1, 4 and 9 trips)
// REQUIRES: numpy
// RUN: %python %S/dynamic_loops.py %s %t | FileCheck %s

// CHECK: PASS fori_0.x:
// CHECK: PASS fori_0.w:
// CHECK: PASS fori_1.x:
// CHECK: PASS fori_1.w:
// CHECK: PASS fori_3.x:
// CHECK: PASS fori_3.w:
// CHECK: PASS fori_5.x:
// CHECK: PASS fori_5.w:
// CHECK: PASS strided_ub0.x:
// CHECK: PASS strided_ub0.w:
// CHECK: PASS strided_ub1.x:
// CHECK: PASS strided_ub1.w:
// CHECK: PASS strided_ub2.x:
// CHECK: PASS strided_ub2.w:
// CHECK: PASS strided_ub4.x:
// CHECK: PASS strided_ub4.w:
// CHECK: PASS strided_ub7.x:
// CHECK: PASS strided_ub7.w:
// CHECK: PASS while_count_0.x:
// CHECK: PASS while_count_0.w:
// CHECK: PASS while_count_1.x:
// CHECK: PASS while_count_1.w:
// CHECK: PASS while_count_4.x:
// CHECK: PASS while_count_4.w:
// CHECK: PASS while_count_20.x:
// CHECK: PASS while_count_20.w:
// CHECK: PASS while_float_0.5.x:
// CHECK: PASS while_float_0.5.w:
// CHECK: PASS while_float_1.x:
// CHECK: PASS while_float_1.w:
// CHECK: PASS while_float_3.x:
// CHECK: PASS while_float_3.w:
// CHECK: PASS while_float_20.x:
// CHECK: PASS while_float_20.w:
// CHECK: ALL CHECKS PASSED

func.func @f_fori(%x: tensor<3xf64>, %w: tensor<3xf64>, %ns: tensor<i32>) -> tensor<f64> {
  %ni = tensor.extract %ns[] : tensor<i32>
  %n = arith.index_cast %ni : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %t = math.tanh %a : tensor<3xf64>
    %m = arith.mulf %t, %w : tensor<3xf64>
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %s = tensor.splat %fi : tensor<3xf64>
    %k = arith.addf %m, %s : tensor<3xf64>
    scf.yield %k : tensor<3xf64>
  }
  %p = arith.mulf %r, %r : tensor<3xf64>
  %q = arith.addf %p, %x : tensor<3xf64>
  %l = nn.mean %q : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// lb = 1, step = 2, ub from an argument: ceil((n − 1) / 2) trips, 0 when n ≤ 1.
func.func @f_strided(%x: tensor<2x2xf64>, %w: tensor<2x2xf64>, %ns: tensor<i32>) -> tensor<f64> {
  %ni = tensor.extract %ns[] : tensor<i32>
  %n = arith.index_cast %ni : i32 to index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s0 = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %c1 to %n step %c2 iter_args(%a = %x, %s = %s0) -> (tensor<2x2xf64>, f64) {
    %e = linalg.matmul ins(%a, %w : tensor<2x2xf64>, tensor<2x2xf64>) outs(%x : tensor<2x2xf64>) -> tensor<2x2xf64>
    %t = math.tanh %e : tensor<2x2xf64>
    %z = arith.constant 0 : index
    %v = tensor.extract %t[%z, %z] : tensor<2x2xf64>
    %s2 = arith.mulf %s, %v : f64
    scf.yield %t, %s2 : tensor<2x2xf64>, f64
  }
  %l = nn.mean %r#0 : (tensor<2x2xf64>) -> tensor<f64>
  %z0 = arith.constant dense<0.0> : tensor<f64>
  %ls = tensor.insert %r#1 into %z0[] : tensor<f64>
  %sum = arith.addf %l, %ls : tensor<f64>
  return %sum : tensor<f64>
}

// A counted while loop whose before region computes what it forwards.
func.func @f_while_count(%x: tensor<3xf64>, %w: tensor<3xf64>, %ns: tensor<i32>) -> tensor<f64> {
  %ni = tensor.extract %ns[] : tensor<i32>
  %n = arith.index_cast %ni : i32 to index
  %c0 = arith.constant 0 : index
  %r:2 = scf.while (%k = %c0, %a = %x) : (index, tensor<3xf64>) -> (index, tensor<3xf64>) {
    %go = arith.cmpi slt, %k, %n : index
    %t = math.tanh %a : tensor<3xf64>
    %m = arith.mulf %t, %w : tensor<3xf64>
    scf.condition(%go) %k, %m : index, tensor<3xf64>
  } do {
  ^bb0(%kk: index, %b: tensor<3xf64>):
    %c1 = arith.constant 1 : index
    %k1 = arith.addi %kk, %c1 : index
    %e = arith.addf %b, %x : tensor<3xf64>
    scf.yield %k1, %e : index, tensor<3xf64>
  }
  %p = arith.mulf %r#1, %r#1 : tensor<3xf64>
  %l = nn.mean %p : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// A while loop whose condition reads the float it carries: grow s until it
// passes a bound (the number of trips is a step function of the inputs;
// the check's perturbations stay within one step).
func.func @f_while_float(%x: tensor<f64>, %w: tensor<3xf64>, %bound: tensor<f64>) -> tensor<f64> {
  %s0 = tensor.extract %x[] : tensor<f64>
  %lim = tensor.extract %bound[] : tensor<f64>
  %v0 = arith.constant dense<1.0> : tensor<3xf64>
  %r:2 = scf.while (%s = %s0, %v = %v0) : (f64, tensor<3xf64>) -> (f64, tensor<3xf64>) {
    %go = arith.cmpf olt, %s, %lim : f64
    scf.condition(%go) %s, %v : f64, tensor<3xf64>
  } do {
  ^bb0(%t: f64, %u: tensor<3xf64>):
    %c = arith.constant 1.5 : f64
    %t2 = arith.mulf %t, %c : f64
    %tenth = arith.constant 0.1 : f64
    %ts = arith.mulf %t, %tenth : f64
    %sp = tensor.splat %ts : tensor<3xf64>
    %uw = arith.mulf %u, %w : tensor<3xf64>
    %u2 = arith.addf %uw, %sp : tensor<3xf64>
    %u3 = math.tanh %u2 : tensor<3xf64>
    scf.yield %t2, %u3 : f64, tensor<3xf64>
  }
  %l = nn.mean %r#1 : (tensor<3xf64>) -> tensor<f64>
  %z0 = arith.constant dense<0.0> : tensor<f64>
  %ls = tensor.insert %r#0 into %z0[] : tensor<f64>
  %sum = arith.addf %l, %ls : tensor<f64>
  return %sum : tensor<f64>
}
