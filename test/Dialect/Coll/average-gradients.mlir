// coll-average-gradients replaces the uses of every gradient of ad.grad and
// ad.value_and_grad (not the loss, not aux results) by its reduction.
// RUN: trellis-opt %s --coll-average-gradients | FileCheck %s --check-prefix=CHECK-MEAN
// RUN: trellis-opt %s '--coll-average-gradients=reduce=adasum' | FileCheck %s --check-prefix=CHECK-ADASUM
// RUN: trellis-opt %s '--coll-average-gradients=reduce=adasum-approx' | FileCheck %s --check-prefix=CHECK-APPROX
// RUN: trellis-opt %s '--coll-average-gradients=weight-shards=2 ranks=4' | FileCheck %s --check-prefix=CHECK-SHARDS
// RUN: not trellis-opt %s '--coll-average-gradients=weight-shards=2' 2>&1 | FileCheck %s --check-prefix=CHECK-NORANKS
// RUN: not trellis-opt %s '--coll-average-gradients=reduce=sum' 2>&1 | FileCheck %s --check-prefix=CHECK-BADREDUCE
// RUN: trellis-opt %s '--coll-average-gradients=wrt=parameter' | FileCheck %s --check-prefix=CHECK-PARAMS
// RUN: trellis-opt %s '--coll-average-gradients=wrt=batch,other' | FileCheck %s --check-prefix=CHECK-DATA
// RUN: not trellis-opt %s '--coll-average-gradients=wrt=params' 2>&1 | FileCheck %s --check-prefix=CHECK-BADWRT
// After ad-differentiate there is nothing to reduce: an error naming the order.
// RUN: not trellis-opt %s --ad-differentiate --coll-average-gradients 2>&1 | FileCheck %s --check-prefix=CHECK-ORDER

func.func @loss(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>) {
  %y = nn.dense %x, %w, %b : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %l = nn.mean %y : (tensor<8x3xf32>) -> tensor<f32>
  return %l, %y : tensor<f32>, tensor<8x3xf32>
}

// CHECK-MEAN-LABEL: func.func @value_and_grad
// CHECK-MEAN: %[[R:.*]]:4 = ad.value_and_grad @loss
// CHECK-MEAN-DAG: %[[GW:.*]] = coll.pmean %[[R]]#2 {axis = "batch"} : tensor<4x3xf32>
// CHECK-MEAN-DAG: %[[GB:.*]] = coll.pmean %[[R]]#3 {axis = "batch"} : tensor<3xf32>
// CHECK-MEAN: return %[[R]]#0, %[[R]]#1, %[[GW]], %[[GB]]
// CHECK-ADASUM-LABEL: func.func @value_and_grad
// CHECK-ADASUM: coll.adasum %{{.*}}#2 {axis = "batch"} : tensor<4x3xf32>
// CHECK-ADASUM: coll.adasum %{{.*}}#3 {axis = "batch"} : tensor<3xf32>
func.func @value_and_grad(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32>)
    -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<3xf32>) {
  %l, %y, %gw, %gb = ad.value_and_grad @loss(%w, %b, %x) {argnums = array<i64: 0, 1>, has_aux = true}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<3xf32>)
  return %l, %y, %gw, %gb : tensor<f32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<3xf32>
}

// The approximation of Trax's first version: psum(g · (1 − (g·Σg − ‖g‖²) / (n·‖g‖²))).
// CHECK-APPROX-LABEL: func.func @grad
// CHECK-APPROX: %[[G:.*]]:3 = ad.grad @loss
// CHECK-APPROX: %[[SUM:.*]] = coll.psum %[[G]]#0 {axis = "batch"} : tensor<4x3xf32>
// CHECK-APPROX: linalg.dot
// CHECK-APPROX: linalg.dot
// CHECK-APPROX: coll.axis_size {axis = "batch"} : index
// CHECK-APPROX: %[[SCALED:.*]] = arith.mulf %[[G]]#0, %{{.*}} : tensor<4x3xf32>
// CHECK-APPROX: %[[RED:.*]] = coll.psum %[[SCALED]] {axis = "batch"} : tensor<4x3xf32>
// CHECK-APPROX: arith.subf %{{.*}}, %[[RED]]
// Weight shards: ranks with equal r mod 2 are reduced together.
// CHECK-SHARDS-LABEL: func.func @grad
// CHECK-SHARDS: coll.pmean %{{.*}}#0 {axis = "batch", groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<4x3xf32>
func.func @grad(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %gw, %gb, %y = ad.grad @loss(%w, %b, %x) {argnums = array<i64: 0, 1>, has_aux = true}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<8x3xf32>)
  %w2 = arith.subf %w, %gw : tensor<4x3xf32>
  return %w2, %gb : tensor<4x3xf32>, tensor<3xf32>
}

// CHECK-NORANKS: error: coll-average-gradients: weight-shards=2 needs ranks=N, a positive multiple of it, to form the shard groups
// CHECK-BADREDUCE: for the --reduce option: Cannot find option named 'sum'!

// The kinds of `wrt`: the gradient of a parameter (an argument without
// trellis.batch), of data (with it) and of an intermediate. By default all
// three are reduced.
// CHECK-MEAN-LABEL: func.func @kinds
// CHECK-MEAN: %[[G:.*]]:2 = ad.grad @plain_loss
// CHECK-MEAN: %[[GW:.*]] = coll.pmean %[[G]]#0
// CHECK-MEAN: %[[GX:.*]] = coll.pmean %[[G]]#1
// CHECK-MEAN: %[[GH:.*]] = ad.grad @plain_loss
// CHECK-MEAN: %[[GHR:.*]] = coll.pmean %[[GH]]
// CHECK-MEAN: return %[[GW]], %[[GX]], %[[GHR]]
// CHECK-PARAMS-LABEL: func.func @kinds
// CHECK-PARAMS: %[[G:.*]]:2 = ad.grad @plain_loss
// CHECK-PARAMS: %[[GW:.*]] = coll.pmean %[[G]]#0 {axis = "batch"} : tensor<4x3xf32>
// CHECK-PARAMS: %[[GH:.*]] = ad.grad @plain_loss
// CHECK-PARAMS-NOT: coll.pmean
// CHECK-PARAMS: return %[[GW]], %[[G]]#1, %[[GH]]
// CHECK-DATA-LABEL: func.func @kinds
// CHECK-DATA: %[[G:.*]]:2 = ad.grad @plain_loss
// CHECK-DATA: %[[GX:.*]] = coll.pmean %[[G]]#1 {axis = "batch"} : tensor<8x4xf32>
// CHECK-DATA: %[[GH:.*]] = ad.grad @plain_loss
// CHECK-DATA: %[[GHR:.*]] = coll.pmean %[[GH]] {axis = "batch"} : tensor<8x4xf32>
// CHECK-DATA: return %[[G]]#0, %[[GX]], %[[GHR]]
func.func private @plain_loss(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32>) -> tensor<f32> {
  %y = nn.dense %x, %w, %b : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %l = nn.mean %y : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @kinds(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32> {trellis.batch = "x"})
    -> (tensor<4x3xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %gw, %gx = ad.grad @plain_loss(%w, %b, %x) {argnums = array<i64: 0, 2>}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>) -> (tensor<4x3xf32>, tensor<8x4xf32>)
  %h = arith.addf %x, %x : tensor<8x4xf32>
  %gh = ad.grad @plain_loss(%w, %b, %h) {argnums = array<i64: 2>}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %gw, %gx, %gh : tensor<4x3xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// CHECK-BADWRT: error: coll-average-gradients: wrt: 'params' is not a kind of differentiated operand (parameter, batch, other)
// CHECK-ORDER: error: coll-average-gradients: the module has no ad.grad or ad.value_and_grad whose gradients could be reduced; run it before ad-differentiate, which replaces them by calls of derivative functions
