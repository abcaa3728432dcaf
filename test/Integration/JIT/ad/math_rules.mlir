// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of the math and arith rules added
// for issue 19: one loss per op, mean(op(a[, b]) ⊙ c), on tensors; the same
// rules on scalars in a linalg.generic body; second derivatives (a loss of
// the squared gradient); and exact values at the edge points: absf and
// copysign at ±0 give the subgradient 0, the rounding ops nothing, fpowi
// with n = 0 gives 0 (also at x = 0). Inputs keep inside each op's domain
// and away from kinks (math_rules.py). docs/autodiff.md lists the ops.
// REQUIRES: numpy
// RUN: %python %S/math_rules.py %s %t | FileCheck %s

// CHECK: PASS sin.a:
// CHECK: PASS cos.a:
// CHECK: PASS tan.a:
// CHECK: PASS absf.a:
// CHECK: PASS log1p.a:
// CHECK: PASS expm1.a:
// CHECK: PASS atan.a:
// CHECK: PASS exp2.a:
// CHECK: PASS log2.a:
// CHECK: PASS log10.a:
// CHECK: PASS sinh.a:
// CHECK: PASS cosh.a:
// CHECK: PASS asinh.a:
// CHECK: PASS acosh.a:
// CHECK: PASS atanh.a:
// CHECK: PASS asin.a:
// CHECK: PASS acos.a:
// CHECK: PASS cbrt.a:
// CHECK: PASS erfc.a:
// CHECK: PASS ceil.a:
// CHECK: PASS floor.a:
// CHECK: PASS round.a:
// CHECK: PASS roundeven.a:
// CHECK: PASS trunc.a:
// CHECK: PASS atan2.a:
// CHECK: PASS atan2.b:
// CHECK: PASS copysign.a:
// CHECK: PASS copysign.b:
// CHECK: PASS remf.a:
// CHECK: PASS remf.b:
// CHECK: PASS fma.a:
// CHECK: PASS fma.b:
// CHECK: PASS fma.d:
// CHECK: PASS fpowi.a:
// CHECK: PASS sincos.a:
// CHECK: PASS generic_math.a:
// CHECK: PASS second_order_trig.a:
// CHECK: PASS second_order_hyperbolic.a:
// CHECK: PASS second_order_exp_log.a:
// CHECK: PASS second_order_binary.a:
// CHECK: PASS second_order_binary.b:
// CHECK: PASS edges.absf:
// CHECK: PASS edges.copysign:
// CHECK: PASS edges.rounding:
// CHECK: PASS edges.fpowi:
// CHECK: ALL CHECKS PASSED

func.func @loss_sin(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.sin %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_cos(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.cos %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_tan(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.tan %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_absf(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.absf %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log1p(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.log1p %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_expm1(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.expm1 %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_atan(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.atan %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_exp2(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.exp2 %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log2(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.log2 %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_log10(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.log10 %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_sinh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.sinh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_cosh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.cosh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_asinh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.asinh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_acosh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.acosh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_atanh(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.atanh %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_asin(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.asin %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_acos(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.acos %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_cbrt(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.cbrt %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_erfc(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.erfc %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_ceil(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.ceil %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_floor(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.floor %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_round(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.round %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_roundeven(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.roundeven %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_trunc(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.trunc %a : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_atan2(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.atan2 %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_copysign(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.copysign %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_remf(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = arith.remf %a, %b : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_fma(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %d: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.fma %a, %b, %d : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_fpowi(%a: tensor<3x4xf64>, %n: tensor<3x4xi32>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y = math.fpowi %a, %n : tensor<3x4xf64>, tensor<3x4xi32>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_sincos(%a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %s, %k = math.sincos %a : tensor<3x4xf64>
  %k2 = arith.mulf %k, %k : tensor<3x4xf64>
  %y = arith.addf %s, %k2 : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The scalar rules in a generic body, with a row-broadcast operand r.
func.func @loss_generic_math(%a: tensor<3x4xf64>, %r: tensor<4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %r : tensor<3x4xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %s: f64, %o: f64):
    %0 = math.sin %x : f64
    %1 = math.atan2 %0, %s : f64
    %2 = math.absf %1 : f64
    %3 = math.log1p %2 : f64
    %4 = math.cbrt %s : f64
    %5 = math.fma %3, %4, %x : f64
    %6 = math.copysign %5, %s : f64
    linalg.yield %6 : f64
  } -> tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Second derivatives: f's gradient (built from the rules) is differentiated.
func.func @f_trig(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = math.sin %a : tensor<3x4xf64>
  %1 = math.cos %0 : tensor<3x4xf64>
  %2 = math.tan %1 : tensor<3x4xf64>
  %3 = math.atan %2 : tensor<3x4xf64>
  %4 = math.asin %3 : tensor<3x4xf64>
  %5 = math.acos %3 : tensor<3x4xf64>
  %6 = arith.mulf %4, %5 : tensor<3x4xf64>
  %s, %k = math.sincos %6 : tensor<3x4xf64>
  %7 = arith.mulf %s, %k : tensor<3x4xf64>
  %l = nn.mean %7 : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @f_hyperbolic(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = math.sinh %a : tensor<3x4xf64>
  %1 = math.cosh %0 : tensor<3x4xf64>
  %2 = math.acosh %1 : tensor<3x4xf64>
  %3 = math.asinh %2 : tensor<3x4xf64>
  %h = arith.constant dense<0.25> : tensor<3x4xf64>
  %4 = arith.mulf %3, %h : tensor<3x4xf64>
  %5 = math.atanh %4 : tensor<3x4xf64>
  %l = nn.mean %5 : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @f_exp_log(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = math.exp2 %a : tensor<3x4xf64>
  %1 = math.log2 %0 : tensor<3x4xf64>
  %2 = math.expm1 %1 : tensor<3x4xf64>
  %3 = math.log1p %2 : tensor<3x4xf64>
  %4 = math.log10 %0 : tensor<3x4xf64>
  %5 = math.cbrt %4 : tensor<3x4xf64>
  %6 = math.erfc %3 : tensor<3x4xf64>
  %7 = arith.mulf %5, %6 : tensor<3x4xf64>
  %l = nn.mean %7 : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @f_binary(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<f64> {
  %0 = math.atan2 %a, %b : tensor<3x4xf64>
  %1 = math.copysign %0, %b : tensor<3x4xf64>
  %2 = arith.remf %a, %b : tensor<3x4xf64>
  %3 = math.fma %1, %2, %a : tensor<3x4xf64>
  %4 = math.absf %3 : tensor<3x4xf64>
  %n = arith.constant dense<3> : tensor<3x4xi32>
  %5 = math.fpowi %4, %n : tensor<3x4xf64>, tensor<3x4xi32>
  %l = nn.mean %5 : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @second_order_trig(%a: tensor<3x4xf64>) -> tensor<f64> {
  %g = ad.grad @f_trig(%a) {argnums = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %q = arith.mulf %g, %g : tensor<3x4xf64>
  %l = nn.mean %q : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @second_order_hyperbolic(%a: tensor<3x4xf64>) -> tensor<f64> {
  %g = ad.grad @f_hyperbolic(%a) {argnums = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %q = arith.mulf %g, %g : tensor<3x4xf64>
  %l = nn.mean %q : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @second_order_exp_log(%a: tensor<3x4xf64>) -> tensor<f64> {
  %g = ad.grad @f_exp_log(%a) {argnums = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %q = arith.mulf %g, %g : tensor<3x4xf64>
  %l = nn.mean %q : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @second_order_binary(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<f64> {
  %ga, %gb = ad.grad @f_binary(%a, %b) {argnums = array<i64: 0, 1>} : (tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  %qa = arith.mulf %ga, %ga : tensor<3x4xf64>
  %qb = arith.mulf %gb, %gb : tensor<3x4xf64>
  %q = arith.addf %qa, %qb : tensor<3x4xf64>
  %l = nn.mean %q : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Exact gradients at the edge points, of sum(op(x)) over 8 elements.
func.func @sum8(%y: tensor<8xf64>) -> tensor<f64> {
  %m = nn.mean %y : (tensor<8xf64>) -> tensor<f64>
  %k = arith.constant dense<8.0> : tensor<f64>
  %s = arith.mulf %m, %k : tensor<f64>
  return %s : tensor<f64>
}
func.func @f_absf8(%x: tensor<8xf64>) -> tensor<f64> {
  %y = math.absf %x : tensor<8xf64>
  %s = func.call @sum8(%y) : (tensor<8xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f_copysign8(%x: tensor<8xf64>, %sgn: tensor<8xf64>) -> tensor<f64> {
  %y = math.copysign %x, %sgn : tensor<8xf64>
  %s = func.call @sum8(%y) : (tensor<8xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f_rounding8(%x: tensor<8xf64>) -> tensor<f64> {
  %0 = math.ceil %x : tensor<8xf64>
  %1 = math.floor %x : tensor<8xf64>
  %2 = math.round %x : tensor<8xf64>
  %3 = math.roundeven %x : tensor<8xf64>
  %4 = math.trunc %x : tensor<8xf64>
  %a = arith.addf %0, %1 : tensor<8xf64>
  %b = arith.addf %2, %3 : tensor<8xf64>
  %c = arith.addf %a, %b : tensor<8xf64>
  %d = arith.addf %c, %4 : tensor<8xf64>
  %e = arith.addf %d, %x : tensor<8xf64>
  %s = func.call @sum8(%e) : (tensor<8xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f_fpowi8(%x: tensor<8xf64>, %n: tensor<8xi32>) -> tensor<f64> {
  %y = math.fpowi %x, %n : tensor<8xf64>, tensor<8xi32>
  %s = func.call @sum8(%y) : (tensor<8xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
func.func @edges(%x: tensor<8xf64>, %sgn: tensor<8xf64>, %n: tensor<8xi32>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %0 = ad.grad @f_absf8(%x) {argnums = array<i64: 0>} : (tensor<8xf64>) -> tensor<8xf64>
  %1 = ad.grad @f_copysign8(%x, %sgn) {argnums = array<i64: 0>} : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
  %2 = ad.grad @f_rounding8(%x) {argnums = array<i64: 0>} : (tensor<8xf64>) -> tensor<8xf64>
  %3 = ad.grad @f_fpowi8(%x, %n) {argnums = array<i64: 0>} : (tensor<8xf64>, tensor<8xi32>) -> tensor<8xf64>
  return %0, %1, %2, %3 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}
