// RUN: trellis-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(trellis-orient-contractions{transpose-short=true}))" | FileCheck %s
// RUN: trellis-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(trellis-orient-contractions))" | FileCheck %s --check-prefix=OFF

// A dense chain's backward pass over 16 rows: dX = dY·W1ᵀ, ReLU's VJP, the
// bias gradient, dX0 = dH·W0ᵀ. The first product is computed as its
// transpose W1·dYᵀ (inputs swapped, result map (n, m)); the ReLU VJP turns
// around (it reads the activation across its rows, in tiles of 8 rows, and
// yields dHᵀ); the bias gradient reads dHᵀ through its map; the second
// product, now reading dH transposed, becomes W0·dHᵀ with both operands
// plain; the returned dX0 is transposed back once.
// CHECK-DAG: #[[NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[NM:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[DY:.*]]: tensor<16x200xf32>, %[[W1:.*]]: tensor<160x200xf32>, %[[Z:.*]]: tensor<16x160xf32>, %[[W0:.*]]: tensor<144x160xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<160x16xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<160x16xf32>)
// CHECK: %[[DXT:.*]] = linalg.generic {indexing_maps = [#[[NK]], #[[MK]], #[[NM]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[W1]], %[[DY]] : tensor<160x200xf32>, tensor<16x200xf32>) outs(%[[F1]] : tensor<160x16xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<160x16xf32>
// CHECK: %[[DHT:.*]] = scf.for %[[I:.*]] = %c0 to %c16 step %c8 iter_args(%[[ACC:.*]] = %[[E2]]) -> (tensor<160x16xf32>)
// CHECK: %[[ZS:.*]] = tensor.extract_slice %[[Z]][%[[I]], 0] [8, 160] [1, 1]
// CHECK: %[[GS:.*]] = tensor.extract_slice %[[DXT]][0, %[[I]]] [160, 8] [1, 1]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[ACC]][0, %[[I]]] [160, 8] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[T]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[ZS]], %[[GS]] : tensor<8x160xf32>, tensor<160x8xf32>) outs(%[[OS]] : tensor<160x8xf32>)
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: tensor.insert_slice
// CHECK: %[[DB:.*]] = linalg.generic {indexing_maps = [#[[T]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME: ins(%[[DHT]] : tensor<160x16xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<144x16xf32>
// CHECK: %[[F3:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E3]] : tensor<144x16xf32>)
// CHECK: %[[DX0T:.*]] = linalg.generic {indexing_maps = [#[[NK]], #[[KM]], #[[NM]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[W0]], %[[DHT]] : tensor<144x160xf32>, tensor<160x16xf32>) outs(%[[F3]] : tensor<144x16xf32>)
// CHECK: %[[E4:.*]] = tensor.empty() : tensor<16x144xf32>
// CHECK: %[[DX0:.*]] = linalg.transpose ins(%[[DX0T]] : tensor<144x16xf32>) outs(%[[E4]] : tensor<16x144xf32>) permutation = [1, 0]
// CHECK: return %[[DX0]], %[[DB]]
// Off (the default), nothing changes.
// OFF-LABEL: func.func @chain
// OFF-NOT: scf.for
// OFF-NOT: linalg.transpose
// OFF: return
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

func.func @chain(%dy: tensor<16x200xf32>, %w1: tensor<160x200xf32>, %z: tensor<16x160xf32>, %w0: tensor<144x160xf32>) -> (tensor<16x144xf32>, tensor<160xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x160xf32>) -> tensor<16x160xf32>
  %dx = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w1 : tensor<16x200xf32>, tensor<160x200xf32>) outs(%f : tensor<16x160xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x160xf32>
  %e2 = tensor.empty() : tensor<16x160xf32>
  %dh = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %dx : tensor<16x160xf32>, tensor<16x160xf32>) outs(%e2 : tensor<16x160xf32>) {
  ^bb0(%zz: f32, %g: f32, %o: f32):
    %pos = arith.cmpf ogt, %zz, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x160xf32>
  %e4 = tensor.empty() : tensor<160xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<160xf32>) -> tensor<160xf32>
  %db = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%dh : tensor<16x160xf32>) outs(%f4 : tensor<160xf32>) {
  ^bb0(%g: f32, %o: f32):
    %s = arith.addf %o, %g : f32
    linalg.yield %s : f32
  } -> tensor<160xf32>
  %e3 = tensor.empty() : tensor<16x144xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x144xf32>) -> tensor<16x144xf32>
  %dx0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dh, %w0 : tensor<16x160xf32>, tensor<144x160xf32>) outs(%f3 : tensor<16x144xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x144xf32>
  return %dx0, %db : tensor<16x144xf32>, tensor<160xf32>
}

// -----

// Not short (256 rows), a plain product (X·W), one with A transposed
// (Xᵀ·dY, a weight gradient) and an f64 one (the measurement that turns the
// pass on times f32 GEMMs) keep their form.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: ins(%arg0, %arg1 : tensor<256x200xf32>, tensor<160x200xf32>) outs(%{{.*}} : tensor<256x160xf32>)
// CHECK: ins(%arg2, %arg3 : tensor<16x200xf32>, tensor<200x160xf32>) outs(%{{.*}} : tensor<16x160xf32>)
// CHECK: ins(%arg2, %arg4 : tensor<16x200xf32>, tensor<16x160xf32>) outs(%{{.*}} : tensor<200x160xf32>)
// CHECK: ins(%arg5, %arg6 : tensor<16x200xf64>, tensor<160x200xf64>) outs(%{{.*}} : tensor<16x160xf64>)
// CHECK-NOT: linalg.transpose
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#km = affine_map<(m, n, k) -> (k, m)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @kept(%a: tensor<256x200xf32>, %w: tensor<160x200xf32>, %x: tensor<16x200xf32>, %v: tensor<200x160xf32>, %dy: tensor<16x160xf32>,
                %dy64: tensor<16x200xf64>, %w64: tensor<160x200xf64>)
    -> (tensor<256x160xf32>, tensor<16x160xf32>, tensor<200x160xf32>, tensor<16x160xf64>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x160xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x160xf32>) -> tensor<256x160xf32>
  %r0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<256x200xf32>, tensor<160x200xf32>) outs(%f0 : tensor<256x160xf32>) {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x160xf32>
  %e1 = tensor.empty() : tensor<16x160xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x160xf32>) -> tensor<16x160xf32>
  %r1 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %v : tensor<16x200xf32>, tensor<200x160xf32>) outs(%f1 : tensor<16x160xf32>) {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x160xf32>
  %e2 = tensor.empty() : tensor<200x160xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<200x160xf32>) -> tensor<200x160xf32>
  %r2 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<16x200xf32>, tensor<16x160xf32>) outs(%f2 : tensor<200x160xf32>) {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<200x160xf32>
  %zero64 = arith.constant 0.0 : f64
  %e3 = tensor.empty() : tensor<16x160xf64>
  %f3 = linalg.fill ins(%zero64 : f64) outs(%e3 : tensor<16x160xf64>) -> tensor<16x160xf64>
  %r3 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy64, %w64 : tensor<16x200xf64>, tensor<160x200xf64>) outs(%f3 : tensor<16x160xf64>) {
  ^bb0(%p: f64, %q: f64, %c: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %c, %m : f64
    linalg.yield %s : f64
  } -> tensor<16x160xf64>
  return %r0, %r1, %r2, %r3 : tensor<256x160xf32>, tensor<16x160xf32>, tensor<200x160xf32>, tensor<16x160xf64>
}

// -----

// An element-wise reader that uses linalg.index (whose meaning would change
// if it turned around) reads the transposed product through its map; so
// does one whose result is returned (turning it would need a transpose
// back).
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @read_through_maps
// CHECK: %[[DXT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<160x16xf32>)
// CHECK-NOT: scf.for
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[DXT]] : tensor<160x16xf32>) outs(%{{.*}} : tensor<16x160xf32>)
// CHECK: linalg.index 1
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[DXT]] : tensor<160x16xf32>) outs(%{{.*}} : tensor<16x160xf32>)
// CHECK-NOT: linalg.transpose
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @read_through_maps(%dy: tensor<16x200xf32>, %w: tensor<160x200xf32>) -> (tensor<16x160xf32>, tensor<16x160xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x160xf32>) -> tensor<16x160xf32>
  %dx = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%dy, %w : tensor<16x200xf32>, tensor<160x200xf32>) outs(%f : tensor<16x160xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x160xf32>
  %e1 = tensor.empty() : tensor<16x160xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx : tensor<16x160xf32>) outs(%e1 : tensor<16x160xf32>) {
  ^bb0(%g: f32, %o: f32):
    %j = linalg.index 1 : index
    %c80 = arith.constant 80 : index
    %low = arith.cmpi ult, %j, %c80 : index
    %r = arith.select %low, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x160xf32>
  %e2 = tensor.empty() : tensor<16x160xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx : tensor<16x160xf32>) outs(%e2 : tensor<16x160xf32>) {
  ^bb0(%g: f32, %o: f32):
    %r = arith.mulf %g, %g : f32
    linalg.yield %r : f32
  } -> tensor<16x160xf32>
  return %masked, %scaled : tensor<16x160xf32>, tensor<16x160xf32>
}
