// RUN: trellis-opt %s -split-input-file --convert-linalg-to-blas="sgemm=dnnl parallel-batches=true" -cse | FileCheck %s
// RUN: trellis-opt %s -split-input-file --convert-linalg-to-blas="sgemm=dnnl" -cse | FileCheck %s --check-prefix=SERIAL
// RUN: trellis-opt %s -split-input-file --convert-linalg-to-blas="sgemm=cblas parallel-batches=true" -cse | FileCheck %s --check-prefix=CBLAS

// parallel-batches: the batch of small/medium oneDNN GEMMs (attention's
// per-head products) is one scf.parallel over both batch dims, each entry's
// operands advanced by its own batch strides; without the option, nested
// scf.for; with CBLAS (OpenBLAS's own thread pool), always scf.for.
// CHECK-LABEL: func.func @heads
// CHECK-DAG: %[[B:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[H:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[B]], %[[H]])
// CHECK-DAG: arith.muli %[[I]]
// CHECK-DAG: arith.muli %[[J]]
// CHECK: func.call @dnnl_sgemm
// CHECK-NOT: scf.for
// SERIAL-LABEL: func.func @heads
// SERIAL: scf.for
// SERIAL: scf.for
// SERIAL: func.call @dnnl_sgemm
// SERIAL-NOT: scf.parallel
// CBLAS-LABEL: func.func @heads
// CBLAS-NOT: scf.parallel
// CBLAS: func.call @cblas_sgemm
func.func @heads(%q: memref<2x4x16x8xf32>, %k: memref<2x4x8x16xf32>, %s: memref<2x4x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, i, j, e) -> (b, h, i, e)>,
                                   affine_map<(b, h, i, j, e) -> (b, h, e, j)>,
                                   affine_map<(b, h, i, j, e) -> (b, h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x4x16x8xf32>, memref<2x4x8x16xf32>) outs(%s : memref<2x4x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %a = arith.addf %acc, %p : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A large GEMM (M·N·K = 256³) keeps the library's own threads: serial batch.
// CHECK-LABEL: func.func @large
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: func.call @dnnl_sgemm
func.func @large(%a: memref<2x256x256xf32>, %b: memref<2x256x256xf32>, %c: memref<2x256x256xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x256x256xf32>, memref<2x256x256xf32>) outs(%c : memref<2x256x256xf32>)
  return
}

// -----

// One entry: the serial loop, nothing to share.
// CHECK-LABEL: func.func @single
// CHECK-NOT: scf.parallel
// CHECK: func.call @dnnl_sgemm
func.func @single(%a: memref<1x8x8xf32>, %b: memref<1x8x8xf32>, %c: memref<1x8x8xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<1x8x8xf32>, memref<1x8x8xf32>) outs(%c : memref<1x8x8xf32>)
  return
}
