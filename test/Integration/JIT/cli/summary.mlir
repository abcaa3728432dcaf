// Without --output-dir each result is summarized: dtype, shape and the first
// values. Dynamic dimensions accept any size and come back with the size the
// program produced.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/m.npy "np.arange(-10, 10, dtype=np.float64).reshape(10, 2) / 4"
// RUN: %python %S/npy_tool.py save %t/k.npy "np.array([7, 4294967295], np.uint32)"
// RUN: %python %S/npy_tool.py save %t/i.npy "np.array([-(2**63), 2**63 - 1], np.int64)"
// RUN: trellis-run %s --entry=dynamic --input=%t/m.npy --input=%t/k.npy --input=%t/i.npy | FileCheck %s
// CHECK: result0: float64 (10, 2) [-5, -4.5, -4, -3.5, -3, -2.5, -2, -1.5, ...]
// CHECK-NEXT: result1: float64 (10, 2) [-2.5, -2.25, -2, -1.75, -1.5, -1.25, -1, -0.75, ...]
// CHECK-NEXT: result2: uint32 (2,) [7, 4294967295]
// CHECK-NEXT: result3: int64 (2,) [-9223372036854775808, 9223372036854775807]
// CHECK-NOT: result
//
// RUN: %python %S/npy_tool.py save %t/m3.npy "np.arange(6, dtype=np.float64).reshape(3, 2)"
// RUN: trellis-run %s --entry=dynamic --input=%t/m3.npy --input=%t/k.npy --input=%t/i.npy --output-dir=%t/out
// RUN: %python %S/npy_tool.py check %t/out/result0.npy "np.arange(0, 12, 2, dtype=np.float64).reshape(3, 2)"

func.func @dynamic(%m: tensor<?x2xf64>, %k: tensor<2xui32>, %i: tensor<2xi64>)
    -> (tensor<?x2xf64>, tensor<?x2xf64>, tensor<2xui32>, tensor<2xi64>) {
  %r = arith.addf %m, %m : tensor<?x2xf64>
  return %r, %m, %k, %i
      : tensor<?x2xf64>, tensor<?x2xf64>, tensor<2xui32>, tensor<2xi64>
}
