// The verifiers of coll.psum_start, coll.pmean_start and coll.wait.
// RUN: trellis-opt %s -split-input-file -verify-diagnostics

func.func @mixed(%a: tensor<4xf32>, %b: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf64>) {
  // expected-error @+1 {{'coll.psum_start' op expects tensors of one element type, got 'f32' and 'f64'}}
  %r = coll.psum_start %a, %b {axis = "batch"} : tensor<4xf32>, tensor<4xf64>
  %x, %y = coll.wait %r : tensor<4xf32>, tensor<4xf64>
  return %x, %y : tensor<4xf32>, tensor<4xf64>
}

// -----

func.func @empty() {
  // expected-error @+1 {{'coll.pmean_start' op expects at least one tensor}}
  %r = "coll.pmean_start"() {axis = "batch"} : () -> !coll.request
  "coll.wait"(%r) : (!coll.request) -> ()
  return
}

// -----

func.func @no_wait(%a: tensor<4xf32>) {
  // expected-error @+1 {{'coll.psum_start' op expects its request to have exactly one use, a coll.wait in the same block}}
  %r = coll.psum_start %a {axis = "batch"} : tensor<4xf32>
  return
}

// -----

func.func @two_waits(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'coll.psum_start' op expects its request to have exactly one use, a coll.wait in the same block}}
  %r = coll.psum_start %a {axis = "batch"} : tensor<4xf32>
  %x = coll.wait %r : tensor<4xf32>
  %y = coll.wait %r : tensor<4xf32>
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @other_block(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  // expected-error @+1 {{'coll.psum_start' op expects its request to have exactly one use, a coll.wait in the same block}}
  %r = coll.psum_start %a {axis = "batch"} : tensor<4xf32>
  %y = scf.if %c -> tensor<4xf32> {
    %x = coll.wait %r : tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @wrong_types(%a: tensor<4xf32>) -> tensor<8xf32> {
  %r = coll.psum_start %a {axis = "batch"} : tensor<4xf32>
  // expected-error @+1 {{'coll.wait' op expects the types of its start's tensors, got 'tensor<8xf32>' for 'tensor<4xf32>'}}
  %x = coll.wait %r : tensor<8xf32>
  return %x : tensor<8xf32>
}

// -----

func.func @argument(%r: !coll.request) -> tensor<4xf32> {
  // expected-error @+1 {{'coll.wait' op expects a request of coll.psum_start or coll.pmean_start}}
  %x = coll.wait %r : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

func.func @bad_groups(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'coll.pmean_start' op expects disjoint groups, rank 0 appears twice}}
  %r = coll.pmean_start %a {axis = "batch", groups = dense<[[0, 0]]> : tensor<1x2xi64>} : tensor<4xf32>
  %x = coll.wait %r : tensor<4xf32>
  return %x : tensor<4xf32>
}
