// RUN: trellis-opt %s -split-input-file --trellis-prepare-contractions | FileCheck %s

// The adjoints' transposes fold into the contraction's maps: dX = dY·Wᵀ reads
// W as (n, k); dW = Xᵀ·dY reads X as (k, m). The transposes disappear.
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @adjoints
// CHECK-SAME: (%[[X:.*]]: tensor<64x784xf32>, %[[W:.*]]: tensor<784x1024xf32>, %[[DY:.*]]: tensor<64x1024xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[MK]], #[[NK]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[DY]], %[[W]] : tensor<64x1024xf32>, tensor<784x1024xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[KM]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[DY]] : tensor<64x784xf32>, tensor<64x1024xf32>)
// CHECK-NOT: linalg.transpose
func.func @adjoints(%x: tensor<64x784xf32>, %w: tensor<784x1024xf32>, %dy: tensor<64x1024xf32>)
    -> (tensor<64x784xf32>, tensor<784x1024xf32>) {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1024x784xf32>
  %wt = linalg.transpose ins(%w : tensor<784x1024xf32>) outs(%e1 : tensor<1024x784xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<64x784xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x784xf32>) -> tensor<64x784xf32>
  %dx = linalg.matmul ins(%dy, %wt : tensor<64x1024xf32>, tensor<1024x784xf32>) outs(%f2 : tensor<64x784xf32>) -> tensor<64x784xf32>
  %e3 = tensor.empty() : tensor<784x64xf32>
  %xt = linalg.transpose ins(%x : tensor<64x784xf32>) outs(%e3 : tensor<784x64xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<784x1024xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<784x1024xf32>) -> tensor<784x1024xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<784x64xf32>, tensor<64x1024xf32>) outs(%f4 : tensor<784x1024xf32>) -> tensor<784x1024xf32>
  return %dx, %dw : tensor<64x784xf32>, tensor<784x1024xf32>
}

// -----

// A batched transpose of the last two dims and a permutation written as a
// linalg.generic both fold, into every contraction that reads them; the
// transpose also returned stays for that use.
// CHECK-DAG: #[[BNK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[BKM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x5xf32>, %[[BT:.*]]: tensor<2x4x5xf32>, %[[C:.*]]: tensor<2x3x4xf32>, %[[AT:.*]]: tensor<2x5x3xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[BT]]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BNK]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[BT]] :
// CHECK: linalg.generic {indexing_maps = [#[[BKM]], #[[BNK]], #{{.*}}]
// CHECK-SAME: ins(%[[AT]], %[[BT]] :
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BNK]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[BT]] :
// CHECK: return %{{.*}}, %[[T]], %{{.*}}
func.func @batched(%a: tensor<2x3x5xf32>, %bt: tensor<2x4x5xf32>, %c: tensor<2x3x4xf32>, %at: tensor<2x5x3xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) {
  %e = tensor.empty() : tensor<2x5x4xf32>
  %b = linalg.transpose ins(%bt : tensor<2x4x5xf32>) outs(%e : tensor<2x5x4xf32>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e2 = tensor.empty() : tensor<2x3x5xf32>
  %a2 = linalg.generic {indexing_maps = [affine_map<(b, i, k) -> (b, k, i)>, affine_map<(b, i, k) -> (b, i, k)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%at : tensor<2x5x3xf32>) outs(%e2 : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<2x3x5xf32>
  %r2 = linalg.batch_matmul ins(%a2, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r3 = linalg.batch_matmul ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r, %b, %r2 : tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>
}

// -----

// A zero fill shared by two contractions (bufferization would copy it) and a
// fill computed far from its contraction: each contraction gets its own
// empty + fill right before it.
// CHECK-LABEL: func.func @fills
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[D:.*]]: tensor<2x4xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.0
// CHECK: %[[S:.*]] = arith.addf %[[D]], %[[D]]
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E1]] : tensor<2x4xf32>)
// CHECK: %[[R1:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F1]] : tensor<2x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E2]] : tensor<2x4xf32>)
// CHECK: %[[R2:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F2]] : tensor<2x4xf32>)
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @fills(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %d: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = arith.addf %d, %d : tensor<2x4xf32>
  %r1 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r2 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r1, %r2, %s : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Not contractions of the BLAS kind: left alone, transposes included.
// CHECK-LABEL: func.func @untouched
// CHECK: linalg.transpose
// CHECK: linalg.generic
// CHECK: arith.maximumf
func.func @untouched(%a: tensor<2x3xf32>, %bt: tensor<4x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %b = linalg.transpose ins(%bt : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %m = arith.maximumf %acc, %p : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Row reductions that share a fill (as after CSE: layer_norm's statistics and
// their recomputation in the VJP), one of them through a reshape, get fills
// of their own; bufferization would otherwise copy the shared zeros into
// each reduction's buffer. An init the body does not read is left alone.
// CHECK-LABEL: func.func @reduction_fills
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<2x2x8xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.0
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E0]] : tensor<4xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[F1]] : tensor<4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E2]] : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[F2]] : tensor<4xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[F3:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E3]] : tensor<2x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x2x8xf32>) outs(%[[F3]] : tensor<2x2xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}} outs(%[[F0]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: arith.constant 1.0
// CHECK: return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reduction_fills(%x: tensor<4x8xf32>, %y: tensor<2x2x8xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %s2 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %a : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %f3 = tensor.expand_shape %f [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %s3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<2x2x8xf32>) outs(%f3 : tensor<2x2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  %ones = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%f : tensor<4xf32>) {
  ^bb0(%acc: f32):
    %one = arith.constant 1.0 : f32
    linalg.yield %one : f32
  } -> tensor<4xf32>
  return %s1, %s2, %s3, %ones : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>
}

