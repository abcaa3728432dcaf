// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of the upstream arith and math
// rules, each op on tensors (one loss per op: mean(op(a, b) ⊙ c)) and the
// same ops as scalars in linalg.generic bodies (one elementwise generic per
// op family, with a row-broadcast operand). Inputs keep away from kinks and
// domain edges: maximumf/minimumf/select operands differ by >= 0.2 and
// log/sqrt/rsqrt/powf bases lie in [0.5, 2.5]. Also: select of whole tensors
// on a scalar i1, and maxnumf/minnumf.
// REQUIRES: numpy
// RUN: %python %S/arith_math.py %s %t | FileCheck %s

// CHECK: PASS addf.a:
// CHECK: PASS addf.b:
// CHECK: PASS subf.a:
// CHECK: PASS subf.b:
// CHECK: PASS mulf.a:
// CHECK: PASS mulf.b:
// CHECK: PASS divf.a:
// CHECK: PASS divf.b:
// CHECK: PASS maximumf.a:
// CHECK: PASS maximumf.b:
// CHECK: PASS minimumf.a:
// CHECK: PASS minimumf.b:
// CHECK: PASS negf.a:
// CHECK: PASS select.a:
// CHECK: PASS select.b:
// CHECK: PASS select_scalar_cond.a:
// CHECK: PASS select_scalar_cond.b:
// CHECK: PASS maxnumf_minnumf.a:
// CHECK: PASS maxnumf_minnumf.b:
// CHECK: PASS exp.a:
// CHECK: PASS log.a:
// CHECK: PASS sqrt.a:
// CHECK: PASS rsqrt.a:
// CHECK: PASS tanh.a:
// CHECK: PASS erf.a:
// CHECK: PASS powf.a:
// CHECK: PASS powf.b:
// CHECK: PASS generic_arith.a:
// CHECK: PASS generic_arith.r:
// CHECK: PASS generic_math.a:
// CHECK: PASS generic_math.r:
// CHECK: ALL CHECKS PASSED

func.func @loss_addf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.addf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_subf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.subf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_mulf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.mulf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_divf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.divf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_maximumf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.maximumf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_minimumf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.minimumf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_negf(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.negf %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// select(a > b, a·a, b): both branches and the condition from the inputs.
func.func @loss_select(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %cond = arith.cmpf ogt, %a, %b : tensor<3x4xf64>
  %aa = arith.mulf %a, %a : tensor<3x4xf64>
  %y = arith.select %cond, %aa, %b : tensor<3x4xi1>, tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_exp(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.exp %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.log %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_tanh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.tanh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_sqrt(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.sqrt %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_rsqrt(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.rsqrt %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_erf(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.erf %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_powf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.powf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The arith ops as scalars: (x+z)·(x−z)/z − max(x,z)·min(x,z) + select(x>z, −x, z·z).
func.func @loss_generic_arith(%a: tensor<3x4xf64>, %r: tensor<4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %r : tensor<3x4xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %s = arith.addf %x, %z : f64
    %d = arith.subf %x, %z : f64
    %m = arith.mulf %s, %d : f64
    %q = arith.divf %m, %z : f64
    %mx = arith.maximumf %x, %z : f64
    %mn = arith.minimumf %x, %z : f64
    %mm = arith.mulf %mx, %mn : f64
    %t = arith.subf %q, %mm : f64
    %cond = arith.cmpf ogt, %x, %z : f64
    %nx = arith.negf %x : f64
    %zz = arith.mulf %z, %z : f64
    %sel = arith.select %cond, %nx, %zz : f64
    %res = arith.addf %t, %sel : f64
    linalg.yield %res : f64
  } -> tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The math ops as scalars: exp(x)·log(z) + tanh(x)·sqrt(z) + rsqrt(z)·erf(x) + powf(z, x).
func.func @loss_generic_math(%a: tensor<3x4xf64>, %r: tensor<4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %r : tensor<3x4xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %ex = math.exp %x : f64
    %lz = math.log %z : f64
    %t1 = arith.mulf %ex, %lz : f64
    %th = math.tanh %x : f64
    %sq = math.sqrt %z : f64
    %t2 = arith.mulf %th, %sq : f64
    %rs = math.rsqrt %z : f64
    %ef = math.erf %x : f64
    %t3 = arith.mulf %rs, %ef : f64
    %pw = math.powf %z, %x : f64
    %s1 = arith.addf %t1, %t2 : f64
    %s2 = arith.addf %s1, %t3 : f64
    %res = arith.addf %s2, %pw : f64
    linalg.yield %res : f64
  } -> tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// select(s > 0, a, b) on whole tensors (a scalar condition): b gets zeros.
func.func @loss_select_scalar_cond(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %s: tensor<f64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %v = tensor.extract %s[] : tensor<f64>
  %zero = arith.constant 0.0 : f64
  %cond = arith.cmpf ogt, %v, %zero : f64
  %y = arith.select %cond, %a, %b : tensor<3x4xf64>
  %y2 = arith.mulf %y, %y : tensor<3x4xf64>
  %p = arith.mulf %y2, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_maxnumf_minnumf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %x = arith.maxnumf %a, %b : tensor<3x4xf64>
  %n = arith.minnumf %a, %b : tensor<3x4xf64>
  %t = nn.tanh %n : tensor<3x4xf64>
  %y = arith.mulf %x, %t : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
