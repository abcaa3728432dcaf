// Loops whose trip count is known at run time only (issue 19). scf.for with
// a bound from an argument: the trip count is computed before the loop and
// sizes the tape. scf.while: the tape grows by doubling (capacity 8 first),
// the loop counts its condition evaluations, and the reverse loop runs one
// fewer times than that (the exit evaluation is reversed before it).
// Numerical checks: test/Integration/JIT/ad/dynamic_loops.mlir.
// RUN: trellis-opt %s -split-input-file --ad-differentiate | FileCheck %s

// CHECK-LABEL: func.func private @fori__grad_0
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[N:.*]]: index)
// CHECK: %[[RUNS:.*]] = arith.cmpi sgt, %[[N]], %[[C0:.*]] : index
// CHECK: %[[COUNT:.*]] = arith.select %[[RUNS]], %[[N]], %[[C0]] : index
// CHECK: %[[TAPE:.*]] = tensor.empty(%[[COUNT]]) : tensor<?x3xf32>
// CHECK: %[[FWD:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[A:.*]] = %[[X]], %[[T:.*]] = %[[TAPE]])
// CHECK: tensor.insert_slice %[[A]] into %[[T]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[COUNT]] step
// CHECK: tensor.extract_slice %[[FWD]]#1
func.func @fori(%x: tensor<3xf32>, %n: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<3xf32> {
    %t = math.tanh %a : tensor<3xf32>
    scf.yield %t : tensor<3xf32>
  }
  %l = nn.mean %r : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad_fori(%x: tensor<3xf32>, %n: index) -> tensor<3xf32> {
  %g = ad.grad @fori(%x, %n) : (tensor<3xf32>, index) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func private @while_loop__grad_0
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[INIT:.*]] = tensor.cast %[[EMPTY]] : tensor<8xf32> to tensor<?xf32>
// CHECK: %[[FWD:.*]]:3 = scf.while (%[[A:.*]] = %{{.*}}, %[[T:.*]] = %[[INIT]], %[[K:.*]] = %{{.*}})
// CHECK: %[[CAP:.*]] = tensor.dim %[[T]]
// CHECK: %[[FULL:.*]] = arith.cmpi eq, %[[K]], %[[CAP]] : index
// CHECK: %[[ROOM:.*]] = scf.if %[[FULL]] -> (tensor<?xf32>) {
// CHECK: %[[DOUBLED:.*]] = arith.muli %[[CAP]], %{{.*}} : index
// CHECK: %[[GROWN:.*]] = tensor.empty(%[[DOUBLED]]) : tensor<?xf32>
// CHECK: tensor.insert_slice %[[T]] into %[[GROWN]][0] [%[[CAP]]] [1]
// CHECK: tensor.insert %[[A]] into %[[ROOM]][%[[K]]]
// CHECK: scf.condition
// CHECK: %[[TRIPS:.*]] = arith.subi %[[FWD]]#2, %{{.*}} : index
// CHECK: tensor.extract %[[FWD]]#1[%[[TRIPS]]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TRIPS]] step
// CHECK: tensor.extract %[[FWD]]#1
// -----

func.func @while_loop(%x: f32) -> f32 {
  %r = scf.while (%a = %x) : (f32) -> f32 {
    %c = arith.constant 10.0 : f32
    %b = arith.cmpf olt, %a, %c : f32
    scf.condition(%b) %a : f32
  } do {
  ^bb0(%a: f32):
    %d = arith.mulf %a, %a : f32
    scf.yield %d : f32
  }
  return %r : f32
}
func.func @grad_while_loop(%x: f32) -> f32 {
  %g = ad.grad @while_loop(%x) : (f32) -> f32
  return %g : f32
}
