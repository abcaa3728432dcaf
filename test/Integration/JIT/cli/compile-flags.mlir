// The compile flags the tools share (trellis::tools::CompileFlags) are typed
// like the CompileOptions fields they set and reach their passes: --remat
// runs ad-remat before differentiation (its infeasible-budget error is the
// pass's own), a choice outside an enum flag is rejected when it is parsed,
// and the default stores everything and runs.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.npy "np.linspace(0.1, 1, 256 * 16, dtype=np.float32).reshape(256, 16)"
// RUN: %python %S/npy_tool.py save %t/w.npy "np.eye(16, dtype=np.float32) * 0.5"
// RUN: %python %S/npy_tool.py save %t/b.npy "np.zeros(16, dtype=np.float32)"
//
// RUN: not trellis-run %s --entry=use --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --remat=budget --remat-budget=1000 2>&1 | FileCheck %s --check-prefix=CHECK-BUDGET
// CHECK-BUDGET: ad-remat: budget of 1000 bytes is infeasible
// CHECK-BUDGET: trellis-run: error: lowering to the LLVM dialect failed
//
// RUN: not trellis-run %s --entry=use --remat=sometimes 2>&1 | FileCheck %s --check-prefix=CHECK-POLICY
// CHECK-POLICY: for the --remat option: Cannot find option named 'sometimes'!
// RUN: not trellis-train %s --data=%t/none.npz --output-dir=%t/o --reduce=sum 2>&1 | FileCheck %s --check-prefix=CHECK-REDUCE
// CHECK-REDUCE: for the --reduce option: Cannot find option named 'sum'!
// RUN: not trellis-run %s --entry=use --sgemm=mkl 2>&1 | FileCheck %s --check-prefix=CHECK-SGEMM
// CHECK-SGEMM: for the --sgemm option: Cannot find option named 'mkl'!
// RUN: not trellis-run %s --entry=use --compile-threads=-1 2>&1 | FileCheck %s --check-prefix=CHECK-THREADS
// CHECK-THREADS: for the --compile-threads option: '-1' value invalid for uint argument!
//
// --dump-llvm-ir to a directory: one line, exit 1, nothing run.
// RUN: not trellis-run %s --entry=use --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --dump-llvm-ir=%t --output-dir=%t/dump 2>&1 | FileCheck %s --check-prefix=CHECK-DUMP-DIR
// CHECK-DUMP-DIR: trellis-run: error: JIT compilation failed: cannot write '{{.*}}': Is a directory
// RUN: not ls %t/dump/result0.npy
//
// RUN: trellis-run %s --entry=use --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --output-dir=%t/stored
// RUN: trellis-run %s --entry=use --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --remat=every --remat-every=2 --output-dir=%t/every
// Verified after every pass of the lowering instead of once after it: the
// same code, the same results bit for bit.
// RUN: trellis-run %s --entry=use --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy --verify-each --output-dir=%t/verified
// RUN: cmp %t/stored/result0.npy %t/verified/result0.npy
// RUN: %python %S/compile_flags.py %t/x.npy %t/w.npy %t/stored/result0.npy %t/every/result0.npy | FileCheck %s --check-prefix=CHECK-GRAD
// CHECK-GRAD: stored: max error {{.*}} vs NumPy f64: ok
// CHECK-GRAD: every: max error {{.*}} vs NumPy f64: ok

func.func @chain(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d0 = nn.dense %x, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h0 = nn.tanh %d0 : tensor<256x16xf32>
  %d1 = nn.dense %h0, %w, %b : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %h1 = nn.tanh %d1 : tensor<256x16xf32>
  %l = nn.mean %h1 : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @use(%x: tensor<256x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %g = ad.grad @chain(%x, %w, %b) {argnums = array<i64: 1>} : (tensor<256x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  return %g : tensor<16x16xf32>
}
