// One case per verifier constraint of the coll dialect, under the id of the
// constraint it breaks (docs/spec.md, section `coll`).
// RUN: trellis-opt %s -split-input-file -verify-diagnostics

// coll.psum-C3
func.func @empty_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects a non-empty axis name}}
  %0 = coll.psum %x {axis = ""} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.psum-C4
func.func @groups_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects groups of rank 2 (a list of rank lists), got rank 1}}
  %0 = coll.psum %x {axis = "batch", groups = dense<[0, 1]> : tensor<2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.pmean-C7
func.func @groups_overlap(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects disjoint groups, rank 1 appears twice}}
  %0 = coll.pmean %x {axis = "batch", groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.adasum-C6
func.func @groups_not_covering(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects groups to cover the ranks 0..3, got rank 5}}
  %0 = coll.adasum %x {axis = "batch", groups = dense<[[0, 5], [1, 2]]> : tensor<2x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.psum-C5
func.func @groups_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects at least one non-empty group}}
  %0 = coll.psum %x {axis = "batch", groups = dense<> : tensor<0x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.ppermute-C4
func.func @pairs_shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects pairs of shape Nx2 ([source, destination] rows), got 'tensor<1x3xi64>'}}
  %0 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.ppermute-C5
func.func @pairs_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects non-negative ranks in pairs, got [-1, 0]}}
  %0 = coll.ppermute %x {axis = "batch", pairs = dense<[[-1, 0]]> : tensor<1x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.ppermute-C6
func.func @pairs_repeated_source(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects each rank to be the source of one pair at most, rank 0 sends twice}}
  %0 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.ppermute-C7
func.func @pairs_repeated_destination(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects each rank to be the destination of one pair at most, rank 2 receives twice}}
  %0 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 2], [1, 2]]> : tensor<2x2xi64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// coll.all_gather-C4
func.func @gather_dim(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{expects dim in [0, 2), got 2}}
  %0 = coll.all_gather %x {axis = "batch", dim = 2 : i64} : tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// coll.all_gather-C5
func.func @gather_rank(%x: tensor<2x3xf32>) -> tensor<12xf32> {
  // expected-error @+1 {{expects a result of rank 2, got rank 1}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

// coll.all_gather-C6
func.func @gather_other_dim(%x: tensor<2x3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expects the result to match x outside dim 0, dimension 1 is 4 instead of 3}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// coll.all_gather-C7
func.func @gather_multiple(%x: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{expects the result's dim 0 to be a positive multiple (the number of ranks) of 2, got 5}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// coll.all_gather-C8
func.func @gather_groups_overlap(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{expects disjoint groups, rank 1 appears twice}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64, groups = dense<[[0, 1], [1, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// coll.psum_scatter-C7
func.func @scatter_multiple(%x: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects x's dim 0 to be a positive multiple (the number of ranks) of 2, got 5}}
  %0 = coll.psum_scatter %x {axis = "batch", dim = 0 : i64} : tensor<5x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// coll.psum_scatter-C6
func.func @scatter_other_dim(%x: tensor<4x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{expects the result to match x outside dim 0, dimension 1 is 4 instead of 3}}
  %0 = coll.psum_scatter %x {axis = "batch", dim = 0 : i64} : tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// coll.psum_scatter-C9
func.func @scatter_groups_size(%x: tensor<8x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects x's dim 0 to be the group size 2 times the result's, got 8 for 2}}
  %0 = coll.psum_scatter %x {axis = "batch", dim = 0 : i64, groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<8x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// coll.all_gather-C9
func.func @gather_groups_size(%x: tensor<2x3xf32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{expects the result's dim 0 to be the group size 2 times x's, got 8 for 2}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64, groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// coll.all_gather-C3
func.func @gather_element_type(%x: tensor<2x3xf32>) -> tensor<4x3xf64> {
  // expected-error @+1 {{expects the result's element type to be x's, got 'f64' and 'f32'}}
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

// coll.psum-C2
func.func @psum_types(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "coll.psum"(%x) {axis = "batch"} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// coll.psum-C1
func.func @psum_integer(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = "coll.psum"(%x) {axis = "batch"} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
