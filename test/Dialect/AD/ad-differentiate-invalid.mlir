// What ad-differentiate cannot handle becomes a diagnostic, not a crash.
// RUN: trellis-opt %s -split-input-file --ad-differentiate -verify-diagnostics

func.func private @opaque(tensor<3xf32>) -> tensor<3xf32>
func.func @through_external(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op cannot be differentiated: its callee has no body}}
  %y = func.call @opaque(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %m = nn.mean %y : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @through_external(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func @no_rule(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'math.clampf' op cannot be differentiated: it has no reverse-mode rule}}
  %y = math.clampf %x to [%x, %x] : tensor<3xf32>
  %m = nn.mean %y : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @no_rule(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// expected-error @+1 {{has more than one block; only structured control flow can be differentiated}}
func.func @branches(%x: tensor<3xf32>, %c: i1) -> tensor<f32> {
  cf.cond_br %c, ^a, ^b
^a:
  %m = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
^b:
  %n = nn.mean %x : (tensor<3xf32>) -> tensor<f32>
  return %n : tensor<f32>
}
func.func @use(%x: tensor<3xf32>, %c: i1) -> tensor<3xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @branches(%x, %c) : (tensor<3xf32>, i1) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func @recursive(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{differentiates a function that (transitively) contains itself}}
  %g = ad.grad @recursive(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %m = nn.mean %g : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = ad.grad @recursive(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func @max_with_init(%x: tensor<4x3xf32>, %init: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'linalg.generic' op cannot be differentiated: a reduction must combine the output with addf, maximumf or minimumf}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %acc : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  %m = nn.mean %r : (tensor<4xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use(%x: tensor<4x3xf32>, %i: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @max_with_init(%x, %i) : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

// ad.checkpoint-C5, checked when the checkpoint is differentiated (passes
// that lower its body before then drop the ops' attributes).
func.func @unknown_save(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{policy saves 'b', but no op of the body has ad.name = "b"}}
  %c = ad.checkpoint %x {policy = "save:a,b"} : tensor<3xf32> -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %t = math.tanh %a {ad.name = "a"} : tensor<3xf32>
    ad.yield %t : tensor<3xf32>
  }
  %m = nn.mean %c : (tensor<3xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
func.func @use_unknown_save(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @unknown_save(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
