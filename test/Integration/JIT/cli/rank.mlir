// `{rank}` in --input paths and --output-dir is the MPI rank from
// OMPI_COMM_WORLD_RANK, else PMIX_RANK, else PMI_RANK, else 0; the output
// directory is created like `mkdir -p`.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.0.npy "np.full(3, 10, np.int32)"
// RUN: %python %S/npy_tool.py save %t/x.1.npy "np.full(3, 11, np.int32)"
// RUN: %python %S/npy_tool.py save %t/x.2.npy "np.full(3, 12, np.int32)"
// RUN: %python %S/npy_tool.py save %t/x.3.npy "np.full(3, 13, np.int32)"
//
// RUN: env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK trellis-run %s --entry=double --input=%t/x.{rank}.npy --output-dir=%t/out/{rank}/deep
// RUN: %python %S/npy_tool.py check %t/out/0/deep/result0.npy "np.full(3, 20, np.int32)"
// RUN: env OMPI_COMM_WORLD_RANK=1 PMIX_RANK=2 PMI_RANK=3 trellis-run %s --entry=double --input=%t/x.{rank}.npy --output-dir=%t/out/{rank}
// RUN: %python %S/npy_tool.py check %t/out/1/result0.npy "np.full(3, 22, np.int32)"
// RUN: env -u OMPI_COMM_WORLD_RANK PMIX_RANK=2 PMI_RANK=3 trellis-run %s --entry=double --input=%t/x.{rank}.npy --output-dir=%t/out/{rank}
// RUN: %python %S/npy_tool.py check %t/out/2/result0.npy "np.full(3, 24, np.int32)"
// RUN: env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK PMI_RANK=3 trellis-run %s --entry=double --input=%t/x.{rank}.npy --output-dir=%t/out/{rank}-{rank}
// RUN: %python %S/npy_tool.py check %t/out/3-3/result0.npy "np.full(3, 26, np.int32)"
//
// The error names the substituted path.
// RUN: env OMPI_COMM_WORLD_RANK=7 %python %S/expect_error.py trellis-run %s --entry=double --input=%t/x.{rank}.npy 2>&1 | FileCheck %s
// CHECK: LAST: trellis-run: error: input 0 ('{{.*}}x.7.npy'): cannot open: No such file or directory

func.func @double(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = arith.addi %x, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}
