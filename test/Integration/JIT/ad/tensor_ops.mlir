// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of the tensor-dialect rules:
// extract (two elements, one read twice), insert, extract_slice (offsets
// and strides; rank-reducing), insert_slice (strided, into a differentiated
// destination; rank-reduced source),
// expand_shape, collapse_shape, concat (along dims 0 and 1) and splat (to a
// 2-D tensor and to a 0-d tensor).
// REQUIRES: numpy
// RUN: %python %S/tensor_ops.py %s %t | FileCheck %s

// CHECK: PASS extract.a:
// CHECK: PASS insert.a:
// CHECK: PASS insert.s:
// CHECK: PASS extract_slice.a:
// CHECK: PASS slices_rank_reducing.a:
// CHECK: PASS insert_slice.a:
// CHECK: PASS insert_slice.b:
// CHECK: PASS expand_shape.a:
// CHECK: PASS collapse_shape.a:
// CHECK: PASS concat.a:
// CHECK: PASS concat.b:
// CHECK: PASS concat.d:
// CHECK: PASS splat.s:
// CHECK: ALL CHECKS PASSED

// a[1,2]² · a[0,3] + a[2,0], wrapped back into a 0-d tensor by tensor.splat.
func.func @loss_extract(%a: tensor<3x4xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %e1 = tensor.extract %a[%c1, %c2] : tensor<3x4xf64>
  %e2 = tensor.extract %a[%c0, %c3] : tensor<3x4xf64>
  %e3 = tensor.extract %a[%c2, %c0] : tensor<3x4xf64>
  %e1e1 = arith.mulf %e1, %e1 : f64
  %p = arith.mulf %e1e1, %e2 : f64
  %s = arith.addf %p, %e3 : f64
  %l = tensor.splat %s : tensor<f64>
  return %l : tensor<f64>
}

// Replace a[2,1] by s[]·s[]; the replaced element gets no gradient.
func.func @loss_insert(%a: tensor<3x4xf64>, %s: tensor<f64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = tensor.extract %s[] : tensor<f64>
  %vv = arith.mulf %v, %v : f64
  %y = tensor.insert %vv into %a[%c2, %c1] : tensor<3x4xf64>
  %t = nn.tanh %y : tensor<3x4xf64>
  %p = arith.mulf %t, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Rows 1..2, columns 1, 3, 5 of a 4x7 tensor.
func.func @loss_extract_slice(%a: tensor<4x7xf64>, %c: tensor<2x3xf64>) -> tensor<f64> {
  %s = tensor.extract_slice %a[1, 1] [2, 3] [1, 2] : tensor<4x7xf64> to tensor<2x3xf64>
  %t = nn.tanh %s : tensor<2x3xf64>
  %p = arith.mulf %t, %c : tensor<2x3xf64>
  %l = nn.mean %p : (tensor<2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// Row 1 as a 4-vector; tanh of it replaces row 2 (rank-reduced slices).
func.func @loss_slices_rank_reducing(%a: tensor<3x4xf64>, %c: tensor<4xf64>) -> tensor<f64> {
  %s = tensor.extract_slice %a[1, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
  %t = nn.tanh %s : tensor<4xf64>
  %z = tensor.insert_slice %t into %a[2, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<3x4xf64>
  %zz = arith.mulf %z, %z : tensor<3x4xf64>
  %m = nn.mean %zz : (tensor<3x4xf64>) -> tensor<f64>
  %p = arith.mulf %t, %c : tensor<4xf64>
  %l = nn.mean %p : (tensor<4xf64>) -> tensor<f64>
  %r = arith.addf %l, %m : tensor<f64>
  return %r : tensor<f64>
}

// b (2x3) into rows 1..2, columns 0, 2, 4 of a (4x6); the overwritten
// elements of a get no gradient.
func.func @loss_insert_slice(%a: tensor<4x6xf64>, %b: tensor<2x3xf64>,
                             %c: tensor<4x6xf64>) -> tensor<f64> {
  %bt = nn.tanh %b : tensor<2x3xf64>
  %y = tensor.insert_slice %bt into %a[1, 0] [2, 3] [1, 2] : tensor<2x3xf64> into tensor<4x6xf64>
  %yy = arith.mulf %y, %y : tensor<4x6xf64>
  %p = arith.mulf %yy, %c : tensor<4x6xf64>
  %l = nn.mean %p : (tensor<4x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_expand_shape(%a: tensor<6x4xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %e = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 3, 4]
      : tensor<6x4xf64> into tensor<2x3x4xf64>
  %s = nn.softmax %e : tensor<2x3x4xf64>
  %p = arith.mulf %s, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_collapse_shape(%a: tensor<2x3x4xf64>, %c: tensor<2x12xf64>) -> tensor<f64> {
  %e = tensor.collapse_shape %a [[0], [1, 2]] : tensor<2x3x4xf64> into tensor<2x12xf64>
  %s = nn.softmax %e : tensor<2x12xf64>
  %p = arith.mulf %s, %c : tensor<2x12xf64>
  %l = nn.mean %p : (tensor<2x12xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// concat(a: 3x2, b: 3x4) along dim 1, then with d: 2x6 along dim 0.
func.func @loss_concat(%a: tensor<3x2xf64>, %b: tensor<3x4xf64>, %d: tensor<2x6xf64>,
                       %c: tensor<5x6xf64>) -> tensor<f64> {
  %ab = tensor.concat dim(1) %a, %b : (tensor<3x2xf64>, tensor<3x4xf64>) -> tensor<3x6xf64>
  %abd = tensor.concat dim(0) %ab, %d : (tensor<3x6xf64>, tensor<2x6xf64>) -> tensor<5x6xf64>
  %s = nn.log_softmax %abd : tensor<5x6xf64>
  %p = arith.mulf %s, %c : tensor<5x6xf64>
  %l = nn.mean %p : (tensor<5x6xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// A scalar splat over a 3x4 tensor: its gradient is the sum of the 12.
func.func @loss_splat(%s: tensor<f64>, %a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %v = tensor.extract %s[] : tensor<f64>
  %t = tensor.splat %v : tensor<3x4xf64>
  %m = arith.mulf %t, %a : tensor<3x4xf64>
  %y = nn.tanh %m : tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
