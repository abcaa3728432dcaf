// coll-bucket-reductions: buckets of psums/pmeans, each a start placed where
// its last tensor is computed and a wait placed before its first use.
// RUN: trellis-opt %s -split-input-file --coll-bucket-reductions | FileCheck %s
// RUN: trellis-opt %s -split-input-file '--coll-bucket-reductions=bucket-bytes=0' | FileCheck %s --check-prefix=CHECK-ZERO
// RUN: trellis-opt %s -split-input-file '--coll-bucket-reductions=bucket-bytes=64' | FileCheck %s --check-prefix=CHECK-SMALL
// RUN: trellis-opt %s -split-input-file '--coll-bucket-reductions=overlap=false' | FileCheck %s --check-prefix=CHECK-NOOVERLAP
// RUN: not trellis-opt %s '--coll-bucket-reductions=bucket-bytes=-1' 2>&1 | FileCheck %s --check-prefix=CHECK-NEGATIVE

// A backward pass that yields gb (12 bytes) first, then gw (48 bytes); the
// update needs gw first. Default: one bucket, in the order the tensors are
// ready, started after gw and waited for before the first update.
// CHECK-LABEL: func.func @step
// CHECK: %[[GB:.*]] = arith.mulf %arg3, %arg3 : tensor<3xf32>
// CHECK-NEXT: %[[GW:.*]] = arith.mulf %arg2, %arg2 : tensor<4x3xf32>
// CHECK-NEXT: %[[R:.*]] = coll.pmean_start %[[GB]], %[[GW]] {axis = "batch"} : tensor<3xf32>, tensor<4x3xf32>
// CHECK-NEXT: %[[X:.*]] = arith.addf %arg0, %arg0
// CHECK-NEXT: %[[W:.*]]:2 = coll.wait %[[R]] : tensor<3xf32>, tensor<4x3xf32>
// CHECK-NEXT: arith.subf %[[X]], %[[W]]#1
// CHECK-NEXT: arith.subf %arg1, %[[W]]#0
// CHECK-NOT: coll.pmean {

// bucket-bytes=0: one bucket per tensor, each started as soon as it is ready
// and waited for right before its use.
// CHECK-ZERO-LABEL: func.func @step
// CHECK-ZERO: %[[GB:.*]] = arith.mulf %arg3
// CHECK-ZERO-NEXT: %[[RB:.*]] = coll.pmean_start %[[GB]] {axis = "batch"} : tensor<3xf32>
// CHECK-ZERO-NEXT: %[[GW:.*]] = arith.mulf %arg2
// CHECK-ZERO-NEXT: %[[RW:.*]] = coll.pmean_start %[[GW]] {axis = "batch"} : tensor<4x3xf32>
// CHECK-ZERO-NEXT: arith.addf
// CHECK-ZERO-NEXT: %[[W:.*]] = coll.wait %[[RW]] : tensor<4x3xf32>
// CHECK-ZERO-NEXT: arith.subf %{{.*}}, %[[W]]
// CHECK-ZERO-NEXT: %[[B:.*]] = coll.wait %[[RB]] : tensor<3xf32>
// CHECK-ZERO-NEXT: arith.subf %arg1, %[[B]]

// 12 + 48 bytes fit into 64.
// CHECK-SMALL-LABEL: func.func @step
// CHECK-SMALL: coll.pmean_start %{{.*}}, %{{.*}} {axis = "batch"} : tensor<3xf32>, tensor<4x3xf32>

// overlap=false: fused, but started right before the wait.
// CHECK-NOOVERLAP-LABEL: func.func @step
// CHECK-NOOVERLAP: arith.mulf
// CHECK-NOOVERLAP-NEXT: arith.mulf
// CHECK-NOOVERLAP-NEXT: arith.addf
// CHECK-NOOVERLAP-NEXT: %[[R:.*]] = coll.pmean_start
// CHECK-NOOVERLAP-NEXT: coll.wait %[[R]]
// CHECK-NOOVERLAP-NEXT: arith.subf
func.func @step(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %gw0: tensor<4x3xf32>, %gb0: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %gb = arith.mulf %gb0, %gb0 : tensor<3xf32>
  %gw = arith.mulf %gw0, %gw0 : tensor<4x3xf32>
  %x = arith.addf %w, %w : tensor<4x3xf32>
  %rw = coll.pmean %gw {axis = "batch"} : tensor<4x3xf32>
  %rb = coll.pmean %gb {axis = "batch"} : tensor<3xf32>
  %w2 = arith.subf %x, %rw : tensor<4x3xf32>
  %b2 = arith.subf %b, %rb : tensor<3xf32>
  return %w2, %b2 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// Only reductions of one kind, groups and element type share a bucket; a
// bucket larger than bucket-bytes is not formed (with 64 bytes: 48 + 48 is too much).
// CHECK-LABEL: func.func @kinds
// CHECK-DAG: coll.psum_start %arg0, %arg1 {axis = "batch"} : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-DAG: coll.pmean_start %arg0 {axis = "batch"} : tensor<4x3xf32>
// CHECK-DAG: coll.psum_start %arg0 {axis = "batch", groups = dense<{{\[\[}}0], [1]]> : tensor<2x1xi64>} : tensor<4x3xf32>
// CHECK-DAG: coll.psum_start %arg2 {axis = "batch"} : tensor<2xf64>
// CHECK-SMALL-LABEL: func.func @kinds
// CHECK-SMALL-DAG: coll.psum_start %arg0 {axis = "batch"} : tensor<4x3xf32>
// CHECK-SMALL-DAG: coll.psum_start %arg1 {axis = "batch"} : tensor<4x3xf32>
func.func @kinds(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2xf64>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xf64>) {
  %0 = coll.psum %a {axis = "batch"} : tensor<4x3xf32>
  %1 = coll.pmean %a {axis = "batch"} : tensor<4x3xf32>
  %2 = coll.psum %a {axis = "batch", groups = dense<[[0], [1]]> : tensor<2x1xi64>} : tensor<4x3xf32>
  %3 = coll.psum %b {axis = "batch"} : tensor<4x3xf32>
  %4 = coll.psum %c {axis = "batch"} : tensor<2xf64>
  return %0, %1, %2, %3, %4 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xf64>
}

// -----

// A reduction whose tensor needs another's result cannot share its bucket:
// %b is computed from %s after it is used. A psum of a psum stays as it is.
// CHECK-LABEL: func.func @dependent
// CHECK: %[[R1:.*]] = coll.psum_start %arg0 {axis = "batch"} : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = coll.wait %[[R1]] : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = arith.mulf %[[S]], %[[S]]
// CHECK-NEXT: %[[R2:.*]] = coll.psum_start %[[B]] {axis = "batch"} : tensor<4xf32>
// CHECK-NEXT: %[[T:.*]] = coll.wait %[[R2]] : tensor<4xf32>
// CHECK-NEXT: %[[U:.*]] = coll.psum %[[T]] {axis = "batch"} : tensor<4xf32>
// CHECK-NEXT: return %[[U]]
func.func @dependent(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = coll.psum %a {axis = "batch"} : tensor<4xf32>
  %b = arith.mulf %s, %s : tensor<4xf32>
  %t = coll.psum %b {axis = "batch"} : tensor<4xf32>
  %u = coll.psum %t {axis = "batch"} : tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

// Reductions in a loop body are bucketed within the body.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: %[[R:.*]] = coll.psum_start %{{.*}}, %{{.*}} {axis = "batch"} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[W:.*]]:2 = coll.wait %[[R]]
// CHECK-NEXT: arith.addf %[[W]]#0, %[[W]]#1
func.func @loop(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a) -> tensor<4xf32> {
    %s = coll.psum %x {axis = "batch"} : tensor<4xf32>
    %t = coll.psum %a {axis = "batch"} : tensor<4xf32>
    %y = arith.addf %s, %t : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK-NEGATIVE: error: coll-bucket-reductions: bucket-bytes must not be negative, got -1
