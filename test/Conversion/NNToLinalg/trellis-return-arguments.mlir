// RUN: trellis-opt %s -split-input-file --trellis-return-arguments | FileCheck %s

// An entry returns its updated argument itself, twice if asked; a clone of
// anything else, one read elsewhere, or one of an argument written after it,
// stays.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[W:.*]]: memref<16x8xf32>, %[[V:.*]]: memref<4xf32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[W]]
// CHECK-NEXT: %[[C1:.*]] = bufferization.clone %[[VIEW]]
// CHECK-NEXT: %[[C2:.*]] = bufferization.clone %[[V]]
// CHECK-NEXT: memref.copy %[[C2]]
// CHECK-NEXT: return %[[W]], %[[W]], %[[C1]], %[[C2]]
func.func @entry(%w: memref<16x8xf32>, %v: memref<4xf32>)
    -> (memref<16x8xf32>, memref<16x8xf32>, memref<4x8xf32, strided<[8, 1]>>, memref<4xf32>) {
  %c0 = bufferization.clone %w : memref<16x8xf32> to memref<16x8xf32>
  %c1 = bufferization.clone %w : memref<16x8xf32> to memref<16x8xf32>
  %view = memref.subview %w[0, 0] [4, 8] [1, 1] : memref<16x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  %c2 = bufferization.clone %view : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[8, 1]>>
  %c3 = bufferization.clone %v : memref<4xf32> to memref<4xf32>
  memref.copy %c3, %v : memref<4xf32> to memref<4xf32>
  return %c0, %c1, %c2, %c3 : memref<16x8xf32>, memref<16x8xf32>, memref<4x8xf32, strided<[8, 1]>>, memref<4xf32>
}

// -----

// CHECK-LABEL: func.func @written_after
// CHECK: %[[C:.*]] = bufferization.clone %arg0
// CHECK: memref.store
// CHECK: return %[[C]]
func.func @written_after(%w: memref<8xf32>, %x: f32) -> memref<8xf32> {
  %c = bufferization.clone %w : memref<8xf32> to memref<8xf32>
  %i = arith.constant 0 : index
  memref.store %x, %w[%i] : memref<8xf32>
  return %c : memref<8xf32>
}

// -----

// A private function's caller owns its results, and so does the caller of
// a public function called in the module: their clones stay.
// CHECK-LABEL: func.func private @helper
// CHECK: bufferization.clone
// CHECK-LABEL: func.func @called
// CHECK: bufferization.clone
// CHECK-LABEL: func.func @caller
// CHECK: %[[R:.*]] = call @called
// CHECK: return %[[R]]
func.func private @helper(%w: memref<8xf32>) -> memref<8xf32> {
  %c = bufferization.clone %w : memref<8xf32> to memref<8xf32>
  return %c : memref<8xf32>
}
func.func @called(%w: memref<8xf32>) -> memref<8xf32> {
  %c = bufferization.clone %w : memref<8xf32> to memref<8xf32>
  return %c : memref<8xf32>
}
func.func @caller(%w: memref<8xf32>) -> memref<8xf32> {
  %r = call @called(%w) : (memref<8xf32>) -> memref<8xf32>
  return %r : memref<8xf32>
}
