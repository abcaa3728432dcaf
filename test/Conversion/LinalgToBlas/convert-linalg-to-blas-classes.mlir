// Each f32 GEMM goes to the library of its size class (GemmClass,
// LinalgToBlas.h): here small, large and short to cblas, medium and thin to
// dnnl, then the reverse. A thin GEMM is a large one with K <= 128 (a
// weight gradient over a short batch; K = 129 is large again), a short one
// a large one with M <= 128 that is not thin (a layer over a short batch;
// M = 129 is large), a narrow one a large one with N <= 32, neither thin
// nor short (a convolution's im2col GEMM with 16 filters; N = 33 is large).
// RUN: trellis-opt %s --convert-linalg-to-blas="sgemm-small=cblas sgemm-medium=dnnl sgemm-large=cblas sgemm-thin=dnnl sgemm-short=cblas sgemm-narrow=dnnl" | FileCheck %s --check-prefix=CHECK-A
// RUN: trellis-opt %s --convert-linalg-to-blas="sgemm-small=dnnl sgemm-medium=cblas sgemm-large=dnnl sgemm-thin=cblas sgemm-short=dnnl sgemm-narrow=cblas" | FileCheck %s --check-prefix=CHECK-B

// CHECK-A-LABEL: func.func @classes
// CHECK-A: call @cblas_sgemm({{.*}}, %c8_i32{{[_0-9]*}}, %c8_i32{{[_0-9]*}}, %c8_i32{{[_0-9]*}},
// CHECK-A: call @dnnl_sgemm({{.*}}, %c64_i64{{[_0-9]*}}, %c64_i64{{[_0-9]*}}, %c64_i64{{[_0-9]*}},
// CHECK-A: call @cblas_sgemm({{.*}}, %c256_i32{{[_0-9]*}}, %c256_i32{{[_0-9]*}}, %c256_i32{{[_0-9]*}},
// CHECK-A: call @dnnl_sgemm({{.*}}, %c1024_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}}, %c64_i64{{[_0-9]*}},
// CHECK-A: call @cblas_sgemm({{.*}}, %c1024_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}}, %c129_i32{{[_0-9]*}},
// CHECK-A: call @cblas_sgemm({{.*}}, %c64_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}},
// CHECK-A: call @cblas_sgemm({{.*}}, %c129_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}},
// CHECK-A: call @dnnl_sgemm({{.*}}, %c19600_i64{{[_0-9]*}}, %c16_i64{{[_0-9]*}}, %c144_i64{{[_0-9]*}},
// CHECK-A: call @cblas_sgemm({{.*}}, %c19600_i32{{[_0-9]*}}, %c33_i32{{[_0-9]*}}, %c144_i32{{[_0-9]*}},
// CHECK-B-LABEL: func.func @classes
// CHECK-B: call @dnnl_sgemm({{.*}}, %c8_i64{{[_0-9]*}}, %c8_i64{{[_0-9]*}}, %c8_i64{{[_0-9]*}},
// CHECK-B: call @cblas_sgemm({{.*}}, %c64_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}},
// CHECK-B: call @dnnl_sgemm({{.*}}, %c256_i64{{[_0-9]*}}, %c256_i64{{[_0-9]*}}, %c256_i64{{[_0-9]*}},
// CHECK-B: call @cblas_sgemm({{.*}}, %c1024_i32{{[_0-9]*}}, %c1024_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}},
// CHECK-B: call @dnnl_sgemm({{.*}}, %c1024_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}}, %c129_i64{{[_0-9]*}},
// CHECK-B: call @dnnl_sgemm({{.*}}, %c64_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}},
// CHECK-B: call @dnnl_sgemm({{.*}}, %c129_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}}, %c1024_i64{{[_0-9]*}},
// CHECK-B: call @cblas_sgemm({{.*}}, %c19600_i32{{[_0-9]*}}, %c16_i32{{[_0-9]*}}, %c144_i32{{[_0-9]*}},
// CHECK-B: call @dnnl_sgemm({{.*}}, %c19600_i64{{[_0-9]*}}, %c33_i64{{[_0-9]*}}, %c144_i64{{[_0-9]*}},
func.func @classes(%a8: memref<8x8xf32>, %c8: memref<8x8xf32>,
                   %a64: memref<64x64xf32>, %c64: memref<64x64xf32>,
                   %a256: memref<256x256xf32>, %c256: memref<256x256xf32>,
                   %x: memref<1024x64xf32>, %y: memref<64x1024xf32>,
                   %x129: memref<1024x129xf32>, %y129: memref<129x1024xf32>,
                   %out: memref<1024x1024xf32>, %r64: memref<64x1024xf32>,
                   %o64: memref<64x1024xf32>, %r129: memref<129x1024xf32>,
                   %o129: memref<129x1024xf32>, %w: memref<1024x1024xf32>,
                   %cols: memref<19600x144xf32>, %w16: memref<144x16xf32>,
                   %y16: memref<19600x16xf32>, %w33: memref<144x33xf32>,
                   %y33: memref<19600x33xf32>) {
  linalg.matmul ins(%a8, %a8 : memref<8x8xf32>, memref<8x8xf32>) outs(%c8 : memref<8x8xf32>)
  linalg.matmul ins(%a64, %a64 : memref<64x64xf32>, memref<64x64xf32>) outs(%c64 : memref<64x64xf32>)
  linalg.matmul ins(%a256, %a256 : memref<256x256xf32>, memref<256x256xf32>) outs(%c256 : memref<256x256xf32>)
  linalg.matmul ins(%x, %y : memref<1024x64xf32>, memref<64x1024xf32>) outs(%out : memref<1024x1024xf32>)
  linalg.matmul ins(%x129, %y129 : memref<1024x129xf32>, memref<129x1024xf32>) outs(%out : memref<1024x1024xf32>)
  linalg.matmul ins(%r64, %w : memref<64x1024xf32>, memref<1024x1024xf32>) outs(%o64 : memref<64x1024xf32>)
  linalg.matmul ins(%r129, %w : memref<129x1024xf32>, memref<1024x1024xf32>) outs(%o129 : memref<129x1024xf32>)
  linalg.matmul ins(%cols, %w16 : memref<19600x144xf32>, memref<144x16xf32>) outs(%y16 : memref<19600x16xf32>)
  linalg.matmul ins(%cols, %w33 : memref<19600x144xf32>, memref<144x33xf32>) outs(%y33 : memref<19600x33xf32>)
  return
}
