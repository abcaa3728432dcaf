// --stats prints one JSON line with exactly compile_ms, run_ms,
// peak_tensor_bytes and compile_phases (mlir_ms, llvm_ms, cache_ms,
// tuning_ms, cache: "off" without a compile cache); --repeat=N calls the
// entry N times on fresh copies of the inputs (an in-place update does not
// accumulate).
// --warmup=N calls it N more times first, left out of run_ms.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.npy "np.arange(1000, dtype=np.float32) % 4"
// RUN: %python %S/npy_tool.py save %t/v.npy "np.array([1, 2, 3, 4], np.float32)"
//
// RUN: trellis-run %s --entry=increment --input=%t/v.npy --repeat=5 --stats --output-dir=%t/inc > %t/inc.txt
// RUN: FileCheck %s --check-prefix=CHECK-JSON < %t/inc.txt
// CHECK-JSON: {{^}}{"compile_ms": {{[0-9]+\.[0-9]+}}, "run_ms": {{[0-9]+\.[0-9]+}}, "peak_tensor_bytes": {{[0-9]+}}, "compile_phases": {"mlir_ms": {{[0-9]+\.[0-9]+}}, "llvm_ms": {{[0-9]+\.[0-9]+}}, "cache_ms": 0.000, "tuning_ms": {{[0-9]+\.[0-9]+}}, "cache": "off"}}{{$}}
// RUN: %python %S/npy_tool.py stats < %t/inc.txt
// RUN: %python %S/npy_tool.py check %t/inc/result0.npy "np.array([2, 3, 4, 5], np.float32)"
// --warmup=N calls it N more times before the timed calls, also on fresh
// copies.
// RUN: trellis-run %s --entry=increment --input=%t/v.npy --warmup=3 --stats --output-dir=%t/warm > %t/warm.txt
// RUN: %python %S/npy_tool.py stats < %t/warm.txt
// RUN: %python %S/npy_tool.py check %t/warm/result0.npy "np.array([2, 3, 4, 5], np.float32)"
//
// A 1000-element f32 temporary: the peak counts its 4000 bytes (plus the
// 4-byte result and at most 64 bytes of alignment padding per buffer), and
// is the same whatever the number of calls.
// RUN: trellis-run %s --entry=sum_of_squares --input=%t/x.npy --stats --output-dir=%t/sum > %t/sum1.txt
// RUN: %python %S/npy_tool.py stats --peak-min 4004 --peak-max 4200 < %t/sum1.txt
// RUN: %python %S/npy_tool.py check %t/sum/result0.npy "np.array(3500, np.float32)"
// RUN: trellis-run %s --entry=sum_of_squares --input=%t/x.npy --stats --repeat=4 > %t/sum4.txt
// RUN: %python %S/npy_tool.py stats --peak-min 4004 --peak-max 4200 < %t/sum4.txt
// RUN: FileCheck %s --check-prefix=CHECK-SUMMARY < %t/sum4.txt
// CHECK-SUMMARY: result0: float32 () [3500]
// CHECK-SUMMARY-NEXT: {"compile_ms"
//
// Nothing allocated: the peak is 0.
// RUN: trellis-run %s --entry=identity --input=%t/v.npy --stats | FileCheck %s --check-prefix=CHECK-ZERO
// CHECK-ZERO: "peak_tensor_bytes": 0,

func.func @increment(%v: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.addf %v, %one : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sum_of_squares(%x: tensor<1000xf32>) -> tensor<f32> {
  %squares = arith.mulf %x, %x : tensor<1000xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%squares : tensor<1000xf32>)
                       outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}

func.func @identity(%v: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %v[%c0] : tensor<4xf32>
  return %e : f32
}
