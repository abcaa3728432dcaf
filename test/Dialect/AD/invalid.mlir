// One case per verifier constraint of the ad dialect, under the id of the
// constraint it breaks (docs/spec.md, section `ad`).
// RUN: trellis-opt %s -split-input-file -verify-diagnostics

// ad.grad-C2
func.func @undefined(%x: tensor<f32>) {
  // expected-error @+1 {{references an undefined function @nope}}
  %g = ad.grad @nope(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// ad.grad-C3
func.func private @external(tensor<f32>) -> tensor<f32>
func.func @uses_external(%x: tensor<f32>) {
  // expected-error @+1 {{cannot differentiate the external function @external}}
  %g = ad.grad @external(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// ad.grad-C4
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @arg_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{passes 2 argument(s) to a function taking 1}}
  %g = ad.grad @f(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// ad.grad-C5
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{argument #0 has type 'tensor<4xf32>' but the function takes 'tensor<3xf32>'}}
  %g = ad.grad @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ad.grad-C6
func.func @vector_loss(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @not_scalar(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects the function's first result to be a scalar float loss}}
  %g = ad.grad @vector_loss(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// ad.grad-C7
func.func @two(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m, %x : tensor<f32>, tensor<3xf32>
}
func.func @aux_without_flag(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects a function with a single result unless has_aux is set, got 2}}
  %g = ad.grad @two(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// ad.grad-C8
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @argnum_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{argnums entry 1 is out of range for 1 argument(s)}}
  %g = ad.grad @f(%x) {argnums = array<i64: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// ad.grad-C9
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @argnum_repeat(%x: tensor<3xf32>) {
  // expected-error @+1 {{argnums entry 0 is repeated}}
  %g:2 = ad.grad @f(%x) {argnums = array<i64: 0, 0>} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// ad.grad-C10
func.func @int_arg(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @not_differentiable(%x: tensor<3xf32>, %n: tensor<3xi32>) {
  // expected-error @+1 {{cannot differentiate with respect to argument #1 of non-float type 'tensor<3xi32>'}}
  %g = ad.grad @int_arg(%x, %n) {argnums = array<i64: 1>} : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// ad.grad-C11
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @grad_results(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects result types ('tensor<3xf32>')}}
  %g = ad.grad @f(%x) : (tensor<3xf32>) -> tensor<f32>
  return
}

// -----

// ad.value_and_grad-C11
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @value_and_grad_results(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects result types ('tensor<f32>', 'tensor<3xf32>')}}
  %g:2 = ad.value_and_grad @f(%x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  return
}

// -----

// ad.vjp-C4
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @vjp_count(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects 1 primal(s) and 1 cotangent(s), got 1 operand(s)}}
  %g:2 = ad.vjp @f(%x) : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

// ad.vjp-C6
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @vjp_cotangent_type(%x: tensor<3xf32>, %d: tensor<3xf32>) {
  // expected-error @+1 {{cotangent #0 has type 'tensor<3xf32>' but the function's result has type 'tensor<f32>'}}
  %g:2 = ad.vjp @f(%x, %d) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return
}

// -----

// ad.vjp-C7
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @vjp_results(%x: tensor<3xf32>, %d: tensor<f32>) {
  // expected-error @+1 {{expects result types ('tensor<f32>', 'tensor<3xf32>')}}
  %g = ad.vjp @f(%x, %d) : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// ad.checkpoint-C2
func.func @checkpoint_args(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects the body to take the types of the inputs}}
  %c = ad.checkpoint %x : tensor<3xf32> -> tensor<3xf32> {
  ^bb0(%a: tensor<4xf32>):
    ad.yield %x : tensor<3xf32>
  }
  return
}

// -----

// ad.checkpoint-C3
func.func @checkpoint_yield(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects the body to yield the types of the results}}
  %c = ad.checkpoint %x : tensor<3xf32> -> tensor<4xf32> {
  ^bb0(%a: tensor<3xf32>):
    ad.yield %a : tensor<3xf32>
  }
  return
}

// -----

// ad.checkpoint-C4
func.func @checkpoint_policy(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects policy 'nothing_saveable', 'dots_saveable' or 'save:NAME[,NAME...]', got 'everything'}}
  %c = ad.checkpoint %x {policy = "everything"} : tensor<3xf32> -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    ad.yield %a : tensor<3xf32>
  }
  return
}

// -----

// ad.checkpoint-C4
func.func @checkpoint_policy_empty_name(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects policy 'nothing_saveable', 'dots_saveable' or 'save:NAME[,NAME...]', got 'save:a,'}}
  %c = ad.checkpoint %x {policy = "save:a,"} : tensor<3xf32> -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %t = math.tanh %a {ad.name = "a"} : tensor<3xf32>
    ad.yield %t : tensor<3xf32>
  }
  return
}

// -----


// ad.yield-C2
func.func @yield_outside(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects parent op 'ad.checkpoint'}}
  "ad.yield"(%x) : (tensor<3xf32>) -> ()
  return
}
