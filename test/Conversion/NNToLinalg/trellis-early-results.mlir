// RUN: trellis-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(trellis-early-results))" | FileCheck %s

// The updates of a step's parameters move, with the empty tensor each
// writes, to right after the last definition of what they read: the first
// right after its gradient, the second after the constant its body reads
// from above. The loss, also read by another op, stays.
// CHECK-LABEL: func.func @updates
// CHECK: %[[G0:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[W0:.*]] = linalg.generic {{.*}} ins(%arg0, %[[G0]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E0]] : tensor<8xf32>)
// CHECK: %[[G1:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<8xf32>)
// CHECK: %[[LR:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[W1:.*]] = linalg.generic {{.*}} ins(%arg1, %[[G1]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E1]] : tensor<8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[LR]]
// CHECK: %[[L:.*]] = linalg.generic {{.*}} ins(%[[G0]], %[[G1]]
// CHECK: %[[L2:.*]] = linalg.generic {{.*}} ins(%[[L]]
// CHECK: return %[[W0]], %[[W1]], %[[L]], %[[L2]]
#id = affine_map<(d0) -> (d0)>
func.func @updates(%w0: tensor<8xf32>, %w1: tensor<8xf32>, %x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %g0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %lr = arith.constant 0.5 : f32
  %e2 = tensor.empty() : tensor<8xf32>
  %l = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%g0, %g1 : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e5 = tensor.empty() : tensor<8xf32>
  %l2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%l : tensor<8xf32>) outs(%e5 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8xf32>
  %n0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w0, %g0 : tensor<8xf32>, tensor<8xf32>) outs(%e3 : tensor<8xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %r = arith.subf %p, %g : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e4 = tensor.empty() : tensor<8xf32>
  %n1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w1, %g1 : tensor<8xf32>, tensor<8xf32>) outs(%e4 : tensor<8xf32>) {
  ^bb0(%p: f32, %g: f32, %o: f32):
    %s = arith.mulf %g, %lr : f32
    %r = arith.subf %p, %s : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %n0, %n1, %l, %l2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// An op reading only the arguments goes first; a reduction stays.
// CHECK-LABEL: func.func @first
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[N:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: linalg.fill
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK: return %[[N]], %[[S]]
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @first(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %n, %s : tensor<8xf32>, tensor<f32>
}
