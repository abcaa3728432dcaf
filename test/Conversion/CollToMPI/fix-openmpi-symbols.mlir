// LLVM 22 lowers MPI_SUM / MPI_MAX for OpenMPI to @ompi_mpi_sum / @ompi_mpi_max,
// which OpenMPI does not export; fix-openmpi-symbols renames them (and their
// uses) to @ompi_mpi_op_sum / @ompi_mpi_op_max. Other OpenMPI globals stay.
// RUN: trellis-opt %s --convert-to-llvm --fix-openmpi-symbols | FileCheck %s

// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_max()
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_float()
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// CHECK-NOT: @ompi_mpi_sum
// CHECK-NOT: @ompi_mpi_max
// CHECK-LABEL: llvm.func @reduce
// CHECK: llvm.mlir.addressof @ompi_mpi_op_sum
// CHECK: llvm.mlir.addressof @ompi_mpi_op_max
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  func.func @reduce(%a: memref<4xf32>, %b: memref<4xf32>) {
    %c = mpi.comm_world : !mpi.comm
    mpi.allreduce(%a, %b, MPI_SUM, %c) : memref<4xf32>, memref<4xf32>
    mpi.allreduce(%a, %b, MPI_MAX, %c) : memref<4xf32>, memref<4xf32>
    return
  }
}
