// trellis-parallelize-linalg: a linalg op with enough work whose first
// loops are parallel becomes loops whose leading parallel loops (not the
// innermost) are one scf.parallel; everything else is left alone.
// (convert-linalg-to-loops after it, as in the pipeline, folds the identity
// affine.apply ops of the loop bodies.)
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-parallelize-linalg{min-iterations=64}))' | FileCheck %s --check-prefix=CHECK-PASS
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-parallelize-linalg{min-iterations=64},convert-linalg-to-loops))' | FileCheck %s
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-parallelize-linalg{min-iterations=0}))' | FileCheck %s --check-prefix=CHECK-OFF
// The whole chain down to LLVM: the parallel loop is an OpenMP worksharing loop.
// RUN: trellis-opt %s --pass-pipeline='builtin.module(func.func(trellis-parallelize-linalg{min-iterations=64}),func.func(convert-linalg-to-loops),convert-scf-to-openmp,func.func(trellis-inline-alloca-scopes),convert-scf-to-cf)' | FileCheck %s --check-prefix=CHECK-OMP

// CHECK-OFF-NOT: scf.parallel
// CHECK-OFF-COUNT-5: linalg.

// A 3-D map: the two outer loops are shared, the innermost stays a loop.
// CHECK-LABEL: func.func @map3d
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK-NOT: linalg.generic
// CHECK-OMP-LABEL: func.func @map3d
// CHECK-OMP: omp.parallel
// CHECK-OMP: omp.wsloop
// CHECK-OMP: omp.loop_nest
// CHECK-OMP-NOT: memref.alloca_scope
func.func @map3d(%x: memref<4x8x16xf32>, %y: memref<4x8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x8x16xf32>) outs(%y : memref<4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// Row sums: the rows are shared, each row is summed by one thread.
// CHECK-LABEL: func.func @rowsum
// CHECK: scf.parallel (%[[R:.*]]) =
// CHECK-NEXT: scf.for %[[C:.*]] =
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}[%[[R]]]
func.func @rowsum(%x: memref<16x32xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x32xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  }
  return
}

// CHECK-PASS-LABEL: func.func @sequential
// CHECK-PASS-NOT: scf.parallel
// CHECK-PASS-COUNT-4: linalg.generic

// Column sums (the first loop is a reduction), an op below min-iterations,
// an op with dynamic sizes and one whose parallel loop has one iteration
// stay linalg ops.
// CHECK-LABEL: func.func @sequential
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @sequential(%x: memref<16x32xf32>, %c: memref<32xf32>, %small: memref<4x8xf32>,
                      %dyn: memref<?x64xf32>, %one: memref<1x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<16x32xf32>) outs(%c : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%small : memref<4x8xf32>) {
  ^bb0(%a: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%dyn : memref<?x64xf32>) {
  ^bb0(%a: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%one : memref<1x128xf32>) {
  ^bb0(%a: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  }
  return
}

// A 1-D map has one loop: that one is shared.
// CHECK-LABEL: func.func @map1d
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]]]
func.func @map1d(%x: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%x : memref<256xf32>) {
  ^bb0(%a: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  }
  return
}
