// nn.dropout against the NumPy Threefry-2x32 mask (itself checked against
// Random123's known answers in threefry_kat.test): the kept/dropped
// positions bit for bit, kept values x/(1-rate) within 1e-5 relative
// (1e-12 in f64), reproducible per key, different across keys, the keep
// rate of a 256x1024 tensor within 5 sigma of 1-rate, rate 0 the identity,
// and ui32 and i32 keys alike.
// REQUIRES: numpy
// RUN: %python %S/dropout.py %s %t | FileCheck %s

// CHECK: PASS dropout_ui32.mask:
// CHECK: PASS dropout_ui32.values:
// CHECK: PASS dropout_ui32.keep_rate:
// CHECK: PASS dropout_ui32.same_key_same_result:
// CHECK: PASS dropout_ui32.other_key.mask:
// CHECK: PASS dropout_ui32.other_key.values:
// CHECK: PASS dropout_ui32.other_key_differs:
// CHECK: PASS dropout_i32.mask:
// CHECK: PASS dropout_i32.values:
// CHECK: PASS dropout_i32.same_bits_as_ui32:
// CHECK: PASS dropout_rate0.identity:
// CHECK: PASS dropout_rank3.mask:
// CHECK: PASS dropout_rank3.values:
// CHECK: PASS dropout_rank3_f64.mask:
// CHECK: PASS dropout_rank3_f64.values:
// CHECK: ALL CHECKS PASSED

func.func @dropout_ui32(%x: tensor<256x1024xf32>, %key: tensor<2xui32>)
    -> tensor<256x1024xf32> {
  %y = nn.dropout %x, %key {rate = 3.0e-01 : f32}
      : (tensor<256x1024xf32>, tensor<2xui32>) -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}

func.func @dropout_i32(%x: tensor<256x1024xf32>, %key: tensor<2xi32>)
    -> tensor<256x1024xf32> {
  %y = nn.dropout %x, %key {rate = 3.0e-01 : f32}
      : (tensor<256x1024xf32>, tensor<2xi32>) -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}

func.func @dropout_rate0(%x: tensor<8x16xf32>, %key: tensor<2xui32>)
    -> tensor<8x16xf32> {
  %y = nn.dropout %x, %key {rate = 0.0 : f32}
      : (tensor<8x16xf32>, tensor<2xui32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// Rank 3: the counter is the row-major linear index over all dimensions.
func.func @dropout_rank3(%x: tensor<3x5x7xf32>, %key: tensor<2xui32>)
    -> tensor<3x5x7xf32> {
  %y = nn.dropout %x, %key {rate = 5.0e-01 : f32}
      : (tensor<3x5x7xf32>, tensor<2xui32>) -> tensor<3x5x7xf32>
  return %y : tensor<3x5x7xf32>
}

func.func @dropout_rank3_f64(%x: tensor<3x5x7xf64>, %key: tensor<2xi32>)
    -> tensor<3x5x7xf64> {
  %y = nn.dropout %x, %key {rate = 8.0e-01 : f32}
      : (tensor<3x5x7xf64>, tensor<2xi32>) -> tensor<3x5x7xf64>
  return %y : tensor<3x5x7xf64>
}
