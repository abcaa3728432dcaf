// RUN: trellis-opt %s -split-input-file --convert-linalg-to-blas -cse | FileCheck %s
// RUN: trellis-opt %s -split-input-file --convert-linalg-to-blas=sgemm=dnnl -cse | FileCheck %s --check-prefix=DNNL
// RUN: not trellis-opt %s -split-input-file --convert-linalg-to-blas=sgemm=mkl 2>&1 | FileCheck %s --check-prefix=BADLIB

// BADLIB: for the --sgemm option: Cannot find option named 'mkl'!

// A zero fill directly before the matmul is absorbed: beta = 0, row-major,
// no transposes, leading dims = row lengths; pointers are the aligned base
// plus the offset in bytes.
// CHECK-LABEL: func.func @matmul_fill
// CHECK-SAME: (%[[A:.*]]: memref<64x784xf32>, %[[B:.*]]: memref<784x1024xf32>, %[[C:.*]]: memref<64x1024xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[BA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[F4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 1024 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 784 : i32
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %[[F4]] : index
// CHECK: %[[ADDR:.*]] = arith.addi %[[BA]], %[[BYTES]] : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: %[[PA:.*]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK: %[[PB:.*]] = llvm.inttoptr
// CHECK: %[[PC:.*]] = llvm.inttoptr
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]], %[[M]], %[[N]], %[[K]], %[[ONE]], %[[PA]], %[[K]], %[[PB]], %[[N]], %[[ZERO]], %[[PC]], %[[N]])
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// With sgemm=dnnl: dnnl_sgemm('N', 'N', M, N, K, 1, A, lda, B, ldb, 0, C, ldc)
// with 64-bit dims.
// DNNL-LABEL: func.func @matmul_fill
// DNNL-DAG: %[[N:.*]] = arith.constant 78 : i8
// DNNL-DAG: %[[M:.*]] = arith.constant 64 : i64
// DNNL-DAG: %[[NN:.*]] = arith.constant 1024 : i64
// DNNL-DAG: %[[K:.*]] = arith.constant 784 : i64
// DNNL-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// DNNL-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// DNNL: %[[PA:.*]] = llvm.inttoptr
// DNNL: %[[PB:.*]] = llvm.inttoptr
// DNNL: %[[PC:.*]] = llvm.inttoptr
// DNNL: call @dnnl_sgemm(%[[N]], %[[N]], %[[M]], %[[NN]], %[[K]], %[[ONE]], %[[PA]], %[[K]], %[[PB]], %[[NN]], %[[ZERO]], %[[PC]], %[[NN]]) : (i8, i8, i64, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64) -> i32
// DNNL: func.func private @dnnl_sgemm(i8, i8, i64, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64) -> i32
func.func @matmul_fill(%a: memref<64x784xf32>, %b: memref<784x1024xf32>, %c: memref<64x1024xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x1024xf32>)
  linalg.matmul ins(%a, %b : memref<64x784xf32>, memref<784x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// The init holds a broadcast bias: linalg accumulates into it, beta = 1.
// CHECK-LABEL: func.func @matmul_bias
// CHECK: linalg.generic
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}})
func.func @matmul_bias(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %bias: memref<4xf32>, %c: memref<2x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<4xf32>) outs(%c : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// f64 batch_matmul: a loop over the batch, each operand advanced by its
// batch stride (20, 30 and 24 elements of 8 bytes), cblas_dgemm, beta = 1.
// CHECK-LABEL: func.func @batch_matmul_f64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG: %[[F8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[M:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[NB:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[NB]] step
// CHECK: %[[SA:.*]] = arith.constant 20 : index
// CHECK: arith.muli %[[I]], %[[SA]] : index
// CHECK: arith.constant 30 : index
// CHECK: arith.constant 24 : index
// CHECK: func.call @cblas_dgemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[N]], %[[K]], %[[ONE]], %{{.*}}, %[[K]], %{{.*}}, %[[N]], %[[ONE]], %{{.*}}, %[[N]])
// CHECK: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
// DNNL-LABEL: func.func @batch_matmul_f64
// DNNL: func.call @cblas_dgemm
func.func @batch_matmul_f64(%a: memref<3x4x5xf64>, %b: memref<3x5x6xf64>, %c: memref<3x4x6xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<3x4x5xf64>, memref<3x5x6xf64>) outs(%c : memref<3x4x6xf64>)
  return
}

// -----

// A stored K×M and B stored N×K (the maps of a generic that reads them
// transposed): Trans, Trans, lda = M, ldb = K. Operands of the multiply in
// either order.
// CHECK-LABEL: func.func @generic_transposed_inputs
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 7 : i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[T]], %[[T]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[M]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[N]])
// CHECK-NOT: linalg.generic
func.func @generic_transposed_inputs(%at: memref<7x5xf32>, %bt: memref<3x7xf32>, %c: memref<5x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                   affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %bt : memref<7x5xf32>, memref<3x7xf32>) outs(%c : memref<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The result stored N×M: a column-major call (ldc = M); A and B, row-major,
// are then read transposed (lda = K, ldb = N).
// CHECK-LABEL: func.func @column_major_result
// CHECK-DAG: %[[COL:.*]] = arith.constant 102 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 7 : i32
// CHECK: call @cblas_sgemm(%[[COL]], %[[T]], %[[T]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %[[M]])
// dnnl_sgemm is row-major only: the call computes the row-major Cᵀ (N×M,
// ldc = M) = Bᵀ·Aᵀ, B first: B's 7×3 storage with 'T' (ld 3) is Bᵀ, A's
// 5×7 storage with 'T' (ld 7) is Aᵀ.
// DNNL-LABEL: func.func @column_major_result
// DNNL-SAME: (%[[A:.*]]: memref<5x7xf32>, %[[B:.*]]: memref<7x3xf32>, %[[C:.*]]: memref<3x5xf32>)
// DNNL-DAG: %[[T:.*]] = arith.constant 84 : i8
// DNNL-DAG: %[[M:.*]] = arith.constant 5 : i64
// DNNL-DAG: %[[N:.*]] = arith.constant 3 : i64
// DNNL-DAG: %[[K:.*]] = arith.constant 7 : i64
// DNNL-DAG: %[[BA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// DNNL-DAG: %[[BB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// DNNL: %[[AADDR:.*]] = arith.addi %[[BA]]
// DNNL: %[[AI:.*]] = arith.index_cast %[[AADDR]]
// DNNL: %[[PA:.*]] = llvm.inttoptr %[[AI]]
// DNNL: %[[BADDR:.*]] = arith.addi %[[BB]]
// DNNL: %[[BI:.*]] = arith.index_cast %[[BADDR]]
// DNNL: %[[PB:.*]] = llvm.inttoptr %[[BI]]
// DNNL: %[[PC:.*]] = llvm.inttoptr
// DNNL: call @dnnl_sgemm(%[[T]], %[[T]], %[[N]], %[[M]], %[[K]], %{{.*}}, %[[PB]], %[[N]], %[[PA]], %[[K]], %{{.*}}, %[[PC]], %[[M]])
func.func @column_major_result(%a: memref<5x7xf32>, %b: memref<7x3xf32>, %ct: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (n, m)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<5x7xf32>, memref<7x3xf32>) outs(%ct : memref<3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Views with dynamic offsets and padded rows: the leading dims are the row
// strides (12, 1024), the offsets come from the descriptors.
// CHECK-LABEL: func.func @strided_views
// CHECK-SAME: (%[[A:.*]]: memref<4x7xf32, strided<[12, 1], offset: ?>>
// CHECK-DAG: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[LDA:.*]] = arith.constant 12 : i32
// CHECK-DAG: %[[LDB:.*]] = arith.constant 1024 : i32
// CHECK-DAG: %[[LDC:.*]] = arith.constant 3 : i32
// CHECK: arith.muli %[[OFF]]
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDC]], %{{.*}}, %{{.*}}, %{{.*}}, %[[LDA]], %{{.*}}, %[[LDB]], %{{.*}}, %{{.*}}, %[[LDC]])
func.func @strided_views(%a: memref<4x7xf32, strided<[12, 1], offset: ?>>,
                         %b: memref<7x3xf32, strided<[1024, 1], offset: 5>>,
                         %c: memref<4x3xf32>) {
  linalg.matmul ins(%a, %b : memref<4x7xf32, strided<[12, 1], offset: ?>>, memref<7x3xf32, strided<[1024, 1], offset: 5>>)
                outs(%c : memref<4x3xf32>)
  return
}

// -----

// Attention's scores with the heads interleaved in the features: two batch
// loops (b, h); per head, Q (i, d) has row stride 64 and K (j, d), read
// transposed, row stride 64.
// CHECK-LABEL: func.func @two_batch_dims
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[LD:.*]] = arith.constant 64 : i32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: func.call @cblas_sgemm(%{{.*}}, %[[NT]], %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LD]], %{{.*}}, %[[LD]],
func.func @two_batch_dims(%q: memref<2x8x4x16xf32>, %k: memref<2x12x4x16xf32>, %s: memref<2x4x8x12xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>,
                                   affine_map<(b, h, i, j, d) -> (b, j, h, d)>,
                                   affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x8x4x16xf32>, memref<2x12x4x16xf32>) outs(%s : memref<2x4x8x12xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %p, %acc : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Not for a BLAS (left to the loops): no unit stride in A; a body that is
// not out ± a·b (times a factor from above); integers; f16; a dynamic size;
// a matrix-vector product.
// CHECK-LABEL: func.func @not_gemms
// CHECK-NOT: call @cblas
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<5x7xf32, strided<[28, 2]>>
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<2x3xi32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<2x3xf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<?x3xf32>
// CHECK: linalg.matvec
// CHECK-NOT: call @cblas
func.func @not_gemms(%a: memref<5x7xf32, strided<[28, 2]>>, %b: memref<7x3xf32>, %c: memref<5x3xf32>,
                     %ai: memref<2x3xi32>, %bi: memref<3x4xi32>, %ci: memref<2x4xi32>,
                     %ah: memref<2x3xf16>, %bh: memref<3x4xf16>, %ch: memref<2x4xf16>,
                     %ad: memref<?x3xf32>, %bd: memref<3x4xf32>, %cd: memref<?x4xf32>,
                     %v: memref<7xf32>, %w: memref<5xf32>) {
  linalg.matmul ins(%a, %b : memref<5x7xf32, strided<[28, 2]>>, memref<7x3xf32>) outs(%c : memref<5x3xf32>)
  %a2 = memref.alloc() : memref<5x7xf32>
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a2, %b : memref<5x7xf32>, memref<7x3xf32>) outs(%c : memref<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.divf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%ai, %bi : memref<2x3xi32>, memref<3x4xi32>) outs(%ci : memref<2x4xi32>)
  linalg.matmul ins(%ah, %bh : memref<2x3xf16>, memref<3x4xf16>) outs(%ch : memref<2x4xf16>)
  linalg.matmul ins(%ad, %bd : memref<?x3xf32>, memref<3x4xf32>) outs(%cd : memref<?x4xf32>)
  linalg.matvec ins(%a2, %v : memref<5x7xf32>, memref<7xf32>) outs(%w : memref<5xf32>)
  memref.dealloc %a2 : memref<5x7xf32>
  return
}

// -----

// A fill the call cannot absorb stays, and the call accumulates (beta is
// alpha, 1): a nonzero fill; a zero fill followed by a store into the init;
// a zero fill of another buffer.
// CHECK-LABEL: func.func @fills_kept
// CHECK: linalg.fill
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA:[a-z0-9_]+]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}})
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}})
// CHECK: linalg.fill
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}})
func.func @fills_kept(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>, %d: memref<2x4xf32>) {
  %two = arith.constant 2.0 : f32
  %z = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%two : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.fill ins(%z : f32) outs(%c : memref<2x4xf32>)
  memref.store %two, %c[%i, %i] : memref<2x4xf32>
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.fill ins(%z : f32) outs(%d : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// An update folded into its GEMM (trellis-fuse-gemm-updates): `out - (a * b)
// * lr` is alpha = -lr, beta = 1 (C accumulates); `out - a * b` alpha = -1.
// CHECK-LABEL: func.func @scaled
// CHECK-SAME: (%{{.*}}: memref<4x16xf32>, %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<16x8xf32>, %[[LR:.*]]: f32)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[ALPHA:.*]] = arith.negf %[[LR]] : f32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[T]], %[[NT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]],
// CHECK: %[[MINUS:.*]] = arith.negf %[[ONE]] : f32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[T]], %[[NT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[MINUS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]],
// CHECK-NOT: linalg.generic
// DNNL-LABEL: func.func @scaled
// DNNL: %[[ALPHA:.*]] = arith.negf %arg3 : f32
// DNNL: call @dnnl_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]],
#xt = affine_map<(m, n, k) -> (k, m)>
#dy = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @scaled(%x: memref<4x16xf32>, %dy: memref<4x8xf32>, %w: memref<16x8xf32>, %lr: f32) {
  linalg.generic {indexing_maps = [#xt, #dy, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : memref<4x16xf32>, memref<4x8xf32>) outs(%w : memref<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %lr : f32
    %r = arith.subf %o, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#xt, #dy, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : memref<4x16xf32>, memref<4x8xf32>) outs(%w : memref<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.subf %o, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A factor computed in the body is not a GEMM's alpha: the loops keep it.
// CHECK-LABEL: func.func @scaled_in_body
// CHECK-NOT: call @cblas_sgemm
// CHECK: linalg.generic
#xt = affine_map<(m, n, k) -> (k, m)>
#dy = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @scaled_in_body(%x: memref<4x16xf32>, %dy: memref<4x8xf32>, %w: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [#xt, #dy, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : memref<4x16xf32>, memref<4x8xf32>) outs(%w : memref<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %a : f32
    %r = arith.subf %o, %s : f32
    linalg.yield %r : f32
  }
  return
}
