// An MLP classifier trained with SGD for 100 steps inside one JIT call:
// dense → gelu → dense → cross-entropy, gradients from ad.value_and_grad,
// batches of 32 cycling through a 256-sample dataset.
// REQUIRES: numpy
// RUN: %python %S/mlp_sgd.py %s %t

func.func @loss(%w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                %w2: tensor<32x4xf32>, %b2: tensor<4xf32>,
                %x: tensor<32x16xf32>, %y: tensor<32xi32>) -> tensor<f32> {
  %h = nn.dense %x, %w1, %b1 : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %a = nn.gelu %h : tensor<32x32xf32>
  %o = nn.dense %a, %w2, %b2 : (tensor<32x32xf32>, tensor<32x4xf32>, tensor<4xf32>) -> tensor<32x4xf32>
  %l = nn.cross_entropy %o, %y : (tensor<32x4xf32>, tensor<32xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @train(%w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                 %w2: tensor<32x4xf32>, %b2: tensor<4xf32>,
                 %xs: tensor<256x16xf32>, %ys: tensor<256xi32>)
    -> (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  %lr = arith.constant 0.5 : f32
  %losses0 = tensor.empty() : tensor<100xf32>
  %r:5 = scf.for %step = %c0 to %c100 step %c1
      iter_args(%p1 = %w1, %p2 = %b1, %p3 = %w2, %p4 = %b2, %ls = %losses0)
      -> (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<100xf32>) {
    %batch = arith.remui %step, %c8 : index
    %off = arith.muli %batch, %c32 : index
    %x = tensor.extract_slice %xs[%off, 0] [32, 16] [1, 1] : tensor<256x16xf32> to tensor<32x16xf32>
    %y = tensor.extract_slice %ys[%off] [32] [1] : tensor<256xi32> to tensor<32xi32>
    %l, %g1, %g2, %g3, %g4 = ad.value_and_grad @loss(%p1, %p2, %p3, %p4, %x, %y)
        {argnums = array<i64: 0, 1, 2, 3>}
        : (tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<32x16xf32>, tensor<32xi32>)
        -> (tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)
    %n1 = func.call @sgd2(%p1, %g1, %lr) : (tensor<16x32xf32>, tensor<16x32xf32>, f32) -> tensor<16x32xf32>
    %n2 = func.call @sgd1(%p2, %g2, %lr) : (tensor<32xf32>, tensor<32xf32>, f32) -> tensor<32xf32>
    %n3 = func.call @sgd2b(%p3, %g3, %lr) : (tensor<32x4xf32>, tensor<32x4xf32>, f32) -> tensor<32x4xf32>
    %n4 = func.call @sgd1b(%p4, %g4, %lr) : (tensor<4xf32>, tensor<4xf32>, f32) -> tensor<4xf32>
    %lv = tensor.extract %l[] : tensor<f32>
    %ls2 = tensor.insert %lv into %ls[%step] : tensor<100xf32>
    scf.yield %n1, %n2, %n3, %n4, %ls2 : tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<100xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<100xf32>
}

// w − lr·g, one function per parameter shape.
func.func @sgd2(%w: tensor<16x32xf32>, %g: tensor<16x32xf32>, %lr: f32) -> tensor<16x32xf32> {
  %s = tensor.splat %lr : tensor<16x32xf32>
  %d = arith.mulf %s, %g : tensor<16x32xf32>
  %r = arith.subf %w, %d : tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @sgd1(%w: tensor<32xf32>, %g: tensor<32xf32>, %lr: f32) -> tensor<32xf32> {
  %s = tensor.splat %lr : tensor<32xf32>
  %d = arith.mulf %s, %g : tensor<32xf32>
  %r = arith.subf %w, %d : tensor<32xf32>
  return %r : tensor<32xf32>
}
func.func @sgd2b(%w: tensor<32x4xf32>, %g: tensor<32x4xf32>, %lr: f32) -> tensor<32x4xf32> {
  %s = tensor.splat %lr : tensor<32x4xf32>
  %d = arith.mulf %s, %g : tensor<32x4xf32>
  %r = arith.subf %w, %d : tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}
func.func @sgd1b(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: f32) -> tensor<4xf32> {
  %s = tensor.splat %lr : tensor<4xf32>
  %d = arith.mulf %s, %g : tensor<4xf32>
  %r = arith.subf %w, %d : tensor<4xf32>
  return %r : tensor<4xf32>
}
