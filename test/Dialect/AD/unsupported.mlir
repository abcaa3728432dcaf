// Valid IR that ad-differentiate cannot handle gets a diagnostic naming the
// op and the reason, never a crash (issue 8). Unsupported types, shapes and
// ops; see test/Dialect/AD/ad-differentiate-invalid.mlir for callees without
// bodies, multi-block functions and non-additive reductions.
// RUN: trellis-opt %s -split-input-file --ad-differentiate -verify-diagnostics

// A dynamically shaped argument: the rules build their temporaries from
// static shapes (this crashed in tensor.empty before).
// expected-error @+1 {{'func.func' op cannot be differentiated: argument #0 has the type 'tensor<?xf32>'; only statically shaped tensors are supported}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<f32> {
  %y = arith.mulf %x, %x : tensor<?xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %r = linalg.reduce ins(%y : tensor<?xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
func.func @grad_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @dynamic(%x) {argnums = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
  return %g : tensor<?xf32>
}

// -----

// Static arguments, a dynamic intermediate.
func.func @dynamic_inside(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tensor.cast' op cannot be differentiated: result #0 has the type 'tensor<?xf32>'; only statically shaped tensors are supported}}
  %d = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  %y = arith.mulf %d, %d : tensor<?xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %r = linalg.reduce ins(%y : tensor<?xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
func.func @grad_dynamic_inside(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @dynamic_inside(%x) {argnums = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// An unranked argument.
// expected-error @+1 {{argument #0 has the type 'tensor<*xf32>'; only statically shaped tensors are supported}}
func.func @unranked(%x: tensor<*xf32>) -> tensor<f32> {
  %c = tensor.cast %x : tensor<*xf32> to tensor<f32>
  %y = arith.mulf %c, %c : tensor<f32>
  return %y : tensor<f32>
}
func.func @grad_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @unranked(%x) {argnums = array<i64: 0>} : (tensor<*xf32>) -> tensor<*xf32>
  return %g : tensor<*xf32>
}

// -----

// A trip count known at run time only, of a loop over i32 bounds (index
// bounds are supported: test/Dialect/AD/ad-differentiate-dynamic-loops.mlir).
func.func @dynamic_trip_count(%x: f32, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'scf.for' op cannot be differentiated: a trip count known at run time only needs index bounds}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> f32 : i32 {
    %d = arith.mulf %a, %a : f32
    scf.yield %d : f32
  }
  return %r : f32
}
func.func @grad_dynamic_trip_count(%x: f32, %n: i32) -> f32 {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @dynamic_trip_count(%x, %n) {argnums = array<i64: 0>} : (f32, i32) -> f32
  return %g : f32
}

// -----

// Buffers and vectors are not differentiated (tensors and scalars are).
func.func @memref_arg(%x: memref<4xf32>) -> f32 {
  %c = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op cannot be differentiated: it has no reverse-mode rule}}
  %y = memref.load %x[%c] : memref<4xf32>
  return %y : f32
}
func.func @grad_memref_arg(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @memref_arg(%x) {argnums = array<i64: 0>} : (memref<4xf32>) -> memref<4xf32>
  return %g : memref<4xf32>
}

// -----

// A matmul with user-defined (transposed) indexing maps.
func.func @transposed_matmul(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @+1 {{'linalg.matmul' op with user-defined indexing maps cannot be differentiated yet}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%r : tensor<4x4xf32>) outs(%s0 : tensor<f32>) dimensions = [0, 1]
    (%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_transposed_matmul(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @transposed_matmul(%a, %b) {argnums = array<i64: 0>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}

// -----

// A convolution-like input map (not a projection).
#shift = affine_map<(d0, d1) -> (d0 + d1)>
#tap = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @convolution(%x: tensor<6xf32>, %k: tensor<3xf32>) -> tensor<f32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{'linalg.generic' op cannot be differentiated: input #0 has an indexing map that is not a projection}}
  %c = linalg.generic {indexing_maps = [#shift, #tap, #out], iterator_types = ["parallel", "reduction"]} ins(%x, %k : tensor<6xf32>, tensor<3xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %s0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%c : tensor<4xf32>) outs(%s0 : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_convolution(%x: tensor<6xf32>, %k: tensor<3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @convolution(%x, %k) {argnums = array<i64: 0>} : (tensor<6xf32>, tensor<3xf32>) -> tensor<6xf32>
  return %g : tensor<6xf32>
}

// -----

// Generics with two outputs, products as reductions.
func.func @two_outputs(%x: tensor<4xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.generic' op cannot be differentiated: only single-output generics on tensors are supported}}
  %a, %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%i: f32, %o1: f32, %o2: f32):
    %m = arith.mulf %i, %i : f32
    linalg.yield %m, %i : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %s0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%a : tensor<4xf32>) outs(%s0 : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %t = arith.addf %p, %q : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_two_outputs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @two_outputs(%x) {argnums = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @product(%x: tensor<4xf32>) -> tensor<f32> {
  %s0 = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{'linalg.reduce' op cannot be differentiated: only single-input sum reductions are supported}}
  %s = linalg.reduce ins(%x : tensor<4xf32>) outs(%s0 : tensor<f32>) dimensions = [0]
    (%p: f32, %q: f32) {
      %t = arith.mulf %p, %q : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @grad_product(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{could not be differentiated (see above)}}
  %g = ad.grad @product(%x) {argnums = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
