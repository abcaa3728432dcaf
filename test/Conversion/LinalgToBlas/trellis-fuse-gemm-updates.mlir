// RUN: trellis-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(trellis-fuse-gemm-updates))" | FileCheck %s

// The SGD update of a weight gradient `Xᵀ·dY` becomes the GEMM accumulated
// into the weight, `out - (x * dy) * lr`, placed after the input gradient
// `dY·Wᵀ` (the weight's last other reader) so that bufferization can write
// the weight in place. The gradient's zero init and the update's empty
// init are gone.
// CHECK-DAG: #[[XT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[DY:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[W:.*]]: tensor<16x8xf32>, %[[X:.*]]: tensor<4x16xf32>, %[[DYV:.*]]: tensor<4x8xf32>)
// CHECK: %[[LR:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[DX:.*]] = linalg.matmul {{.*}} ins(%[[DYV]], %[[W]]
// CHECK-NEXT: %[[U:.*]] = linalg.generic {indexing_maps = [#[[XT]], #[[DY]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[DYV]] : tensor<4x16xf32>, tensor<4x8xf32>) outs(%[[W]] : tensor<16x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[P]], %[[LR]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[O]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: linalg.fill
// CHECK-NOT: tensor.empty() : tensor<16x8xf32>
// CHECK: return %[[U]], %[[DX]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @sgd(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>)
    -> (tensor<16x8xf32>, tensor<4x16xf32>) {
  %lr = arith.constant 0.5 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %dx = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %w : tensor<4x8xf32>, tensor<16x8xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%p: f32, %gg: f32, %o: f32):
    %s = arith.mulf %gg, %lr : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u, %dx : tensor<16x8xf32>, tensor<4x16xf32>
}

// -----

// The gradient as the update's init (the form an in-place update written
// by hand has), the rate a rank-0 input read as a scalar, `lr * g` with
// the factor first: the same GEMM, the rate extracted right before it.
// CHECK-LABEL: func.func @init_and_scalar_rate
// CHECK-SAME: (%[[W:.*]]: tensor<16x8xf32>, %{{.*}}: tensor<4x16xf32>, %{{.*}}: tensor<4x8xf32>, %[[LRT:.*]]: tensor<f32>)
// CHECK: %[[LR:.*]] = tensor.extract %[[LRT]][] : tensor<f32>
// CHECK-NEXT: %[[U:.*]] = linalg.generic {{.*}} outs(%[[W]] : tensor<16x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[LR]] : f32
// CHECK-NEXT: arith.subf
// CHECK: return %[[U]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @init_and_scalar_rate(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %lr: tensor<f32>)
    -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %lr : tensor<16x8xf32>, tensor<f32>) outs(%g : tensor<16x8xf32>) {
  ^bb0(%p: f32, %r: f32, %gg: f32):
    %s = arith.mulf %r, %gg : f32
    %n = arith.subf %p, %s : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}

// -----

// `g + p` with no factor: the GEMM accumulated as it is, `out + a * b`.
// CHECK-LABEL: func.func @plain_sum
// CHECK: linalg.generic {{.*}} outs(%arg0 : tensor<16x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[O]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @plain_sum(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %w : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%gg: f32, %p: f32, %o: f32):
    %n = arith.addf %gg, %p : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}

// -----

// Kept apart: the gradient is also returned.
// CHECK-LABEL: func.func @gradient_returned
// CHECK: linalg.matmul
// CHECK-NOT: "reduction"
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gradient_returned(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %acc: tensor<16x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.subf %a, %b : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u, %g : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Kept apart: the weight is read after the update.
// CHECK-LABEL: func.func @read_after
// CHECK: linalg.matmul
// CHECK-NOT: "reduction"
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_after(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %acc: tensor<16x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.subf %a, %b : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u, %w : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Kept apart: the update is `g - p`.
// CHECK-LABEL: func.func @reversed
// CHECK: linalg.matmul
// CHECK-NOT: "reduction"
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reversed(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %acc: tensor<16x8xf32>)
    -> (tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %w : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.subf %a, %b : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}

// -----

// Kept apart: the GEMM accumulates into a value that is not zero.
// CHECK-LABEL: func.func @accumulating
// CHECK: linalg.matmul
// CHECK-NOT: "reduction"
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @accumulating(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %acc: tensor<16x8xf32>)
    -> (tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %n = arith.subf %a, %b : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}

// -----

// Kept apart: the body does more than the update.
// CHECK-LABEL: func.func @more_than_update
// CHECK: linalg.matmul
// CHECK-NOT: "reduction"
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @more_than_update(%w: tensor<16x8xf32>, %x: tensor<4x16xf32>, %dy: tensor<4x8xf32>, %acc: tensor<16x8xf32>)
    -> (tensor<16x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %b, %b : f32
    %n = arith.subf %a, %m : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}

// -----

// A body whose result is not a binary op (a negation here; softmax's
// exponentials in attention) is no update: nothing reads a second operand.
// CHECK-LABEL: func.func @unary_body
// CHECK: linalg.matmul
// CHECK: arith.negf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @unary_body(%x: tensor<4x16xf32>, %dy: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<16x8xf32>
  return %u : tensor<16x8xf32>
}
