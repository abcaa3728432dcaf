// An SGD step of a dense/ReLU chain (48 -> 160 x3 -> 10, batch 16,
// cross-entropy, learning rate 0.5), its updates written as tensor
// arithmetic. Each weight's update is folded into the GEMM of its gradient
// (trellis-fuse-gemm-updates: alpha = -0.5, beta = 1, into the weight's own
// buffer, returned without a copy by trellis-return-arguments); the
// biases' updates stay element-wise. The new parameters and the loss
// match float64 NumPy's (norm-relative 1e-5 in f32, 1e-12 in f64), also
// after three calls of the step on the same inputs (each call gets its own
// copy of the arguments it writes).
// REQUIRES: numpy
// RUN: %python %S/sgd_in_gemm.py %s %t | FileCheck %s
// CHECK: PASS loss:
// CHECK: PASS params:
// CHECK: PASS repeated.params:
// CHECK: ALL CHECKS PASSED
// RUN: trellis-run %s --entry=sgd_step --sgemm=cblas --dump-llvm-ir=%t/step.ll --input=%t/00_in0.npy --input=%t/00_in1.npy --input=%t/00_in2.npy --input=%t/00_in3.npy --input=%t/00_in4.npy --input=%t/00_in5.npy --input=%t/00_in6.npy --input=%t/00_in7.npy --input=%t/00_in8.npy --input=%t/00_in9.npy > /dev/null
// RUN: FileCheck %s --check-prefix=IR < %t/step.ll
// IR-COUNT-4: call void @cblas_sgemm(i32 {{.*}}, float -5.000000e-01, ptr {{.*}}, float 1.000000e+00,
// IR-NOT: float -5.000000e-01, ptr
// RUN: %python %S/sgd_in_gemm.py %s %t --dtype=f64 | FileCheck %s

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

func.func @sgd_step(%w0: tensor<48x160xf32>, %b0: tensor<160xf32>, %w1: tensor<160x160xf32>, %b1: tensor<160xf32>,
                    %w2: tensor<160x160xf32>, %b2: tensor<160xf32>, %w3: tensor<160x10xf32>, %b3: tensor<10xf32>,
                    %x: tensor<16x48xf32>, %y: tensor<16xi32>)
    -> (tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>) {
  %l, %g0, %gb0, %g1, %gb1, %g2, %gb2, %g3, %gb3 = ad.value_and_grad @loss(%w0, %b0, %w1, %b1, %w2, %b2, %w3, %b3, %x, %y)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}
      : (tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>, tensor<16x48xf32>, tensor<16xi32>)
      -> (tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>)
  %lr_w0 = arith.constant dense<5.000000e-01> : tensor<48x160xf32>
  %s_w0 = arith.mulf %g0, %lr_w0 : tensor<48x160xf32>
  %n_w0 = arith.subf %w0, %s_w0 : tensor<48x160xf32>
  %lr_b0 = arith.constant dense<5.000000e-01> : tensor<160xf32>
  %s_b0 = arith.mulf %gb0, %lr_b0 : tensor<160xf32>
  %n_b0 = arith.subf %b0, %s_b0 : tensor<160xf32>
  %lr_w1 = arith.constant dense<5.000000e-01> : tensor<160x160xf32>
  %s_w1 = arith.mulf %g1, %lr_w1 : tensor<160x160xf32>
  %n_w1 = arith.subf %w1, %s_w1 : tensor<160x160xf32>
  %lr_b1 = arith.constant dense<5.000000e-01> : tensor<160xf32>
  %s_b1 = arith.mulf %gb1, %lr_b1 : tensor<160xf32>
  %n_b1 = arith.subf %b1, %s_b1 : tensor<160xf32>
  %lr_w2 = arith.constant dense<5.000000e-01> : tensor<160x160xf32>
  %s_w2 = arith.mulf %g2, %lr_w2 : tensor<160x160xf32>
  %n_w2 = arith.subf %w2, %s_w2 : tensor<160x160xf32>
  %lr_b2 = arith.constant dense<5.000000e-01> : tensor<160xf32>
  %s_b2 = arith.mulf %gb2, %lr_b2 : tensor<160xf32>
  %n_b2 = arith.subf %b2, %s_b2 : tensor<160xf32>
  %lr_w3 = arith.constant dense<5.000000e-01> : tensor<160x10xf32>
  %s_w3 = arith.mulf %g3, %lr_w3 : tensor<160x10xf32>
  %n_w3 = arith.subf %w3, %s_w3 : tensor<160x10xf32>
  %lr_b3 = arith.constant dense<5.000000e-01> : tensor<10xf32>
  %s_b3 = arith.mulf %gb3, %lr_b3 : tensor<10xf32>
  %n_b3 = arith.subf %b3, %s_b3 : tensor<10xf32>
  return %l, %n_w0, %n_b0, %n_w1, %n_b1, %n_w2, %n_b2, %n_w3, %n_b3
      : tensor<f32>, tensor<48x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x160xf32>, tensor<160xf32>, tensor<160x10xf32>, tensor<10xf32>
}
