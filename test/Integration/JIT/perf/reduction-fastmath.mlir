// Row reductions (layer_norm's mean and variance, softmax's max and sum,
// cross-entropy's logsumexp and picked logit, nn.mean's total, and the row
// sums of their VJPs) carry fastmath<reassoc,contract> on their bodies, so
// that LLVM's loop vectorizer may sum in vector lanes (docs/performance.md).
// The elementwise maps keep exact IEEE semantics.
// RUN: trellis-opt %s --convert-nn-to-linalg | FileCheck %s
// RUN: trellis-opt %s --ad-differentiate --convert-nn-to-linalg | FileCheck %s --check-prefix=VJP
// The optimized LLVM IR (for a fixed AVX-512 CPU, whatever the host) sums
// the rows of layer_norm in 16-lane vectors.
// RUN: trellis-opt %s --trellis-lower-to-llvm | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -mtriple=x86_64-unknown-linux-gnu -mcpu=znver4 -passes='default<O3>' -S \
// RUN:   | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @forward
// layer_norm: Σx, then Σ(x − mean)².
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// The normalization itself is elementwise and exact.
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-NOT: fastmath
// CHECK: linalg.yield
// softmax: row max, Σ exp(x − max).
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// nn.mean: the total.
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func @forward(%x: tensor<8x16xf32>, %s: tensor<16xf32>, %o: tensor<16xf32>)
    -> tensor<f32> {
  %n = nn.layer_norm %x, %s, %o
      : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %p = nn.softmax %n : tensor<8x16xf32>
  %l = nn.mean %p : (tensor<8x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @xent
// max, Σ exp, the picked logit (a masked row sum), then the mean over rows.
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.select
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: iterator_types = ["reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
func.func @xent(%x: tensor<8x16xf32>, %y: tensor<8xi32>) -> tensor<f32> {
  %l = nn.cross_entropy %x, %y : (tensor<8x16xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// The derivative recomputes the forward reductions; the VJPs reduce rows as
// well: Σ dy·y (softmax), and after layer_norm's recomputed statistics
// Σ dy·scale and Σ dy·scale·x̂.
// VJP-LABEL: func.func private @forward__grad_0
// VJP: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP-NEXT: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// VJP-LABEL: func.func @xent
func.func @grad(%x: tensor<8x16xf32>, %s: tensor<16xf32>, %o: tensor<16xf32>)
    -> tensor<8x16xf32> {
  %g = ad.grad @forward(%x, %s, %o) {argnums = array<i64: 0>}
      : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// Rows long enough to stay loops (LLVM unrolls 16-element rows completely):
// both row sums of layer_norm end in a horizontal add of 16-lane partial sums.
// LLVM-LABEL: define {{.*}} @wide_rows(
// LLVM: fadd reassoc contract <16 x float>
// LLVM: call reassoc contract float @llvm.vector.reduce.fadd.v16f32(
// LLVM: fadd reassoc contract <16 x float>
// LLVM: call reassoc contract float @llvm.vector.reduce.fadd.v16f32(
// LLVM: ret
func.func @wide_rows(%x: tensor<4x1024xf32>, %s: tensor<1024xf32>, %o: tensor<1024xf32>)
    -> tensor<4x1024xf32> {
  %n = nn.layer_norm %x, %s, %o
      : (tensor<4x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4x1024xf32>
  return %n : tensor<4x1024xf32>
}
