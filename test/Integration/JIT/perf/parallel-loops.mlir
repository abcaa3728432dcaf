// Parallel loops (trellis-parallelize-linalg + convert-scf-to-openmp, run by
// LLVM's OpenMP runtime): a transformer-like block at sizes above the
// pass's threshold. Checked by parallel_loops.py: the optimized IR forks
// OpenMP teams (__kmpc_fork_call) by default and not with
// --parallel-loops=false; on 2 OpenMP threads the results equal the
// sequential code's exactly (each element is computed by the same
// instructions, only by another thread); and both match a float64 NumPy
// reference (1e-5 relative, run.py's tolerance). Optimization and code
// generation on 1, 2 and 3 threads (the module split into 4 parts per
// thread, CodeGen.h) give the same results as the whole module optimized at
// once; a compile cache entry of a 2-thread compile holds 8 objects, and
// its hit the same results too. (The GEMMs go to OpenBLAS throughout, see
// parallel_loops.py.)
// REQUIRES: numpy
// RUN: %python %S/parallel_loops.py %s %t | FileCheck %s

// CHECK: OPENMP default: forks
// CHECK: OPENMP --parallel-loops=false: no forks
// CHECK: PASS block.same
// CHECK: PASS codegen.same
// CHECK: OBJECTS 8
// CHECK: PASS codegen.hit
// CHECK: PASS block.ref
// CHECK: ALL CHECKS PASSED
func.func @block(%x: tensor<16x64x128xf32>, %s: tensor<128xf32>, %o: tensor<128xf32>,
                 %q: tensor<16x64x128xf32>, %k: tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x128xf32>) {
  %n = nn.layer_norm %x, %s, %o : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<16x64x128xf32>
  %g = nn.gelu %n : tensor<16x64x128xf32>
  %h = arith.addf %g, %x : tensor<16x64x128xf32>
  %a = nn.attention %q, %k, %h {num_heads = 4 : i64, causal = true} : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x128xf32>) -> tensor<16x64x128xf32>
  %sm = nn.softmax %h : tensor<16x64x128xf32>
  return %a, %sm : tensor<16x64x128xf32>, tensor<16x64x128xf32>
}
