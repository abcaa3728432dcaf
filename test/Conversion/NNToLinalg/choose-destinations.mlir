// trellis-choose-destinations: an element-wise op writes over an operand
// that dies there (produced by a linalg op of the block, directly or
// through reshapes, same type and indexing map); other users of a shared tensor.empty get one each, right
// before them; uses inside a loop share the clone placed before the loop.
// RUN: trellis-opt %s --split-input-file --trellis-choose-destinations | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// The tanh writes over the exp's result, read by nothing after it; the exp
// reads a function argument, which is never overwritten.
// CHECK-LABEL: func.func @over_dying
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%[[E0]] : tensor<8xf32>)
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8xf32>) outs(%[[A]] : tensor<8xf32>)
// CHECK-NOT: tensor.empty
// CHECK: return %[[B]]
func.func @over_dying(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %b : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// The exp's result is returned too (it does not die at the tanh), so the
// tanh gets an empty of its own, right before it.
// CHECK-LABEL: func.func @still_read
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<8xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8xf32>) outs(%[[E1]] : tensor<8xf32>)
// CHECK: return %[[A]], %[[B]]
func.func @still_read(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// An operand read under another indexing map (a transpose) is not
// overwritten: element (i, j) is written before (j, i) is read.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E1]] : tensor<4x4xf32>)
func.func @transposed(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// -----

// The loop's uses keep one empty, before the loop; the fill after it gets
// its own. A dynamic size is carried over.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK: %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: scf.for
// CHECK: linalg.fill {{.*}} outs(%[[E0]] : tensor<?xf32>)
// CHECK: linalg.copy {{.*}} outs(%[[E0]] : tensor<?xf32>)
// CHECK: %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[E1]] : tensor<?xf32>)
func.func @loop(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %c = linalg.copy ins(%acc : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %c : tensor<?xf32>
  }
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r, %z : tensor<?xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @one_use
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: arith.constant
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK-NOT: tensor.empty
func.func @one_use() -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A GEMM's 2-d result reshaped to the layer's shape (GELU's gradient in
// the backward pass): the element-wise op writes over the reshape, which
// bufferizes in place on the GEMM's buffer.
// CHECK-LABEL: func.func @through_reshape
// CHECK: %[[G:.*]] = linalg.matmul
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[G]]
// CHECK-NOT: tensor.empty
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[R]], %{{.*}} : tensor<1x4x4xf32>, tensor<1x4x4xf32>) outs(%[[R]] : tensor<1x4x4xf32>)
func.func @through_reshape(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %u: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 4, 4] : tensor<4x4xf32> into tensor<1x4x4xf32>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %d = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %u : tensor<1x4x4xf32>, tensor<1x4x4xf32>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %v = arith.mulf %x, %y : f32
    linalg.yield %v : f32
  } -> tensor<1x4x4xf32>
  return %d : tensor<1x4x4xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The GEMM's result is read after the element-wise op through itself: its
// reshape is not overwritten.
// CHECK-LABEL: func.func @reshape_source_read_after
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<1x4x4xf32>)
func.func @reshape_source_read_after(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<1x4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 4, 4] : tensor<4x4xf32> into tensor<1x4x4xf32>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %d = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x4x4xf32>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %v = math.tanh %x : f32
    linalg.yield %v : f32
  } -> tensor<1x4x4xf32>
  return %d, %g : tensor<1x4x4xf32>, tensor<4x4xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The same buffer read through a second view of another shape: not
// overwritten (the second view's elements are read in another order).
// CHECK-LABEL: func.func @two_views
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<1x4x4xf32>)
func.func @two_views(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 4, 4] : tensor<4x4xf32> into tensor<1x4x4xf32>
  %s = tensor.expand_shape %g [[0], [1, 2]] output_shape [4, 1, 4] : tensor<4x4xf32> into tensor<4x1x4xf32>
  %t = tensor.collapse_shape %s [[0, 1], [2]] : tensor<4x1x4xf32> into tensor<4x4xf32>
  %q = tensor.expand_shape %t [[0], [1, 2]] output_shape [4, 1, 4] : tensor<4x4xf32> into tensor<4x1x4xf32>
  %e = tensor.empty() : tensor<1x4x4xf32>
  %d = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d2, d0, d1)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %q : tensor<1x4x4xf32>, tensor<4x1x4xf32>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %v = arith.addf %x, %y : f32
    linalg.yield %v : f32
  } -> tensor<1x4x4xf32>
  return %d : tensor<1x4x4xf32>
}
