// Gradient checks (ad.grad against central finite differences, f64, 1e-6
// relative; trellis_testing/gradcheck.py) of the linalg rules: matmul and
// batch_matmul (both inputs and the accumulator init), transpose, broadcast,
// reduce (addf, with a differentiated init), fill (of a differentiated
// scalar), and linalg.generic: elementwise with a broadcast operand, an
// additive reduction (a matrix-vector product plus a differentiated init)
// and a max reduction (unique maxima, init -inf); also matmul(a, a), a
// reduce and a broadcast over two dimensions, a fill overwriting a
// differentiated tensor (which gets zeros), and a generic reading a 0-d
// tensor, a transposed input and linalg.index.
// REQUIRES: numpy
// RUN: %python %S/linalg_ops.py %s %t | FileCheck %s

// CHECK: PASS matmul.a:
// CHECK: PASS matmul.b:
// CHECK: PASS matmul.init:
// CHECK: PASS batch_matmul.a:
// CHECK: PASS batch_matmul.b:
// CHECK: PASS batch_matmul.init:
// CHECK: PASS transpose.a:
// CHECK: PASS broadcast.a:
// CHECK: PASS reduce.a:
// CHECK: PASS reduce.init:
// CHECK: PASS fill.s:
// CHECK: PASS generic_elementwise.a:
// CHECK: PASS generic_elementwise.r:
// CHECK: PASS generic_sum.a:
// CHECK: PASS generic_sum.v:
// CHECK: PASS generic_sum.init:
// CHECK: PASS generic_max.a:
// CHECK: PASS generic_max.w:
// CHECK: PASS matmul_self.a:
// CHECK: PASS reduce_two_dims.a:
// CHECK: PASS broadcast_two_dims.a:
// CHECK: PASS fill_over_argument.s:
// CHECK: PASS fill_over_argument.a:
// CHECK: PASS generic_misc.a:
// CHECK: PASS generic_misc.b:
// CHECK: PASS generic_misc.s:
// CHECK: ALL CHECKS PASSED

#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
#sc = affine_map<(i, j) -> ()>

func.func @loss_matmul(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>, %init: tensor<3x5xf64>,
                       %c: tensor<3x5xf64>) -> tensor<f64> {
  %m = linalg.matmul ins(%a, %b : tensor<3x4xf64>, tensor<4x5xf64>)
                     outs(%init : tensor<3x5xf64>) -> tensor<3x5xf64>
  %t = nn.tanh %m : tensor<3x5xf64>
  %p = arith.mulf %t, %c : tensor<3x5xf64>
  %l = nn.mean %p : (tensor<3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_batch_matmul(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>,
                             %init: tensor<2x3x5xf64>, %c: tensor<2x3x5xf64>) -> tensor<f64> {
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf64>, tensor<2x4x5xf64>)
                           outs(%init : tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  %t = nn.tanh %m : tensor<2x3x5xf64>
  %p = arith.mulf %t, %c : tensor<2x3x5xf64>
  %l = nn.mean %p : (tensor<2x3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_transpose(%a: tensor<2x3x4xf64>, %c: tensor<4x2x3xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<4x2x3xf64>
  %t = linalg.transpose ins(%a : tensor<2x3x4xf64>) outs(%e : tensor<4x2x3xf64>)
                        permutation = [2, 0, 1]
  %s = nn.softmax %t : tensor<4x2x3xf64>
  %p = arith.mulf %s, %c : tensor<4x2x3xf64>
  %l = nn.mean %p : (tensor<4x2x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_broadcast(%a: tensor<3x4xf64>, %c: tensor<3x5x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x5x4xf64>
  %b = linalg.broadcast ins(%a : tensor<3x4xf64>) outs(%e : tensor<3x5x4xf64>)
                        dimensions = [1]
  %t = nn.tanh %b : tensor<3x5x4xf64>
  %p = arith.mulf %t, %c : tensor<3x5x4xf64>
  %l = nn.mean %p : (tensor<3x5x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_reduce(%a: tensor<3x4x5xf64>, %init: tensor<3x5xf64>,
                       %c: tensor<3x5xf64>) -> tensor<f64> {
  %r = linalg.reduce ins(%a : tensor<3x4x5xf64>) outs(%init : tensor<3x5xf64>)
                     dimensions = [1]
    (%x: f64, %acc: f64) {
      %s = arith.addf %x, %acc : f64
      linalg.yield %s : f64
    }
  %t = nn.tanh %r : tensor<3x5xf64>
  %p = arith.mulf %t, %c : tensor<3x5xf64>
  %l = nn.mean %p : (tensor<3x5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_fill(%s: tensor<f64>, %a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %v = tensor.extract %s[] : tensor<f64>
  %e = tensor.empty() : tensor<3x4xf64>
  %f = linalg.fill ins(%v : f64) outs(%e : tensor<3x4xf64>) -> tensor<3x4xf64>
  %m = arith.mulf %f, %a : tensor<3x4xf64>
  %t = nn.tanh %m : tensor<3x4xf64>
  %p = arith.mulf %t, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// y[i,j] = tanh(a[i,j]) · r[j] + a[i,j]·a[i,j]
func.func @loss_generic_elementwise(%a: tensor<3x4xf64>, %r: tensor<4xf64>,
                                    %c: tensor<3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %r : tensor<3x4xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %t = math.tanh %x : f64
    %tz = arith.mulf %t, %z : f64
    %xx = arith.mulf %x, %x : f64
    %s = arith.addf %tz, %xx : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  %p = arith.mulf %y, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// y[i] = init[i] + Σ_j a[i,j] · v[j]   (generic with a reduction loop)
func.func @loss_generic_sum(%a: tensor<3x4xf64>, %v: tensor<4xf64>, %init: tensor<3xf64>,
                            %c: tensor<3xf64>) -> tensor<f64> {
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : tensor<3x4xf64>, tensor<4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %m = arith.mulf %x, %z : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  %t = nn.tanh %y : tensor<3xf64>
  %p = arith.mulf %t, %c : tensor<3xf64>
  %l = nn.mean %p : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// y[j] = max_i (a[i,j] · w[i]), init -inf.
func.func @loss_generic_max(%a: tensor<4x5xf64>, %w: tensor<4xf64>,
                            %c: tensor<5xf64>) -> tensor<f64> {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<5xf64>
  %init = linalg.fill ins(%ninf : f64) outs(%e : tensor<5xf64>) -> tensor<5xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (i)>,
                                        affine_map<(j, i) -> (j)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %w : tensor<4x5xf64>, tensor<4xf64>) outs(%init : tensor<5xf64>) {
  ^bb0(%x: f64, %z: f64, %o: f64):
    %m = arith.mulf %x, %z : f64
    %s = arith.maximumf %m, %o : f64
    linalg.yield %s : f64
  } -> tensor<5xf64>
  %t = nn.tanh %y : tensor<5xf64>
  %p = arith.mulf %t, %c : tensor<5xf64>
  %l = nn.mean %p : (tensor<5xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_matmul_self(%a: tensor<3x3xf64>, %c: tensor<3x3xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x3xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3x3xf64>) -> tensor<3x3xf64>
  %m = linalg.matmul ins(%a, %a : tensor<3x3xf64>, tensor<3x3xf64>) outs(%z : tensor<3x3xf64>) -> tensor<3x3xf64>
  %p = arith.mulf %m, %c : tensor<3x3xf64>
  %l = nn.mean %p : (tensor<3x3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_reduce_two_dims(%a: tensor<2x3x4xf64>, %c: tensor<3xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.reduce ins(%a : tensor<2x3x4xf64>) outs(%z : tensor<3xf64>) dimensions = [0, 2]
    (%x: f64, %acc: f64) {
      %s = arith.addf %acc, %x : f64
      linalg.yield %s : f64
    }
  %t = nn.tanh %r : tensor<3xf64>
  %p = arith.mulf %t, %c : tensor<3xf64>
  %l = nn.mean %p : (tensor<3xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

func.func @loss_broadcast_two_dims(%a: tensor<3xf64>, %c: tensor<2x3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<2x3x4xf64>
  %b = linalg.broadcast ins(%a : tensor<3xf64>) outs(%e : tensor<2x3x4xf64>) dimensions = [0, 2]
  %t = nn.tanh %b : tensor<2x3x4xf64>
  %p = arith.mulf %t, %c : tensor<2x3x4xf64>
  %l = nn.mean %p : (tensor<2x3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// The fill overwrites a: a's gradient is zero.
func.func @loss_fill_over_argument(%s: tensor<f64>, %a: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %v = tensor.extract %s[] : tensor<f64>
  %f = linalg.fill ins(%v : f64) outs(%a : tensor<3x4xf64>) -> tensor<3x4xf64>
  %t = nn.tanh %f : tensor<3x4xf64>
  %p = arith.mulf %t, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}

// y[i,j] = a[i,j]·b[j,i]·s·i + b[j,i]: a 0-d input, a transposed input,
// linalg.index.
func.func @loss_generic_misc(%a: tensor<3x4xf64>, %b: tensor<4x3xf64>, %s: tensor<f64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [#id, #tr, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %s : tensor<3x4xf64>, tensor<4x3xf64>, tensor<f64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%x: f64, %z: f64, %q: f64, %o: f64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %m = arith.mulf %x, %z : f64
    %mq = arith.mulf %m, %q : f64
    %r = arith.mulf %mq, %fi : f64
    %r2 = arith.addf %r, %z : f64
    linalg.yield %r2 : f64
  } -> tensor<3x4xf64>
  %t = nn.tanh %y : tensor<3x4xf64>
  %p = arith.mulf %t, %c : tensor<3x4xf64>
  %l = nn.mean %p : (tensor<3x4xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
