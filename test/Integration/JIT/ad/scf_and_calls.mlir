// Gradients through scf.for (carried values taped per iteration), scf.if
// (both branches), and calls — inlined, and through the callee's VJP
// function with inline-callees=false — against central differences in f64.
// REQUIRES: numpy
// RUN: %python %S/scf_and_calls.py %s %t

func.func @step(%a: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %t = math.tanh %a : tensor<3xf64>
  %m = arith.mulf %t, %w : tensor<3xf64>
  return %m : tensor<3xf64>
}

func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>, %c: i1) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %m = func.call @step(%a, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  }
  %s = scf.if %c -> tensor<3xf64> {
    %e = math.exp %r : tensor<3xf64>
    scf.yield %e : tensor<3xf64>
  } else {
    %q = arith.mulf %r, %w : tensor<3xf64>
    scf.yield %q : tensor<3xf64>
  }
  %l = nn.mean %s : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_true(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c = arith.constant true
  %l = func.call @f(%x, %w, %c) : (tensor<3xf64>, tensor<3xf64>, i1) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @loss_false(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c = arith.constant false
  %l = func.call @f(%x, %w, %c) : (tensor<3xf64>, tensor<3xf64>, i1) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @grad_true(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %gx, %gw = ad.grad @loss_true(%x, %w) {argnums = array<i64: 0, 1>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %gx, %gw : tensor<3xf64>, tensor<3xf64>
}
func.func @grad_false(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %gx, %gw = ad.grad @loss_false(%x, %w) {argnums = array<i64: 0, 1>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %gx, %gw : tensor<3xf64>, tensor<3xf64>
}
