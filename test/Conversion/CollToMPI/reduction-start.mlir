// coll.pmean_start / coll.psum_start and coll.wait: the tensors copied end to
// end into one buffer, the runtime's in-place reduction started on it, and
// after the wait each result copied out of it.
// RUN: trellis-opt %s '--convert-coll-to-mpi=check-agreement' | FileCheck %s
// RUN: trellis-opt %s --convert-coll-to-mpi | FileCheck %s --check-prefix=CHECK-UNCHECKED

// CHECK-DAG: func.func private @trellis_coll_reduce_start_f32(memref<?xf32>, memref<?xi64>, i64, i64, i64, memref<?xi8>) -> i64 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_reduce_wait_f32(i64, memref<?xf32>, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_reduce_start_f64(
// CHECK-LABEL: func.func @bucket
// The agreement check (whose text names every tensor of the bucket:
// test/Integration/MPI/buckets.test) comes first.
// CHECK: call @trellis_coll_check(
// CHECK: %[[BUCKET:.*]] = memref.alloc() : memref<15xf32>
// CHECK: %[[P0:.*]] = memref.subview %[[BUCKET]][0] [12] [1]
// CHECK: memref.copy %{{.*}}, %[[P0]]
// CHECK: %[[P1:.*]] = memref.subview %[[BUCKET]][12] [3] [1]
// CHECK: memref.copy %{{.*}}, %[[P1]]
// CHECK: %[[DYN:.*]] = memref.cast %[[BUCKET]] : memref<15xf32> to memref<?xf32>
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i64
// CHECK: %[[REQ:.*]] = call @trellis_coll_reduce_start_f32(%[[DYN]], %{{.*}}, %{{.*}}, %[[MEAN]], %{{.*}}, %{{.*}})
// The work between start and wait stays between them.
// CHECK: arith.addf
// CHECK: call @trellis_coll_reduce_wait_f32(%[[REQ]], %{{.*}}, %{{.*}})
// CHECK: %[[OUT0:.*]] = memref.alloc() : memref<4x3xf32>
// CHECK: memref.subview %[[BUCKET]][0] [12] [1]
// CHECK: memref.copy
// CHECK: bufferization.to_tensor %[[OUT0]] restrict writable
// CHECK: %[[OUT1:.*]] = memref.alloc() : memref<3xf32>
// CHECK: memref.subview %[[BUCKET]][12] [3] [1]
// CHECK: memref.copy
// CHECK: bufferization.to_tensor %[[OUT1]] restrict writable
// CHECK-NOT: coll.
// CHECK-UNCHECKED-LABEL: func.func @bucket
// CHECK-UNCHECKED-NOT: trellis_coll_check
// CHECK-UNCHECKED: call @trellis_coll_reduce_start_f32
func.func @bucket(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %r = coll.pmean_start %a, %b {axis = "batch"} : tensor<4x3xf32>, tensor<3xf32>
  %c = arith.addf %a, %a : tensor<4x3xf32>
  %ra, %rb = coll.wait %r : tensor<4x3xf32>, tensor<3xf32>
  %d = arith.addf %c, %ra : tensor<4x3xf32>
  return %d, %rb : tensor<4x3xf32>, tensor<3xf32>
}

// psum_start with groups: mean = 0, the groups and their size passed on.
// CHECK-LABEL: func.func @groups
// CHECK: %[[GROUPS:.*]] = arith.constant dense<[0, 1]> : tensor<2xi64>
// CHECK: %[[SIZE:.*]] = arith.constant 1 : i64
// CHECK: %[[SUM:.*]] = arith.constant 0 : i64
// CHECK: call @trellis_coll_reduce_start_f64(%{{.*}}, %{{.*}}, %[[SIZE]], %[[SUM]], %{{.*}}, %{{.*}})
// CHECK: call @trellis_coll_reduce_wait_f64
func.func @groups(%a: tensor<2xf64>) -> tensor<2xf64> {
  %r = coll.psum_start %a {axis = "batch", groups = dense<[[0], [1]]> : tensor<2x1xi64>} : tensor<2xf64>
  %s = coll.wait %r : tensor<2xf64>
  return %s : tensor<2xf64>
}
