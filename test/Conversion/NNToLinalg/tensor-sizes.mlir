// trellis-check-tensor-sizes: a static shape whose element count does not
// fit in 63 bits, or whose bytes exceed max-bytes (2^48 by default), is one
// error at the op that makes it; sizes a host can hold pass.
// RUN: trellis-opt %s -split-input-file -verify-diagnostics --trellis-check-tensor-sizes
// With a lower bound.
// RUN: not trellis-opt %s -split-input-file --trellis-check-tensor-sizes=max-bytes=1024 2>&1 | FileCheck %s --check-prefix=CHECK-SMALL
// CHECK-SMALL: error: 'tensor<65536x65536xf32>' has 4294967296 elements (17179869184 bytes), more than the largest size allowed, 1024 bytes

func.func @overflow(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @below {{'tensor<4294967296x4294967296xf32>' has more than 2^63 elements}}
  %y = arith.addf %x, %x : tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}

// -----

func.func @too_many_bytes() -> tensor<100000000000000xf32> {
  // expected-error @below {{'tensor<100000000000000xf32>' has 100000000000000 elements (400000000000000 bytes), more than the largest size allowed, 281474976710656 bytes}}
  %c = arith.constant dense<1.0> : tensor<100000000000000xf32>
  return %c : tensor<100000000000000xf32>
}

// -----

// A memref argument alone: the function's region argument.
// expected-error @below {{'memref<1099511627776x1024xf64>' has 1125899906842624 elements (9007199254740992 bytes)}}
func.func @memref_argument(%m: memref<1099511627776x1024xf64>) {
  return
}

// -----

// Large but possible, and dynamic sizes: no error.
func.func @fine(%x: tensor<?x?xf32>, %y: tensor<65536x65536xf32>) -> tensor<65536x65536xf32> {
  %z = arith.addf %y, %y : tensor<65536x65536xf32>
  return %z : tensor<65536x65536xf32>
}
