// The f32 GEMM library of each size class, chosen by measurement on the
// host (lib/Runtime/GemmChoice.cpp, docs/performance.md "Library choice").
// The first compile measures oneDNN's and OpenBLAS's sgemm and keeps the
// rates and the choice in $XDG_CACHE_HOME/trellis/gemm-choice-<host>.json;
// later compiles use the kept choice: edited to small/medium/large/thin/
// short/narrow = cblas/dnnl/cblas/dnnl/cblas/dnnl, the 8³ and 256³ products call cblas_sgemm and the 64³
// one dnnl_sgemm. The file also holds the form of short A·Bᵀ products
// (transpose_short, measured on kOrientationGemms; its effect:
// test/Integration/JIT/blas/short-gemms.mlir). Beside it, the table of
// shapes (gemm-shapes-<host>.json) keeps the rates of each GEMM shape beyond
// the medium class that a module called: the measured GEMMs', and the
// 256³ product's, measured when this module first had it. A shape leaves
// its class's library for the other one if that ran it 10 % faster: with
// the table edited to say oneDNN runs 256³ ten times faster, the large
// class's cblas no longer takes it. --sgemm=dnnl and --sgemm=cblas fix the
// library and measure nothing. A damaged file is measured anew, and starts
// a table of its own; two processes that
// start at once leave one file; a library's kernel variable set keeps a
// choice of its own, and so does each thread count. Every run's results
// match NumPy.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/gemm_choice.py inputs %t
// RUN: env XDG_CACHE_HOME=%t/xdg trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/first
// RUN: %python %S/gemm_choice.py check %t %t/first
// RUN: cat %t/xdg/trellis/gemm-choice-*.json | FileCheck %s --check-prefix=CHECK-FILE
// CHECK-FILE: "format": 9,
// CHECK-FILE: "variables": {
// CHECK-FILE: "threads": {
// CHECK-FILE-NEXT: "openmp": {{[0-9]+}},
// CHECK-FILE-NEXT: "openblas": {{[0-9]+}}
// CHECK-FILE: "gflops": {
// CHECK-FILE: "dnnl": {
// CHECK-FILE-NEXT: "small": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "medium": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "large": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "thin": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "short": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "narrow": {{[0-9.e+]+}}
// CHECK-FILE: "cblas": {
// CHECK-FILE-NEXT: "small": {{[0-9.e+]+}},
// CHECK-FILE: "orientation_gflops": {
// CHECK-FILE-NEXT: "direct": {
// CHECK-FILE-NEXT: "dnnl": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "cblas": {{[0-9.e+]+}}
// CHECK-FILE: "transposed": {
// CHECK-FILE-NEXT: "dnnl": {{[0-9.e+]+}},
// CHECK-FILE-NEXT: "cblas": {{[0-9.e+]+}}
// CHECK-FILE: "sick": [
// CHECK-FILE: "choice": {
// CHECK-FILE-NEXT: "small": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "medium": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "large": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "thin": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "short": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "narrow": "{{dnnl|cblas}}",
// CHECK-FILE-NEXT: "transpose_short": {{true|false}}
// RUN: cat %t/xdg/trellis/gemm-shapes-*.json | FileCheck %s --check-prefix=CHECK-SHAPES
// CHECK-SHAPES: "format": 9,
// CHECK-SHAPES-NEXT: "id": "{{[0-9a-f]+}}",
// CHECK-SHAPES-NEXT: "gflops": {
// CHECK-SHAPES-NOT: "8x8x8:nn"
// CHECK-SHAPES-NOT: "64x64x64:nn"
// CHECK-SHAPES: "2048x1024x256:nn": {
// CHECK-SHAPES-NEXT: "dnnl": {{[0-9.e+]+}},
// CHECK-SHAPES-NEXT: "cblas": {{[0-9.e+]+}}
// CHECK-SHAPES: "256x1024x2048:tn": {
// CHECK-SHAPES: "256x256x256:nn": {
// CHECK-SHAPES-NEXT: "dnnl": {{[0-9.e+]+}},
// CHECK-SHAPES-NEXT: "cblas": {{[0-9.e+]+}}
// CHECK-SHAPES-NOT: "8x8x8:nn"
// CHECK-SHAPES-NOT: "64x64x64:nn"
//
// With 256³ as fast in both libraries, its class's library runs it.
// RUN: %python %S/gemm_choice.py edit %t/xdg/trellis cblas dnnl cblas dnnl cblas dnnl
// RUN: %python %S/gemm_choice.py edit-shape %t/xdg/trellis 256x256x256:nn 100 100
// RUN: env XDG_CACHE_HOME=%t/xdg trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/kept --dump-llvm-ir=%t/kept.ll
// RUN: FileCheck %s --check-prefix=CHECK-KEPT < %t/kept.ll
// CHECK-KEPT-DAG: call void @cblas_sgemm(i32 101, i32 111, i32 111, i32 8, i32 8, i32 8,
// CHECK-KEPT-DAG: call {{.*}}@dnnl_sgemm(i8 78, i8 78, i64 64, i64 64, i64 64,
// CHECK-KEPT-DAG: call void @cblas_sgemm(i32 101, i32 111, i32 111, i32 256, i32 256, i32 256,
// RUN: %python %S/gemm_choice.py check %t %t/kept
// RUN: %python %S/gemm_choice.py edit-shape %t/xdg/trellis 256x256x256:nn 1000 100
// RUN: env XDG_CACHE_HOME=%t/xdg trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/shape --dump-llvm-ir=%t/shape.ll
// RUN: FileCheck %s --check-prefix=CHECK-SHAPE < %t/shape.ll
// CHECK-SHAPE-DAG: call void @cblas_sgemm(i32 101, i32 111, i32 111, i32 8, i32 8, i32 8,
// CHECK-SHAPE-DAG: call {{.*}}@dnnl_sgemm(i8 78, i8 78, i64 64, i64 64, i64 64,
// CHECK-SHAPE-DAG: call {{.*}}@dnnl_sgemm(i8 78, i8 78, i64 256, i64 256, i64 256,
// RUN: %python %S/gemm_choice.py check %t %t/shape
// RUN: %python %S/gemm_choice.py id %t/xdg/trellis > %t/id-before
//
// RUN: env XDG_CACHE_HOME=%t/fixed trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/dnnl --sgemm=dnnl --dump-llvm-ir=%t/dnnl.ll
// RUN: FileCheck %s --check-prefix=CHECK-DNNL < %t/dnnl.ll
// CHECK-DNNL-NOT: cblas_sgemm
// CHECK-DNNL-COUNT-3: call {{.*}}@dnnl_sgemm(
// CHECK-DNNL-NOT: cblas_sgemm
// RUN: env XDG_CACHE_HOME=%t/fixed trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/cblas --sgemm=cblas --dump-llvm-ir=%t/cblas.ll
// RUN: FileCheck %s --check-prefix=CHECK-CBLAS < %t/cblas.ll
// CHECK-CBLAS-NOT: dnnl_sgemm
// CHECK-CBLAS-COUNT-3: call void @cblas_sgemm(
// CHECK-CBLAS-NOT: dnnl_sgemm
// RUN: not ls %t/fixed/trellis
// RUN: %python %S/gemm_choice.py check %t %t/dnnl %t/cblas
//
// RUN: %python %S/gemm_choice.py damage %t/xdg/trellis
// RUN: env XDG_CACHE_HOME=%t/xdg trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/damaged
// RUN: cat %t/xdg/trellis/gemm-choice-*.json | FileCheck %s --check-prefix=CHECK-FILE
// RUN: %python %S/gemm_choice.py id %t/xdg/trellis > %t/id-after
// RUN: not cmp -s %t/id-before %t/id-after
//
// RUN: env XDG_CACHE_HOME=%t/both trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/both1 & env XDG_CACHE_HOME=%t/both trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/both2; wait
// RUN: ls %t/both/trellis | FileCheck %s --check-prefix=CHECK-ONE
// CHECK-ONE: gemm-choice-{{[0-9a-f]+}}.json
// CHECK-ONE-NEXT: gemm-choice.lock
// CHECK-ONE-NEXT: gemm-shapes-{{[0-9a-f]+}}.json
// CHECK-ONE-NOT: gemm-
// RUN: %python %S/gemm_choice.py check %t %t/both1 %t/both2
//
// A variable that changes a library's kernels (oneDNN capped at AVX2) gets a
// measured choice of its own, kept beside the other.
// RUN: env XDG_CACHE_HOME=%t/both ONEDNN_MAX_CPU_ISA=AVX2 trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/isa
// RUN: ls %t/both/trellis | FileCheck %s --check-prefix=CHECK-TWO
// CHECK-TWO-COUNT-2: gemm-choice-{{[0-9a-f]+}}.json
// CHECK-TWO-NOT: gemm-choice-
// Each file records the setting it was measured under.
// RUN: cat %t/both/trellis/gemm-choice-*.json | FileCheck %s --check-prefix=CHECK-VARS
// CHECK-VARS: "ONEDNN_MAX_CPU_ISA": "AVX2"
// CHECK-VARS-NOT: "ONEDNN_MAX_CPU_ISA"
// RUN: %python %S/gemm_choice.py check %t %t/isa
//
// The libraries rank differently on one thread and on two (oneDNN's large
// GEMMs scale worse than OpenBLAS's on an AVX2 Zen 5): each thread count
// gets a measured choice of its own, which records it.
// RUN: env XDG_CACHE_HOME=%t/threads TRELLIS_NUM_THREADS=1 trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/one
// RUN: env XDG_CACHE_HOME=%t/threads TRELLIS_NUM_THREADS=2 trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/two
// RUN: env XDG_CACHE_HOME=%t/threads TRELLIS_NUM_THREADS=2 trellis-run %s --entry=three --input=%t/a8.npy --input=%t/a64.npy --input=%t/a256.npy --output-dir=%t/two-again
// RUN: ls %t/threads/trellis | FileCheck %s --check-prefix=CHECK-TWO
// RUN: cat %t/threads/trellis/gemm-choice-*.json | FileCheck %s --check-prefix=CHECK-THREADS
// CHECK-THREADS-DAG: "openmp": 1,
// CHECK-THREADS-DAG: "openmp": 2,
// RUN: %python %S/gemm_choice.py check %t %t/one %t/two %t/two-again

func.func @three(%a8: tensor<8x8xf32>, %a64: tensor<64x64xf32>, %a256: tensor<256x256xf32>)
    -> (tensor<8x8xf32>, tensor<64x64xf32>, tensor<256x256xf32>) {
  %z = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8x8xf32>
  %f8 = linalg.fill ins(%z : f32) outs(%e8 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r8 = linalg.matmul ins(%a8, %a8 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f8 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e64 = tensor.empty() : tensor<64x64xf32>
  %f64 = linalg.fill ins(%z : f32) outs(%e64 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r64 = linalg.matmul ins(%a64, %a64 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f64 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e256 = tensor.empty() : tensor<256x256xf32>
  %f256 = linalg.fill ins(%z : f32) outs(%e256 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r256 = linalg.matmul ins(%a256, %a256 : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f256 : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r8, %r64, %r256 : tensor<8x8xf32>, tensor<64x64xf32>, tensor<256x256xf32>
}
