// GEMM-shaped contractions through convert-linalg-to-blas, run with
// trellis-run and compared with float64 NumPy products (rtol 1e-5 in f32,
// 1e-12 in f64; with --dtype=f64 every f32 of the file becomes f64): plain and
// accumulating matmuls, transposed A / B (linalg.transpose folded into the
// call), a column-major result, sliced operands (static and loop-dependent
// offsets, a row step), batch_matmul, an attention-style 4-d contraction
// with two batch dims, and a slice with a column step that no BLAS can read
// (left on the loop path). The LLVM check proves each GEMM became a call.
// REQUIRES: numpy
// RUN: %python %S/gemm.py %s %t | FileCheck %s
// RUN: %python %S/gemm.py %s %t --dtype=f64 | FileCheck %s
// RUN: trellis-opt %s --trellis-lower-to-llvm | FileCheck %s --check-prefix=CHECK-LLVM
// RUN: sed s/f32/f64/g %s | trellis-opt --trellis-lower-to-llvm | FileCheck %s --check-prefix=CHECK-LLVM

// CHECK: PASS mm:
// CHECK: PASS mm_acc:
// CHECK: PASS mm_ta:
// CHECK: PASS mm_tb:
// CHECK: PASS mm_tab:
// CHECK: PASS mm_ct:
// CHECK: PASS mm_slices:
// CHECK: PASS mm_loop_slices:
// CHECK: PASS mm_big:
// CHECK: PASS bmm:
// CHECK: PASS heads:
// CHECK: PASS mm_col_step:
// CHECK: ALL CHECKS PASSED

// CHECK-LLVM-LABEL: llvm.func @mm(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_acc(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_ta(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_tb(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_tab(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_ct(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_slices(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_loop_slices(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_big(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @bmm(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @heads(
// CHECK-LLVM: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM-LABEL: llvm.func @mm_col_step(
// CHECK-LLVM-NOT: llvm.call @{{cblas_dgemm|dnnl_sgemm}}
// CHECK-LLVM: llvm.return

// C = A·B (a zero fill: beta = 0).
func.func @mm(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// C + A·B (beta = 1).
func.func @mm_acc(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// C + Aᵀ·B, A given as K×M and transposed by linalg.transpose.
func.func @mm_ta(%at: tensor<7x5xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %a = linalg.transpose ins(%at : tensor<7x5xf32>) outs(%e : tensor<5x7xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// C + A·Bᵀ.
func.func @mm_tb(%a: tensor<5x7xf32>, %bt: tensor<3x7xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<7x3xf32>
  %b = linalg.transpose ins(%bt : tensor<3x7xf32>) outs(%e : tensor<7x3xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// Aᵀ·Bᵀ through the matmul's own indexing_maps, zero init.
func.func @mm_tab(%at: tensor<7x5xf32>, %bt: tensor<3x7xf32>) -> tensor<5x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
                     ins(%at, %bt : tensor<7x5xf32>, tensor<3x7xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// Cᵀ + (A·B)ᵀ: the result is stored N×M (a column-major call).
func.func @mm_ct(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>, %ct: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>) outs(%ct : tensor<3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// Operands sliced out of larger tensors (static offsets, a row step of 2 for
// B, a slice of C): leading dimensions larger than the rows.
func.func @mm_slices(%big_a: tensor<8x12xf32>, %big_b: tensor<20x9xf32>, %big_c: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %a = tensor.extract_slice %big_a[1, 2] [5, 7] [1, 1] : tensor<8x12xf32> to tensor<5x7xf32>
  %b = tensor.extract_slice %big_b[3, 4] [7, 3] [2, 1] : tensor<20x9xf32> to tensor<7x3xf32>
  %c = tensor.extract_slice %big_c[1, 5] [5, 3] [1, 1] : tensor<6x10xf32> to tensor<5x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  %u = tensor.insert_slice %r into %big_c[1, 5] [5, 3] [1, 1] : tensor<5x3xf32> into tensor<6x10xf32>
  return %u : tensor<6x10xf32>
}

// Row blocks of A in a loop: the slices' offsets are only known at run time.
func.func @mm_loop_slices(%a: tensor<12x7xf32>, %b: tensor<7x3xf32>) -> tensor<12x3xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x3xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<12x3xf32>) -> tensor<12x3xf32>
  %r = scf.for %i = %c0 to %c12 step %c4 iter_args(%acc = %init) -> (tensor<12x3xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [4, 7] [1, 1] : tensor<12x7xf32> to tensor<4x7xf32>
    %ci = tensor.extract_slice %acc[%i, 0] [4, 3] [1, 1] : tensor<12x3xf32> to tensor<4x3xf32>
    %p = linalg.matmul ins(%ai, %b : tensor<4x7xf32>, tensor<7x3xf32>)
                       outs(%ci : tensor<4x3xf32>) -> tensor<4x3xf32>
    %next = tensor.insert_slice %p into %acc[%i, 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<12x3xf32>
    scf.yield %next : tensor<12x3xf32>
  }
  return %r : tensor<12x3xf32>
}

// Large enough for the BLAS's blocked kernels and remainders.
func.func @mm_big(%a: tensor<67x300xf32>, %b: tensor<300x129xf32>, %c: tensor<67x129xf32>) -> tensor<67x129xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<67x300xf32>, tensor<300x129xf32>)
                     outs(%c : tensor<67x129xf32>) -> tensor<67x129xf32>
  return %r : tensor<67x129xf32>
}

// C[b] + A[b]·B[b].
func.func @bmm(%a: tensor<3x4x5xf32>, %b: tensor<3x5x6xf32>, %c: tensor<3x4x6xf32>) -> tensor<3x4x6xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x4x5xf32>, tensor<3x5x6xf32>)
                           outs(%c : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  return %r : tensor<3x4x6xf32>
}

// Attention's scores: s[b, h, i, j] = Σ_d q[b, i, h, d]·k[b, j, h, d], the
// heads interleaved in the feature dim (two batch dims, B read transposed).
func.func @heads(%q: tensor<2x8x4x16xf32>, %k: tensor<2x12x4x16xf32>) -> tensor<2x4x8x12xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x8x12xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x8x12xf32>) -> tensor<2x4x8x12xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, j, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x8x4x16xf32>, tensor<2x12x4x16xf32>) outs(%s0 : tensor<2x4x8x12xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %p, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x4x8x12xf32>
  return %s : tensor<2x4x8x12xf32>
}

// A slice with a column step: no unit stride, no BLAS; the loops compute it.
func.func @mm_col_step(%big_a: tensor<5x14xf32>, %b: tensor<7x3xf32>, %c: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %a = tensor.extract_slice %big_a[0, 0] [5, 7] [1, 2] : tensor<5x14xf32> to tensor<5x7xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
