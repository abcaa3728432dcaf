// Gradient checks (central finite differences, f64, 1e-6 relative;
// trellis_testing/gradcheck.py) of the differentiation machinery rather
// than single rules: fan-out (a value used three times), an unused
// argument (zero gradient), integer arguments between float ones, argnums
// out of order, the default argnums, a nested differentiable func.call
// (the same callee called twice), ad.checkpoint (weights captured in its
// body, two results of which one is unused; a reversible_serial inside
// a checkpoint), a loss that is an argument itself and a constant loss,
// ad.value_and_grad and ad.grad
// with has_aux = true (values and aux against a plain call), and ad.vjp
// with explicit cotangents (a linear map against NumPy's Jᵀ·u, a
// nonlinear one against finite differences of <u, f(x)>, and an integer
// primal, whose cotangent must be zeros).
// REQUIRES: numpy
// RUN: %python %S/structure.py %s %t | FileCheck %s

// CHECK: PASS fan_out.x:
// CHECK: PASS unused.x:
// CHECK: PASS unused.u:
// CHECK: PASS integer_args.b:
// CHECK: PASS integer_args.a:
// CHECK: PASS default_argnums.x:
// CHECK: PASS nested_call.x:
// CHECK: PASS nested_call.w:
// CHECK: PASS nested_call.b:
// CHECK: PASS checkpoint.x:
// CHECK: PASS checkpoint.h:
// CHECK: PASS checkpoint.w:
// CHECK: PASS checkpoint.b:
// CHECK: PASS serial_in_checkpoint.x1:
// CHECK: PASS serial_in_checkpoint.x2:
// CHECK: PASS serial_in_checkpoint.w:
// CHECK: PASS loss_is_argument.s:
// CHECK: PASS loss_is_argument.x:
// CHECK: PASS constant_loss.x:
// CHECK: PASS grad_has_aux.w:
// CHECK: PASS grad_has_aux.x:
// CHECK: PASS value_and_grad_has_aux.w:
// CHECK: PASS value_and_grad_has_aux.x:
// CHECK: PASS vjp_nonlinear.x:
// CHECK: PASS vjp_nonlinear.w:
// CHECK: PASS vjp_integer_primal.x:
// CHECK: PASS vjp_integer_primal.labels:
// CHECK: PASS value_and_grad_has_aux.value:
// CHECK: PASS value_and_grad_has_aux.aux0:
// CHECK: PASS value_and_grad_has_aux.aux1:
// CHECK: PASS grad_has_aux.aux0:
// CHECK: PASS grad_has_aux.aux1:
// CHECK: PASS vjp_linear.r0:
// CHECK: PASS vjp_linear.r1:
// CHECK: PASS vjp_linear.dx:
// CHECK: PASS vjp_linear.dy:
// CHECK: ALL CHECKS PASSED

// x reaches the loss three ways: tanh(x)·x + exp(x).
func.func @loss_fan_out(%x: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %t = nn.tanh %x : tensor<3x4xf64>
  %m = arith.mulf %t, %x : tensor<3x4xf64>
  %e = math.exp %x : tensor<3x4xf64>
  %s = arith.addf %m, %e : tensor<3x4xf64>
  %p = arith.mulf %s, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_unused(%x: tensor<3x4xf64>, %u: tensor<2x2xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %t = nn.tanh %x : tensor<3x4xf64>
  %p = arith.mulf %t, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Integer arguments before, between and after the float ones.
func.func @loss_integer_args(%ids: tensor<4xi32>, %a: tensor<4x5xf64>, %labels: tensor<4xi32>,
                             %b: tensor<4x5xf64>, %key: tensor<2xi32>) -> tensor<f64> {
  %m = arith.mulf %a, %b : tensor<4x5xf64>
  %d = nn.dropout %m, %key {rate = 2.0e-01 : f32} : (tensor<4x5xf64>, tensor<2xi32>) -> tensor<4x5xf64>
  %l = nn.cross_entropy %d, %labels : (tensor<4x5xf64>, tensor<4xi32>) -> tensor<f64>
  %e = nn.embedding %ids, %b : (tensor<4xi32>, tensor<4x5xf64>) -> tensor<4x5xf64>
  %me = nn.mean %e : (tensor<4x5xf64>) -> tensor<f64>
  %s = arith.addf %l, %me : tensor<f64>
  return %s : tensor<f64>
}

// ad.grad without argnums differentiates the first argument.
func.func @grad_default_argnums(%x: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = ad.grad @loss_fan_out(%x, %c) : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

func.func @inner_act(%h: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = nn.gelu %h : tensor<3x4xf64>
  %t = arith.mulf %g, %h : tensor<3x4xf64>
  return %t : tensor<3x4xf64>
}

func.func @inner_layer(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>, %b: tensor<4xf64>) -> tensor<3x4xf64> {
  %h = nn.dense %x, %w, %b : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %a = func.call @inner_act(%h) : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %a : tensor<3x4xf64>
}

// Two calls of the same differentiable callee (which itself calls another).
func.func @loss_nested_call(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>, %b: tensor<4xf64>,
                            %c: tensor<3x4xf64>) -> tensor<f64> {
  %y1 = func.call @inner_layer(%x, %w, %b)
      : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %y2 = func.call @inner_layer(%y1, %w, %b)
      : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %p = arith.mulf %y2, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// A checkpointed block with two inputs and two results (the second result
// does not reach the loss); w and b are captured in the body.
func.func @loss_checkpoint(%x: tensor<3x4xf64>, %h: tensor<3x4xf64>, %w: tensor<4x4xf64>,
                           %b: tensor<4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %y, %z = ad.checkpoint %x, %h : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>, tensor<3x4xf64> {
  ^bb0(%a: tensor<3x4xf64>, %e: tensor<3x4xf64>):
    %d = nn.dense %a, %w, %b : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
    %t = nn.tanh %d : tensor<3x4xf64>
    %m = arith.mulf %t, %e : tensor<3x4xf64>
    %q = nn.gelu %e : tensor<3x4xf64>
    ad.yield %m, %q : tensor<3x4xf64>, tensor<3x4xf64>
  }
  %s = nn.softmax %y : tensor<3x4xf64>
  %p = arith.mulf %s, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  %u = arith.addf %x, %y : tensor<3x4xf64>
  %lu = nn.mean %u : (tensor<3x4xf64>) -> tensor<f64>
  %r = arith.addf %l, %lu : tensor<f64>
  return %r : tensor<f64>
}

func.func @loss_serial_in_checkpoint(%x1: tensor<2x3xf64>, %x2: tensor<2x3xf64>, %w: tensor<3x3xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %y1, %y2 = ad.checkpoint %x1, %x2 : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>, tensor<2x3xf64> {
  ^bb0(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>):
    %s1, %s2 = nn.reversible_serial %a, %b : tensor<2x3xf64>, tensor<2x3xf64> {
    ^bb0(%u: tensor<2x3xf64>, %v: tensor<2x3xf64>):
      %u1, %v1 = nn.reversible_half_residual %u, %v : tensor<2x3xf64>, tensor<2x3xf64> {
      ^bb0(%ctx: tensor<2x3xf64>):
        %zero = arith.constant dense<0.0> : tensor<3xf64>
        %d = nn.dense %ctx, %w, %zero : (tensor<2x3xf64>, tensor<3x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
        %r = nn.tanh %d : tensor<2x3xf64>
        nn.yield %r : tensor<2x3xf64>
      }
      %p1, %p2 = nn.reversible_swap %u1, %v1 : tensor<2x3xf64>, tensor<2x3xf64>
      nn.yield %p1, %p2 : tensor<2x3xf64>, tensor<2x3xf64>
    }
    ad.yield %s1, %s2 : tensor<2x3xf64>, tensor<2x3xf64>
  }
  %m = arith.mulf %y1, %y2 : tensor<2x3xf64>
  %q = arith.mulf %m, %c : tensor<2x3xf64>
  %l = nn.mean %q : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The loss is the argument s itself (gradient 1); x is unused.
func.func @loss_is_argument(%s: tensor<f64>, %x: tensor<3xf64>) -> tensor<f64> {
  return %s : tensor<f64>
}

func.func @loss_constant(%x: tensor<3xf64>) -> tensor<f64> {
  %k = arith.constant dense<1.5> : tensor<f64>
  return %k : tensor<f64>
}

// A loss with two aux results (a tensor and a 0-d tensor).
func.func @loss_aux(%w: tensor<4x3xf64>, %x: tensor<5x4xf64>, %y: tensor<5xi32>)
    -> (tensor<f64>, tensor<5x3xf64>, tensor<f64>) {
  %z = arith.constant dense<0.25> : tensor<3xf64>
  %h = nn.dense %x, %w, %z : (tensor<5x4xf64>, tensor<4x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
  %t = nn.tanh %h : tensor<5x3xf64>
  %l = nn.cross_entropy %t, %y : (tensor<5x3xf64>, tensor<5xi32>) -> tensor<f64>
  %m = nn.mean %h : (tensor<5x3xf64>) -> tensor<f64>
  return %l, %t, %m : tensor<f64>, tensor<5x3xf64>, tensor<f64>
}

func.func @value_and_grad_aux(%w: tensor<4x3xf64>, %x: tensor<5x4xf64>, %y: tensor<5xi32>)
    -> (tensor<f64>, tensor<5x3xf64>, tensor<f64>, tensor<4x3xf64>, tensor<5x4xf64>) {
  %l, %t, %m, %gw, %gx = ad.value_and_grad @loss_aux(%w, %x, %y)
      {argnums = array<i64: 0, 1>, has_aux = true}
      : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<5xi32>)
      -> (tensor<f64>, tensor<5x3xf64>, tensor<f64>, tensor<4x3xf64>, tensor<5x4xf64>)
  return %l, %t, %m, %gw, %gx
      : tensor<f64>, tensor<5x3xf64>, tensor<f64>, tensor<4x3xf64>, tensor<5x4xf64>
}

func.func @grad_aux(%w: tensor<4x3xf64>, %x: tensor<5x4xf64>, %y: tensor<5xi32>)
    -> (tensor<4x3xf64>, tensor<5x4xf64>, tensor<5x3xf64>, tensor<f64>) {
  %gw, %gx, %t, %m = ad.grad @loss_aux(%w, %x, %y) {argnums = array<i64: 0, 1>, has_aux = true}
      : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<5xi32>)
      -> (tensor<4x3xf64>, tensor<5x4xf64>, tensor<5x3xf64>, tensor<f64>)
  return %gw, %gx, %t, %m : tensor<4x3xf64>, tensor<5x4xf64>, tensor<5x3xf64>, tensor<f64>
}

// A linear map: r0 = x·M, r1 = 2·y − x[1, :].
func.func @linear_map(%x: tensor<3x4xf64>, %y: tensor<4xf64>) -> (tensor<3x2xf64>, tensor<4xf64>) {
  %M = arith.constant dense<[[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25], [2.0, 1.0]]> : tensor<4x2xf64>
  %two = arith.constant dense<2.0> : tensor<4xf64>
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x2xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3x2xf64>) -> tensor<3x2xf64>
  %r0 = linalg.matmul ins(%x, %M : tensor<3x4xf64>, tensor<4x2xf64>) outs(%z : tensor<3x2xf64>) -> tensor<3x2xf64>
  %row = tensor.extract_slice %x[1, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
  %y2 = arith.mulf %two, %y : tensor<4xf64>
  %r1 = arith.subf %y2, %row : tensor<4xf64>
  return %r0, %r1 : tensor<3x2xf64>, tensor<4xf64>
}

func.func @vjp_linear(%x: tensor<3x4xf64>, %y: tensor<4xf64>, %u0: tensor<3x2xf64>, %u1: tensor<4xf64>)
    -> (tensor<3x2xf64>, tensor<4xf64>, tensor<3x4xf64>, tensor<4xf64>) {
  %r0, %r1, %dx, %dy = ad.vjp @linear_map(%x, %y, %u0, %u1)
      : (tensor<3x4xf64>, tensor<4xf64>, tensor<3x2xf64>, tensor<4xf64>)
      -> (tensor<3x2xf64>, tensor<4xf64>, tensor<3x4xf64>, tensor<4xf64>)
  return %r0, %r1, %dx, %dy : tensor<3x2xf64>, tensor<4xf64>, tensor<3x4xf64>, tensor<4xf64>
}

// A nonlinear map with a 0-d result, and <u, f(x, w)> for its FD check.
func.func @nonlinear_map(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>) -> (tensor<3x4xf64>, tensor<f64>) {
  %z = arith.constant dense<0.0> : tensor<4xf64>
  %h = nn.dense %x, %w, %z : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %t = nn.tanh %h : tensor<3x4xf64>
  %xx = arith.mulf %x, %x : tensor<3x4xf64>
  %m = nn.mean %xx : (tensor<3x4xf64>) -> tensor<f64>
  return %t, %m : tensor<3x4xf64>, tensor<f64>
}

func.func @vjp_nonlinear(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>, %u0: tensor<3x4xf64>, %u1: tensor<f64>)
    -> (tensor<3x4xf64>, tensor<f64>, tensor<3x4xf64>, tensor<4x4xf64>) {
  %t, %m, %dx, %dw = ad.vjp @nonlinear_map(%x, %w, %u0, %u1)
      : (tensor<3x4xf64>, tensor<4x4xf64>, tensor<3x4xf64>, tensor<f64>)
      -> (tensor<3x4xf64>, tensor<f64>, tensor<3x4xf64>, tensor<4x4xf64>)
  return %t, %m, %dx, %dw : tensor<3x4xf64>, tensor<f64>, tensor<3x4xf64>, tensor<4x4xf64>
}

// Σ u0 ⊙ t + u1 · m, whose gradient is the VJP above.
func.func @nonlinear_dot(%x: tensor<3x4xf64>, %w: tensor<4x4xf64>, %u0: tensor<3x4xf64>,
                         %u1: tensor<f64>) -> tensor<f64> {
  %t, %m = func.call @nonlinear_map(%x, %w) : (tensor<3x4xf64>, tensor<4x4xf64>) -> (tensor<3x4xf64>, tensor<f64>)
  %p = arith.mulf %t, %u0 : tensor<3x4xf64>
  %pm = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  %twelve = arith.constant dense<12.0> : tensor<f64>
  %ps = arith.mulf %pm, %twelve : tensor<f64>
  %q = arith.mulf %m, %u1 : tensor<f64>
  %r = arith.addf %ps, %q : tensor<f64>
  return %r : tensor<f64>
}

// ad.vjp with an integer primal (the labels): its cotangent is zeros.
func.func @loss_labels_scaled(%x: tensor<4x5xf64>, %labels: tensor<4xi32>, %u: tensor<f64>) -> tensor<f64> {
  %l = nn.cross_entropy %x, %labels : (tensor<4x5xf64>, tensor<4xi32>) -> tensor<f64>
  %s = arith.mulf %l, %u : tensor<f64>
  return %s : tensor<f64>
}

func.func @loss_labels(%x: tensor<4x5xf64>, %labels: tensor<4xi32>) -> tensor<f64> {
  %l = nn.cross_entropy %x, %labels : (tensor<4x5xf64>, tensor<4xi32>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @vjp_integer_primal(%x: tensor<4x5xf64>, %labels: tensor<4xi32>, %u: tensor<f64>)
    -> (tensor<f64>, tensor<4x5xf64>, tensor<4xi32>) {
  %l, %dx, %dl = ad.vjp @loss_labels(%x, %labels, %u)
      : (tensor<4x5xf64>, tensor<4xi32>, tensor<f64>) -> (tensor<f64>, tensor<4x5xf64>, tensor<4xi32>)
  return %l, %dx, %dl : tensor<f64>, tensor<4x5xf64>, tensor<4xi32>
}
