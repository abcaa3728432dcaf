// The update rules examples/modelgen.py writes (docs/training.md) are
// computed in place: after bufferization an update writes the parameter's
// own buffer (SGD's weights) or the buffer its gradient was computed into,
// which the step returns. No buffer is allocated for a new parameter, none
// copied.
// RUN: trellis-opt %s --trellis-lower-to-llvm --mlir-disable-threading \
// RUN:   --mlir-print-ir-before=convert-linalg-to-loops -o /dev/null 2>&1 \
// RUN:   | FileCheck %s

func.func private @loss(%w: tensor<16x8xf32>, %b: tensor<8xf32>,
                        %x: tensor<4x16xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  %h = nn.dense %x, %w, %b : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %l = nn.cross_entropy %h, %y : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// SGD: w - lr·g, b - lr·g over the gradients dW (a GEMM's output) and db (a
// column sum). The weight's update is its gradient's GEMM accumulated into
// the weight's own buffer (trellis-fuse-gemm-updates: alpha = -lr,
// beta = 1), which the step returns as it is (trellis-return-arguments);
// the bias's runs right after its gradient (trellis-early-results), over
// the gradient's buffer.
// CHECK-LABEL: func.func @sgd_step(
// CHECK-SAME: %[[W:[^:]*]]: memref<16x8xf32>, %[[B:[^:]*]]: memref<8xf32>
// CHECK-NOT: memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK-NOT: memref.copy
// CHECK: %[[ALPHA:.*]] = arith.negf
// CHECK-NOT: memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK-NOT: memref.copy
// CHECK: call @dnnl_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]],
// CHECK: %[[GB:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<8xf32>) outs(%[[GB]] : memref<8xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return %[[W]], %[[GB]], %{{.*}} : memref<16x8xf32>, memref<8xf32>, memref<f32>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @sgd_step(%w: tensor<16x8xf32>, %b: tensor<8xf32>,
                    %x: tensor<4x16xf32> {trellis.batch = "x"},
                    %y: tensor<4xi32> {trellis.batch = "y"})
    -> (tensor<16x8xf32>, tensor<8xf32>, tensor<f32>) {
  %loss, %g0, %g1 = ad.value_and_grad @loss(%w, %b, %x, %y) {argnums = array<i64: 0, 1>}
      : (tensor<16x8xf32>, tensor<8xf32>, tensor<4x16xf32>, tensor<4xi32>)
      -> (tensor<f32>, tensor<16x8xf32>, tensor<8xf32>)
  %lr = arith.constant 1.0e-01 : f32
  %np0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x8xf32>) outs(%g0 : tensor<16x8xf32>) {
    ^bb0(%p: f32, %g: f32):
      %s = arith.mulf %g, %lr : f32
      %n = arith.subf %p, %s : f32
      linalg.yield %n : f32
  } -> tensor<16x8xf32>
  %np1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%b : tensor<8xf32>) outs(%g1 : tensor<8xf32>) {
    ^bb0(%p: f32, %g: f32):
      %s = arith.mulf %g, %lr : f32
      %n = arith.subf %p, %s : f32
      linalg.yield %n : f32
  } -> tensor<8xf32>
  return %np0, %np1, %loss : tensor<16x8xf32>, tensor<8xf32>, tensor<f32>
}

// Adam (one parameter): the new parameter over dW, the moments in buffers
// of their own.
// CHECK-LABEL: func.func @adam_step(
// CHECK-SAME: %[[W:[^:]*]]: memref<16x8xf32>, %[[M:[^:]*]]: memref<16x8xf32>, %[[V:[^:]*]]: memref<16x8xf32>
// CHECK: %[[GW:.*]] = memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK: call @dnnl_sgemm(
// CHECK-NOT: memref.copy
// CHECK: %[[NM:.*]] = memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK-NEXT: %[[NV:.*]] = memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[W]], %[[M]], %[[V]] : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32>) outs(%[[GW]], %[[NM]], %[[NV]] : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return %[[GW]], %[[NM]], %[[NV]], %{{.*}} :
func.func @adam_step(%w: tensor<16x8xf32>, %m: tensor<16x8xf32>, %v: tensor<16x8xf32>,
                     %b: tensor<8xf32>,
                     %x: tensor<4x16xf32> {trellis.batch = "x"},
                     %y: tensor<4xi32> {trellis.batch = "y"})
    -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<f32>) {
  %loss, %g0 = ad.value_and_grad @loss(%w, %b, %x, %y) {argnums = array<i64: 0>}
      : (tensor<16x8xf32>, tensor<8xf32>, tensor<4x16xf32>, tensor<4xi32>)
      -> (tensor<f32>, tensor<16x8xf32>)
  %b1 = arith.constant 0.9 : f32
  %c1 = arith.constant 0.1 : f32
  %b2 = arith.constant 0.98 : f32
  %c2 = arith.constant 0.02 : f32
  %eps = arith.constant 1.0e-09 : f32
  %lr = arith.constant 1.0e-03 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %np, %nm, %nv = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2, #id2],
                                  iterator_types = ["parallel", "parallel"]}
      ins(%w, %m, %v : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
      outs(%g0, %e, %e : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) {
    ^bb0(%p: f32, %pm: f32, %pv: f32, %g: f32, %o1: f32, %o2: f32):
      %m1 = arith.mulf %b1, %pm : f32
      %m2 = arith.mulf %c1, %g : f32
      %mn = arith.addf %m1, %m2 : f32
      %v1 = arith.mulf %b2, %pv : f32
      %gg = arith.mulf %g, %g : f32
      %v2 = arith.mulf %c2, %gg : f32
      %vn = arith.addf %v1, %v2 : f32
      %sq = math.sqrt %vn : f32
      %den = arith.addf %sq, %eps : f32
      %q = arith.divf %mn, %den : f32
      %st = arith.mulf %lr, %q : f32
      %pn = arith.subf %p, %st : f32
      linalg.yield %pn, %mn, %vn : f32, f32, f32
  } -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
  return %np, %nm, %nv, %loss : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<f32>
}
