// trellis-strided-copies-to-linalg: a memref.copy with a strided side (an
// image written into its zero-padded buffer, a gradient cropped out of one)
// becomes linalg.copy; a copy of two contiguous buffers stays a memref.copy
// (a memcpy), and so does one with a dynamic shape.
// RUN: trellis-opt %s --trellis-strided-copies-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @pad_and_crop
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<2x4x4x3xf32>) outs(%{{.*}} : memref<2x4x4x3xf32, strided<[108, 18, 3, 1], offset: 21>>)
// CHECK: linalg.copy ins(%{{.*}} : memref<2x4x4x3xf32, strided<[108, 18, 3, 1], offset: 21>>) outs(%{{.*}} : memref<2x4x4x3xf32>)
// CHECK-NOT: memref.copy
func.func @pad_and_crop(%x: memref<2x4x4x3xf32>, %padded: memref<2x6x6x3xf32>, %out: memref<2x4x4x3xf32>) {
  %sub = memref.subview %padded[0, 1, 1, 0] [2, 4, 4, 3] [1, 1, 1, 1]
      : memref<2x6x6x3xf32> to memref<2x4x4x3xf32, strided<[108, 18, 3, 1], offset: 21>>
  memref.copy %x, %sub : memref<2x4x4x3xf32> to memref<2x4x4x3xf32, strided<[108, 18, 3, 1], offset: 21>>
  memref.copy %sub, %out : memref<2x4x4x3xf32, strided<[108, 18, 3, 1], offset: 21>> to memref<2x4x4x3xf32>
  return
}

// CHECK-LABEL: func.func @contiguous_and_dynamic
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8x16xf32> to memref<8x16xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<?xf32, strided<[2]>> to memref<?xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous_and_dynamic(%a: memref<8x16xf32>, %b: memref<8x16xf32>,
                                  %c: memref<?xf32, strided<[2]>>, %d: memref<?xf32>) {
  memref.copy %a, %b : memref<8x16xf32> to memref<8x16xf32>
  memref.copy %c, %d : memref<?xf32, strided<[2]>> to memref<?xf32>
  return
}
