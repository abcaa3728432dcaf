// convert-coll-to-mpi{check-agreement}: every communicating collective is
// preceded by trellis_coll_check(what, where), the description all ranks
// must agree on and the source location, as i8 buffers; axis_size and
// axis_index do not communicate and are not checked. Without the option no
// check is emitted.
// RUN: trellis-opt %s --convert-coll-to-mpi="check-agreement" | FileCheck %s
// RUN: trellis-opt %s --convert-coll-to-mpi | FileCheck %s --check-prefix=OFF
// RUN: trellis-opt %s --convert-coll-to-mpi="check-agreement upstream-allreduce" | FileCheck %s --check-prefix=UPSTREAM

// CHECK: func.func private @trellis_coll_check(memref<?xi8>, memref<?xi8>) attributes {llvm.emit_c_interface}
// OFF-NOT: @trellis_coll_check(

// "coll.psum f32[2x3]" and "check-agreement.mlir:{{[0-9]+}}:{{[0-9]+}}"
// CHECK-LABEL: func.func @psum
// CHECK: %[[WHAT:.*]] = arith.constant dense<[99, 111, 108, 108, 46, 112, 115, 117, 109, 32, 102, 51, 50, 91, 50, 120, 51, 93]> : tensor<18xi8>
// CHECK: %[[WHATB:.*]] = bufferization.to_buffer %[[WHAT]] read_only
// CHECK: %[[WHATD:.*]] = memref.cast %[[WHATB]] : memref<18xi8> to memref<?xi8>
// CHECK: %[[WHERE:.*]] = arith.constant dense<[99, 104, 101, 99, 107, 45, 97, 103, 114, 101, 101, 109, 101, 110, 116, 46, 109, 108, 105, 114, 58
// CHECK: %[[WHERED:.*]] = memref.cast %{{.*}} : memref<{{[0-9]+}}xi8> to memref<?xi8>
// CHECK: call @trellis_coll_check(%[[WHATD]], %[[WHERED]])
// CHECK: call @trellis_coll_psum_groups_f32
func.func @psum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = coll.psum %x {axis = "batch"} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// The check comes before everything the collective does: pmean's
// reduction (and, with upstream-allreduce, its division by the axis size).
// CHECK-LABEL: func.func @pmean
// CHECK: call @trellis_coll_check
// CHECK: call @trellis_coll_pmean_groups_f64
// CHECK-NOT: @trellis_coll_check(
// CHECK: return
// UPSTREAM-LABEL: func.func @pmean
// UPSTREAM: call @trellis_coll_check
// UPSTREAM: mpi.allreduce
// UPSTREAM: call @trellis_coll_axis_size
// UPSTREAM-NOT: @trellis_coll_check(
// UPSTREAM: return
func.func @pmean(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = coll.pmean %x {axis = "batch"} : tensor<8xf64>
  return %0 : tensor<8xf64>
}

// One check per collective, each before its own runtime call.
// CHECK-LABEL: func.func @several
// CHECK: call @trellis_coll_check
// CHECK-NEXT: bufferization.to_buffer
// CHECK-NEXT: memref.alloc
// CHECK: call @trellis_coll_psum_groups_f32
// CHECK: call @trellis_coll_check
// CHECK: call @trellis_coll_ppermute_f32
// CHECK: call @trellis_coll_check
// CHECK: call @trellis_coll_all_gather_f32
// CHECK: call @trellis_coll_check
// CHECK: call @trellis_coll_adasum_f32
// CHECK-NOT: @trellis_coll_check(
// CHECK: return
func.func @several(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, index, index) {
  %0 = coll.psum %x {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<4xf32>
  %1 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : tensor<4xf32>
  %2 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<4xf32> -> tensor<8xf32>
  %3 = coll.adasum %x {axis = "batch"} : tensor<4xf32>
  %4 = coll.axis_size {axis = "batch"} : index
  %5 = coll.axis_index {axis = "batch"} : index
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, index, index
}
