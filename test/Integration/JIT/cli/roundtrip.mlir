// Every dtype goes in and comes back out bit-exact: f32, f64, i32, i64, ui32,
// through arithmetic (exact in IEEE, so NumPy computes the same bits) and as
// a pass-through of an input.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/f32.npy "np.array([[1.5, -2.25, 3e-39], [np.inf, -0.0, 1e30]], np.float32)"
// RUN: %python %S/npy_tool.py save %t/f64.npy "np.array([0.1, -1e300, 5e-324, 2.0**60], np.float64)"
// RUN: %python %S/npy_tool.py save %t/i32.npy "np.array([[-2**31, 7], [2**31 - 1, -5]], np.int32)"
// RUN: %python %S/npy_tool.py save %t/i64.npy "np.array([2**62, -3, 0, 1 << 40, -(2**63)], np.int64)"
// RUN: %python %S/npy_tool.py save %t/u32.npy "np.array([0x12345678, 0xffffffff], np.uint32)"
// RUN: trellis-run %s --entry=roundtrip --input=%t/f32.npy --input=%t/f64.npy \
// RUN:   --input=%t/i32.npy --input=%t/i64.npy --input=%t/u32.npy --output-dir=%t/out
// RUN: %python %S/npy_tool.py check %t/out/result0.npy "np.array([[1.5, -2.25, 3e-39], [np.inf, -0.0, 1e30]], np.float32) * np.float32(2)"
// RUN: %python %S/npy_tool.py check %t/out/result1.npy "np.array([0.1, -1e300, 5e-324, 2.0**60]) * np.array([0.1, -1e300, 5e-324, 2.0**60])"
// RUN: %python %S/npy_tool.py check %t/out/result2.npy "np.array([[-2**31, 7], [2**31 - 1, -5]], np.int32) + np.int32(1)"
// RUN: %python %S/npy_tool.py check %t/out/result3.npy "np.array([2**62, -3, 0, 1 << 40, -(2**63)], np.int64) * np.int64(3)"
// RUN: %python %S/npy_tool.py check %t/out/result4.npy "np.array([0x12345678, 0xffffffff], np.uint32)"
// RUN: %python %S/npy_tool.py check %t/out/result5.npy "np.array([[1.5, -2.25, 3e-39], [np.inf, -0.0, 1e30]], np.float32)"

func.func @roundtrip(%f32: tensor<2x3xf32>, %f64: tensor<4xf64>,
                     %i32: tensor<2x2xi32>, %i64: tensor<5xi64>,
                     %u32: tensor<2xui32>)
    -> (tensor<2x3xf32>, tensor<4xf64>, tensor<2x2xi32>, tensor<5xi64>,
        tensor<2xui32>, tensor<2x3xf32>) {
  %twice = arith.addf %f32, %f32 : tensor<2x3xf32>
  %square = arith.mulf %f64, %f64 : tensor<4xf64>
  %one = arith.constant dense<1> : tensor<2x2xi32>
  %inc = arith.addi %i32, %one : tensor<2x2xi32>
  %three = arith.constant dense<3> : tensor<5xi64>
  %triple = arith.muli %i64, %three : tensor<5xi64>
  return %twice, %square, %inc, %triple, %u32, %f32
      : tensor<2x3xf32>, tensor<4xf64>, tensor<2x2xi32>, tensor<5xi64>,
        tensor<2xui32>, tensor<2x3xf32>
}
