// convert-coll-to-mpi{max-count=N}: MPI counts are 32-bit ints (the upstream
// lowering truncates the memref's size to i32). The runtime's collectives
// (all of them by default) get max-count as their next to last argument and
// split their calls. With upstream-allreduce, an upstream allreduce of more
// than max-count elements (default 2^31 - 1) runs as an scf.for over
// subviews of at most max-count elements, the count kept in `index` (i64)
// until the last piece. Every mpi.allreduce's return code goes to
// trellis_coll_check_result with the name and location of the collective.
// RUN: trellis-opt %s -split-input-file --convert-coll-to-mpi="max-count=4 upstream-allreduce" | FileCheck %s
// RUN: trellis-opt %s -split-input-file --convert-coll-to-mpi=upstream-allreduce | FileCheck %s --check-prefix=DEFAULT
// RUN: trellis-opt %s -split-input-file --convert-coll-to-mpi="max-count=4" | FileCheck %s --check-prefix=RUNTIME
// RUN: not trellis-opt %s -split-input-file --convert-coll-to-mpi="max-count=0" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not trellis-opt %s -split-input-file --convert-coll-to-mpi="max-count=2147483648" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: convert-coll-to-mpi: max-count must lie in [1, 2147483647], got {{0|2147483648}}

// CHECK-DAG: func.func private @trellis_coll_check_result(i32, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @psum_pieces
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[IN:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<2x5xf32> into memref<10xf32>
// CHECK: %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<2x5xf32> into memref<10xf32>
// CHECK: %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// CHECK: %[[WHAT:.*]] = memref.cast %{{.*}} : memref<{{[0-9]+}}xi8> to memref<?xi8>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[OFF:.*]] = %[[C0]] to %[[C10]] step %[[C4]] {
// CHECK:   %[[LEFT:.*]] = arith.subi %[[C10]], %[[OFF]] : index
// CHECK:   %[[N:.*]] = arith.minsi %[[C4]], %[[LEFT]] : index
// CHECK:   %[[INP:.*]] = memref.subview %[[IN]][%[[OFF]]] [%[[N]]] [1] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:   %[[OUTP:.*]] = memref.subview %[[OUT]][%[[OFF]]] [%[[N]]] [1] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:   %[[RV:.*]] = mpi.allreduce(%[[INP]], %[[OUTP]], MPI_SUM, %[[WORLD]]) : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>> -> !mpi.retval
// CHECK:   %[[RC:.*]] = builtin.unrealized_conversion_cast %[[RV]] : !mpi.retval to i32
// CHECK:   func.call @trellis_coll_check_result(%[[RC]], %[[WHAT]]) : (i32, memref<?xi8>) -> ()
// CHECK: }
// CHECK: bufferization.to_tensor
//
// Without the option the 10 elements are one call.
// DEFAULT-LABEL: func.func @psum_pieces
// DEFAULT-NOT: scf.for
// DEFAULT: %[[RV:.*]] = mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<10xf32>, memref<10xf32> -> !mpi.retval
// DEFAULT: %[[RC:.*]] = builtin.unrealized_conversion_cast %[[RV]] : !mpi.retval to i32
// DEFAULT: call @trellis_coll_check_result(%[[RC]], %{{.*}})
// Through the runtime (the default), no loop: max-count goes to the call.
// RUNTIME-LABEL: func.func @psum_pieces
// RUNTIME-NOT: scf.for
// RUNTIME-NOT: mpi.allreduce
// RUNTIME: %[[M:.*]] = arith.constant 4 : i64
// RUNTIME: call @trellis_coll_psum_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %{{.*}})
func.func @psum_pieces(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = coll.psum %x {axis = "batch"} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// A buffer that fits in one piece is one call.
// CHECK-LABEL: func.func @psum_one_piece
// CHECK-NOT: scf.for
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<4xf64>, memref<4xf64> -> !mpi.retval
// CHECK: call @trellis_coll_check_result
func.func @psum_one_piece(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = coll.psum %x {axis = "batch"} : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// The text names the collective and where it is:
// "coll.pmean (max-count.mlir:..."; pmean divides after the pieces.
// CHECK-LABEL: func.func @pmean_pieces
// CHECK: arith.constant dense<[99, 111, 108, 108, 46, 112, 109, 101, 97, 110, 32, 40, 109, 97, 120, 45, 99, 111, 117, 110, 116, 46, 109, 108, 105, 114, 58
// CHECK: scf.for
// CHECK:   mpi.allreduce
// CHECK:   call @trellis_coll_check_result
// CHECK: }
// CHECK: call @trellis_coll_axis_size
// CHECK: arith.divf
func.func @pmean_pieces(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = coll.pmean %x {axis = "batch"} : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// The runtime's collectives get max-count next to last (the location last).
// CHECK-LABEL: func.func @runtime
// CHECK: %[[M1:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_psum_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M1]], %{{.*}})
// CHECK: %[[M2:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_pmean_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M2]], %{{.*}})
// CHECK: %[[M3:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_ppermute_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[M3]], %{{.*}})
// CHECK: %[[M4:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_all_gather_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[M4]], %{{.*}})
// CHECK: %[[M5:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_adasum_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M5]], %{{.*}})
// DEFAULT-LABEL: func.func @runtime
// DEFAULT: %[[M:.*]] = arith.constant 2147483647 : i64
// DEFAULT: call @trellis_coll_psum_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %{{.*}})
func.func @runtime(%x: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<20xf32>, tensor<10xf32>) {
  %0 = coll.psum %x {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<10xf32>
  %1 = coll.pmean %x {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<10xf32>
  %2 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : tensor<10xf32>
  %3 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<10xf32> -> tensor<20xf32>
  %4 = coll.adasum %x {axis = "batch"} : tensor<10xf32>
  return %0, %1, %2, %3, %4 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<20xf32>, tensor<10xf32>
}

// -----

// Over 2^31 elements (8 GiB of f32; nothing is allocated here): the default
// max-count makes two pieces, 2^31 - 1 and 1 elements, the count an index.
// DEFAULT-LABEL: func.func @psum_huge
// DEFAULT-DAG: %[[C0:.*]] = arith.constant 0 : index
// DEFAULT-DAG: %[[END:.*]] = arith.constant 2147483648 : index
// DEFAULT-DAG: %[[STEP:.*]] = arith.constant 2147483647 : index
// DEFAULT: scf.for %[[OFF:.*]] = %[[C0]] to %[[END]] step %[[STEP]] {
// DEFAULT:   arith.minsi %[[STEP]], %{{.*}} : index
// DEFAULT:   memref.subview %{{.*}}[%[[OFF]]] [%{{.*}}] [1] : memref<2147483648xf32> to memref<?xf32, strided<[1], offset: ?>>
// DEFAULT:   mpi.allreduce
// DEFAULT:   call @trellis_coll_check_result
func.func @psum_huge(%x: tensor<2147483648xf32>) -> tensor<2147483648xf32> {
  %0 = coll.psum %x {axis = "batch"} : tensor<2147483648xf32>
  return %0 : tensor<2147483648xf32>
}
