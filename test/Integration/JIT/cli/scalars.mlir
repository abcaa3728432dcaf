// Scalar arguments and results (passed by value) and rank-0 tensors, mixed so
// that the returned struct needs padding: f32, i64, memref, i32, f64, ...
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/a.npy "np.float32(1.25)"
// RUN: %python %S/npy_tool.py save %t/b.npy "np.int64(-(2**40))"
// RUN: %python %S/npy_tool.py save %t/c.npy "np.int32(-7)"
// RUN: %python %S/npy_tool.py save %t/d.npy "np.float64(0.1)"
// RUN: %python %S/npy_tool.py save %t/t.npy "np.array(3.5, np.float32)"
// RUN: %python %S/npy_tool.py save %t/m.npy "np.array([1, 2, 3], np.float32)"
// RUN: trellis-run %s --entry=mixed --input=%t/a.npy --input=%t/b.npy \
// RUN:   --input=%t/c.npy --input=%t/d.npy --input=%t/t.npy --input=%t/m.npy \
// RUN:   --output-dir=%t/out
// RUN: %python %S/npy_tool.py check %t/out/result0.npy "np.float32(2.5)"
// RUN: %python %S/npy_tool.py check %t/out/result1.npy "np.int64(-(2**40) + 1)"
// RUN: %python %S/npy_tool.py check %t/out/result2.npy "np.array([1, 2, 3], np.float32)"
// RUN: %python %S/npy_tool.py check %t/out/result3.npy "np.int32(-7)"
// RUN: %python %S/npy_tool.py check %t/out/result4.npy "np.float64(0.1)"
// RUN: %python %S/npy_tool.py check %t/out/result5.npy "np.float32(1.25) + np.float32(3.5)"
// RUN: %python %S/npy_tool.py check %t/out/result6.npy "np.array(3.5 * 3, np.float32)"
//
// A scalar where a rank-0 array is expected is fine; the summary of rank-0
// results has shape ().
// RUN: trellis-run %s --entry=zero_d --input=%t/t.npy | FileCheck %s
// CHECK: result0: float32 () [10.5]
// CHECK-NEXT: result1: float32 () [3.5]

func.func @mixed(%a: f32, %b: i64, %c: i32, %d: f64, %t: tensor<f32>,
                 %m: tensor<3xf32>)
    -> (f32, i64, tensor<3xf32>, i32, f64, f32, tensor<f32>) {
  %a2 = arith.addf %a, %a : f32
  %one = arith.constant 1 : i64
  %b1 = arith.addi %b, %one : i64
  %e = tensor.extract %t[] : tensor<f32>
  %sum = arith.addf %a, %e : f32
  %three = arith.constant 3.0 : f32
  %e3 = arith.mulf %e, %three : f32
  %t3 = tensor.from_elements %e3 : tensor<f32>
  return %a2, %b1, %m, %c, %d, %sum, %t3
      : f32, i64, tensor<3xf32>, i32, f64, f32, tensor<f32>
}

func.func @zero_d(%t: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %tripled = arith.addf %t, %t : tensor<f32>
  %r = arith.addf %tripled, %t : tensor<f32>
  return %r, %t : tensor<f32>, tensor<f32>
}
