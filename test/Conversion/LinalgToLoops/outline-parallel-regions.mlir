// trellis-outline-parallel-regions: in a function with at least
// `min-regions` outermost omp.parallel ops, each moves into a private
// function of its own, internal in LLVM, with the constants it uses cloned
// in and every other value it uses passed as an argument; the region's
// place calls it. Fewer regions: the function is left alone.
// RUN: trellis-opt %s --convert-scf-to-openmp --trellis-inline-alloca-scopes --trellis-outline-parallel-regions=min-regions=2 | FileCheck %s
// RUN: trellis-opt %s --convert-scf-to-openmp --trellis-inline-alloca-scopes --trellis-outline-parallel-regions=min-regions=3 | FileCheck %s --check-prefix=CHECK-FEW
// RUN: trellis-opt %s --convert-scf-to-openmp --trellis-inline-alloca-scopes --trellis-outline-parallel-regions=min-regions=0 | FileCheck %s --check-prefix=CHECK-FEW
// The outlined functions lower to LLVM and translate (an OpenMP microtask
// each).
// RUN: trellis-opt %s --convert-scf-to-openmp --trellis-inline-alloca-scopes --trellis-outline-parallel-regions=min-regions=2 --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=CHECK-LLVM

// CHECK-LABEL: func.func private @two.omp.0(
// CHECK-SAME: %[[X:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<1024xf32>)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 1024 : index
// CHECK: omp.parallel
// CHECK: omp.loop_nest (%[[I:.*]]) : index = (%[[C0]]) to (%[[N]])
// CHECK: memref.load %[[X]][%[[I]]]
// CHECK: arith.mulf %{{.*}}, %[[TWO]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]]]
// CHECK: return
// CHECK-LABEL: func.func private @two.omp.1(
// CHECK: omp.parallel
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[A:.*]]: memref<1024xf32>, %[[B:.*]]: memref<1024xf32>)
// CHECK-NOT: omp.parallel
// CHECK: call @two.omp.0(%[[A]], %[[B]])
// CHECK: scf.for
// CHECK-NEXT: func.call @two.omp.1(%[[B]], %[[A]])
// CHECK-NOT: omp.parallel
// CHECK: return

// CHECK-FEW-NOT: func.func private @two.omp
// CHECK-FEW: func.func @two(
// CHECK-FEW-COUNT-2: omp.parallel

// CHECK-LLVM-DAG: define internal void @two.omp.0(
// CHECK-LLVM-DAG: define internal void @two.omp.1(
// CHECK-LLVM-DAG: define internal void @two.omp.0..omp_par(
// CHECK-LLVM-DAG: call void {{.*}}@__kmpc_fork_call(

func.func @two(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    %v = memref.load %x[%i] : memref<1024xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i] : memref<1024xf32>
  }
  scf.for %j = %c0 to %c1024 step %c1 {
    scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
      %v = memref.load %y[%i] : memref<1024xf32>
      memref.store %v, %x[%i] : memref<1024xf32>
    }
  }
  return
}
