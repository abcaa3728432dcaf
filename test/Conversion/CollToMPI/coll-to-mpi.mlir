// convert-coll-to-mpi: every communicating collective calls the collectives
// runtime through its C interface on 1-D views of the operand's buffer and a
// fresh result buffer, with the most elements one MPI call may move
// (max-count.mlir: larger buffers) and the op's source location last; psum
// and pmean without groups pass empty groups (all ranks). axis_index is
// upstream mpi.comm_rank. With upstream-allreduce, psum and pmean without
// groups become upstream mpi.allreduce on MPI_COMM_WORLD instead.
// RUN: trellis-opt %s --convert-coll-to-mpi | FileCheck %s
// RUN: trellis-opt %s --convert-coll-to-mpi=upstream-allreduce | FileCheck %s --check-prefix=UPSTREAM

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK-DAG: func.func private @trellis_coll_psum_groups_f32(memref<?xf32>, memref<?xf32>, memref<?xi64>, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_pmean_groups_f32(memref<?xf32>, memref<?xf32>, memref<?xi64>, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_ppermute_f64(memref<?xf64>, memref<?xf64>, memref<?xi64>, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_all_gather_f32(memref<?xf32>, memref<?xf32>, memref<?xi64>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_psum_scatter_f32(memref<?xf32>, memref<?xf32>, memref<?xi64>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @trellis_coll_adasum_f32(memref<?xf32>, memref<?xf32>, memref<?xi64>, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-NOT: @trellis_coll_check_result
// UPSTREAM-DAG: func.func private @trellis_coll_axis_size() -> i64
// UPSTREAM-DAG: func.func private @trellis_coll_check_result(i32, memref<?xi8>) attributes {llvm.emit_c_interface}

// "coll-to-mpi.mlir:{{[0-9]+}}:{{[0-9]+}}" is the location.
// CHECK-LABEL: func.func @psum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: %[[IN1:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: %[[OUT1:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]]
// CHECK: %[[IND:.*]] = memref.cast %[[IN1]] : memref<6xf32> to memref<?xf32>
// CHECK: %[[OUTD:.*]] = memref.cast %[[OUT1]] : memref<6xf32> to memref<?xf32>
// CHECK: arith.constant dense<> : tensor<0xi64>
// CHECK: %[[NOGROUPS:.*]] = memref.cast %{{.*}} : memref<0xi64> to memref<?xi64>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i64
// CHECK: arith.constant dense<[99, 111, 108, 108, 45, 116, 111, 45, 109, 112, 105, 46, 109, 108, 105, 114, 58
// CHECK: %[[WHERE:.*]] = memref.cast %{{.*}} : memref<{{[0-9]+}}xi8> to memref<?xi8>
// CHECK: call @trellis_coll_psum_groups_f32(%[[IND]], %[[OUTD]], %[[NOGROUPS]], %[[ZERO]], %[[MAX]], %[[WHERE]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x3xf32> to tensor<2x3xf32>
// CHECK: return %[[R]]
// UPSTREAM-LABEL: func.func @psum
// UPSTREAM-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// UPSTREAM: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// UPSTREAM: %[[IN1:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// UPSTREAM: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// UPSTREAM: %[[OUT1:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]]
// UPSTREAM: %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// UPSTREAM: %[[RV:.*]] = mpi.allreduce(%[[IN1]], %[[OUT1]], MPI_SUM, %[[WORLD]]) : memref<6xf32>, memref<6xf32> -> !mpi.retval
// UPSTREAM: %[[RC:.*]] = builtin.unrealized_conversion_cast %[[RV]] : !mpi.retval to i32
// UPSTREAM: call @trellis_coll_check_result(%[[RC]], %{{.*}})
// UPSTREAM: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x3xf32> to tensor<2x3xf32>
// UPSTREAM: return %[[R]]
func.func @psum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = coll.psum %x {axis = "batch"} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A scalar is viewed as a 1-element buffer.
// CHECK-LABEL: func.func @psum_scalar
// CHECK: memref.expand_shape %{{.*}} [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK: call @trellis_coll_psum_groups_f32
// UPSTREAM-LABEL: func.func @psum_scalar
// UPSTREAM: memref.expand_shape %{{.*}} [] output_shape [1] : memref<f32> into memref<1xf32>
// UPSTREAM: mpi.allreduce
func.func @psum_scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = coll.psum %x {axis = "batch"} : tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @psum_groups
// CHECK: %[[G:.*]] = arith.constant dense<[0, 2, 1, 3]> : tensor<4xi64>
// CHECK: %[[GB:.*]] = bufferization.to_buffer %[[G]] read_only
// CHECK: %[[GD:.*]] = memref.cast %[[GB]] : memref<4xi64> to memref<?xi64>
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i64
// CHECK: call @trellis_coll_psum_groups_f32(%{{.*}}, %{{.*}}, %[[GD]], %[[SIZE]], %[[MAX]], %{{.*}})
func.func @psum_groups(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = coll.psum %x {axis = "batch", groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// The runtime divides by the number of ranks; after an upstream allreduce
// the division by the axis size (asked of the runtime) is here.
// CHECK-LABEL: func.func @pmean
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @trellis_coll_pmean_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %{{.*}}, %{{.*}})
// CHECK-NOT: arith.divf
// CHECK: return
// UPSTREAM-LABEL: func.func @pmean
// UPSTREAM: mpi.allreduce
// UPSTREAM: %[[SUM:.*]] = bufferization.to_tensor
// UPSTREAM: %[[N:.*]] = call @trellis_coll_axis_size() : () -> i64
// UPSTREAM: %[[NF:.*]] = arith.sitofp %{{.*}} : i64 to f32
// UPSTREAM: %[[FILL:.*]] = linalg.fill ins(%[[NF]] : f32)
// UPSTREAM: arith.divf %[[SUM]], %[[FILL]] : tensor<8xf32>
func.func @pmean(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = coll.pmean %x {axis = "batch"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// With groups, the runtime divides by the group size (and names coll.pmean
// in its errors).
// CHECK-LABEL: func.func @pmean_groups
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: call @trellis_coll_pmean_groups_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[SIZE]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.fill
// CHECK-NOT: arith.divf
// CHECK: return
func.func @pmean_groups(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = coll.pmean %x {axis = "batch", groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @ppermute
// CHECK: arith.constant dense<[0, 1, 1, 2, 2, 0]> : tensor<6xi64>
// CHECK: call @trellis_coll_ppermute_f64
func.func @ppermute(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// all_gather along dim 0: the stacked ranks are merged into dim 0.
// CHECK-LABEL: func.func @all_gather_dim0
// CHECK: %[[STACK:.*]] = memref.alloc() : memref<4x2x3xf32>
// CHECK: %[[N:.*]] = arith.constant 4 : i64
// CHECK: call @trellis_coll_all_gather_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[N]], %{{.*}}, %{{.*}})
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[STACK]]
// CHECK-NOT: linalg.transpose
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2]] : tensor<4x2x3xf32> into tensor<8x3xf32>
func.func @all_gather_dim0(%x: tensor<2x3xf32>) -> tensor<8x3xf32> {
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2x3xf32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// Within groups: the groups' ranks and their size go to the runtime, the
// group size is the stacked dimension.
// CHECK-LABEL: func.func @all_gather_groups
// CHECK: %[[GSTACK:.*]] = memref.alloc() : memref<2x2x3xf32>
// CHECK: arith.constant dense<[0, 2, 1, 3]> : tensor<4xi64>
// CHECK: %[[GROUPS:.*]] = memref.cast %{{.*}} : memref<4xi64> to memref<?xi64>
// CHECK: %[[GSIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[GN:.*]] = arith.constant 2 : i64
// CHECK: call @trellis_coll_all_gather_f32(%{{.*}}, %{{.*}}, %[[GROUPS]], %[[GSIZE]], %[[GN]], %{{.*}}, %{{.*}})
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x2x3xf32> into tensor<4x3xf32>
func.func @all_gather_groups(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = coll.all_gather %x {axis = "batch", dim = 0 : i64, groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// psum_scatter: MPI_Reduce_scatter_block's blocks lead the buffer; along
// dim 1 the dim moves to the front and back.
// CHECK-LABEL: func.func @psum_scatter_dim1
// CHECK: %[[TX:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x8xf32>) outs(%{{.*}} : tensor<8x2xf32>) permutation = [1, 0]
// CHECK: %[[SOUT:.*]] = memref.alloc() : memref<4x2xf32>
// CHECK: call @trellis_coll_psum_scatter_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[ST:.*]] = bufferization.to_tensor %[[SOUT]]
// CHECK: linalg.transpose ins(%[[ST]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<2x4xf32>) permutation = [1, 0]
func.func @psum_scatter_dim1(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %0 = coll.psum_scatter %x {axis = "batch", dim = 1 : i64, groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<2x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Along dim 1: the rank dimension moves next to dim 1 first.
// CHECK-LABEL: func.func @all_gather_dim1
// CHECK: call @trellis_coll_all_gather_f32
// CHECK: %[[TR:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x2x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>) permutation = [1, 0, 2]
// CHECK: tensor.collapse_shape %[[TR]] {{\[\[}}0], [1, 2]] : tensor<2x4x3xf32> into tensor<2x12xf32>
func.func @all_gather_dim1(%x: tensor<2x3xf32>) -> tensor<2x12xf32> {
  %0 = coll.all_gather %x {axis = "batch", dim = 1 : i64} : tensor<2x3xf32> -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// Adasum over all ranks passes empty groups.
// CHECK-LABEL: func.func @adasum
// CHECK: arith.constant dense<> : tensor<0xi64>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @trellis_coll_adasum_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %{{.*}}, %{{.*}})
func.func @adasum(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = coll.adasum %x {axis = "batch"} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// CHECK-LABEL: func.func @axis
// CHECK: %[[WORLD:.*]] = mpi.comm_world
// CHECK: %[[RANK:.*]] = mpi.comm_rank(%[[WORLD]]) : i32
// CHECK: arith.index_cast %[[RANK]] : i32 to index
func.func @axis() -> index {
  %0 = coll.axis_index {axis = "batch"} : index
  return %0 : index
}
