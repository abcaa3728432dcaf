// `index` results are written as int64 (.npy '<i8'; 64 bits, as in the
// lowered code): a scalar, a tensor of them, the size of a dynamic argument,
// and an `index` argument read from an int64 file. Under mpirun, each rank's
// coll.axis_index and coll.axis_size.
// REQUIRES: numpy, mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.npy "np.arange(5, dtype=np.float32)"
// RUN: %python %S/npy_tool.py save %t/i.npy "np.int64(2**40 + 3)"
// RUN: trellis-run %s --entry=sizes --input=%t/x.npy --input=%t/i.npy --output-dir=%t/out
// RUN: %python %S/npy_tool.py check %t/out/result0.npy "np.int64(5)"
// RUN: %python %S/npy_tool.py check %t/out/result1.npy "np.array([0, 7, -1], np.int64)"
// RUN: %python %S/npy_tool.py check %t/out/result2.npy "np.int64(2**40 + 4)"
// RUN: %python %S/npy_tool.py check %t/out/result3.npy "np.arange(5, dtype=np.float32)"
//
// The summary prints them as int64.
// RUN: trellis-run %s --entry=sizes --input=%t/x.npy --input=%t/i.npy | FileCheck %s
// CHECK: result0: int64 () [5]
// CHECK-NEXT: result1: int64 (3,) [0, 7, -1]
// CHECK-NEXT: result2: int64 () [1099511627780]
//
// An index argument takes int64 only.
// RUN: %python %S/npy_tool.py save %t/i32.npy "np.int32(3)"
// RUN: %python %S/expect_error.py trellis-run %s --entry=sizes --input=%t/x.npy --input=%t/i32.npy 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: LAST: trellis-run: error: input 1 ('{{.*}}i32.npy'): expected index, got int32 array of shape ()
//
// RUN: mpirun --oversubscribe -np 3 trellis-run %s --entry=rank --output-dir=%t/rank/{rank}
// RUN: %python %S/npy_tool.py check %t/rank/0/result0.npy "np.int64(0)"
// RUN: %python %S/npy_tool.py check %t/rank/2/result0.npy "np.int64(2)"
// RUN: %python %S/npy_tool.py check %t/rank/2/result1.npy "np.int64(3)"

func.func @sizes(%x: tensor<?xf32>, %i: index)
    -> (index, tensor<3xindex>, index, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %t = arith.constant dense<[0, 7, -1]> : tensor<3xindex>
  %c1 = arith.constant 1 : index
  %i1 = arith.addi %i, %c1 : index
  return %n, %t, %i1, %x : index, tensor<3xindex>, index, tensor<?xf32>
}

func.func @rank() -> (index, index) {
  %r = coll.axis_index {axis = "batch"} : index
  %n = coll.axis_size {axis = "batch"} : index
  return %r, %n : index, index
}
