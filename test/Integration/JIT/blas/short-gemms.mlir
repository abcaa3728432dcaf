// The gradients of a dense/ReLU chain over a batch of 16 rows (48 -> 160 x3
// -> 10, cross-entropy), computed with each form of the short input
// gradients (--short-gemms, trellis-orient-contractions): dY·Wᵀ as it is,
// and as its transpose W·dHᵀ with the transposed layout carried through
// the ReLU VJPs and bias gradients. Both match float64 NumPy's
// backpropagation (rtol 1e-5 in f32; in f64, whose products the pass
// leaves as they are, 1e-12) and each other; the
// LLVM IR shows the forms: the direct run calls oneDNN with B transposed on
// 16 rows, the transposed one the plain 160×16 products.
// REQUIRES: numpy
// RUN: %python %S/short_gemms.py %s %t | FileCheck %s
// CHECK: PASS direct.loss:
// CHECK: PASS direct.grads:
// CHECK: PASS transposed.loss:
// CHECK: PASS transposed.grads:
// CHECK: PASS same_bits_of_loss:
// CHECK: ALL CHECKS PASSED
// RUN: trellis-run %s --entry=grads --sgemm=dnnl --short-gemms=direct --dump-llvm-ir=%t/direct.ll --input=%t/00_in0.npy --input=%t/00_in1.npy --input=%t/00_in2.npy --input=%t/00_in3.npy --input=%t/00_in4.npy --input=%t/00_in5.npy --input=%t/00_in6.npy --input=%t/00_in7.npy --input=%t/00_in8.npy --input=%t/00_in9.npy > /dev/null
// RUN: FileCheck %s --check-prefix=DIRECT < %t/direct.ll
// DIRECT-COUNT-2: call {{.*}}@dnnl_sgemm(i8 78, i8 84, i64 16, i64 160, i64 160,
// DIRECT-NOT: i8 78, i8 78, i64 160, i64 16, i64 160,
// RUN: trellis-run %s --entry=grads --sgemm=dnnl --short-gemms=transposed --dump-llvm-ir=%t/transposed.ll --input=%t/00_in0.npy --input=%t/00_in1.npy --input=%t/00_in2.npy --input=%t/00_in3.npy --input=%t/00_in4.npy --input=%t/00_in5.npy --input=%t/00_in6.npy --input=%t/00_in7.npy --input=%t/00_in8.npy --input=%t/00_in9.npy > /dev/null
// RUN: FileCheck %s --check-prefix=TRANSPOSED < %t/transposed.ll
// TRANSPOSED-COUNT-2: call {{.*}}@dnnl_sgemm(i8 78, i8 78, i64 160, i64 16, i64 160,
// TRANSPOSED-NOT: i8 78, i8 84, i64 16, i64 160, i64 160,
// The f64 run last: it writes its own inputs over the f32 ones.
// RUN: %python %S/short_gemms.py %s %t --dtype=f64 | FileCheck %s

func.func private @loss(%w0: tensor<48x160xf32>, %b0: tensor<160xf32>, %w1: tensor<160x160xf32>, %b1: tensor<160xf32>,
                        %w2: tensor<160x160xf32>, %b2: tensor<160xf32>, %w3: tensor<160x10xf32>, %b3: tensor<10xf32>,
                        %x: tensor<16x48xf32>, %y: tensor<16xi32>) -> tensor<f32> {
  %h0 = nn.dense %x, %w0, %b0 : (tensor<16x48xf32>, tensor<48x160xf32>, tensor<160xf32>) -> tensor<16x160xf32>
  %a0 = nn.relu %h0 : tensor<16x160xf32>
  %h1 = nn.dense %a0, %w1, %b1 : (tensor<16x160xf32>, tensor<160x160xf32>, tensor<160xf32>) -> tensor<16x160xf32>
  %a1 = nn.relu %h1 : tensor<16x160xf32>
  %h2 = nn.dense %a1, %w2, %b2 : (tensor<16x160xf32>, tensor<160x160xf32>, tensor<160xf32>) -> tensor<16x160xf32>
  %a2 = nn.relu %h2 : tensor<16x160xf32>
  %h3 = nn.dense %a2, %w3, %b3 : (tensor<16x160xf32>, tensor<160x10xf32>, tensor<10xf32>) -> tensor<16x10xf32>
  %l = nn.cross_entropy %h3, %y : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grads(%w0: tensor<48x160xf32>, %b0: tensor<160xf32>, %w1: tensor<160x160xf32>, %b1: tensor<160xf32>,
                 %w2: tensor<160x160xf32>, %b2: tensor<160xf32>, %w3: tensor<160x10xf32>, %b3: tensor<10xf32>,
                 %x: tensor<16x48xf32>, %y: tensor<16xi32>)
    -> (tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>,
        tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>) {
  %l, %g0, %gb0, %g1, %gb1, %g2, %gb2, %g3, %gb3 = ad.value_and_grad @loss(%w0, %b0, %w1, %b1, %w2, %b2, %w3, %b3, %x, %y)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}
      : (tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>,
         tensor<160x10xf32>, tensor<10xf32>, tensor<16x48xf32>, tensor<16xi32>)
      -> (tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>,
          tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>)
  return %l, %g0, %gb0, %g1, %gb1, %g2, %gb2, %g3, %gb3
      : tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>,
        tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>
}
