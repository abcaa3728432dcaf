// --target-cpu: the JIT generates code for a named CPU with that CPU's
// features only (here x86-64-v3: AVX2 and FMA, no AVX-512, so the loops are
// vectorized 8 floats wide and libmvec's AVX2 tanh is called), and the
// result is still right. A CPU this host cannot run, or that LLVM does not
// know, is one line and exit 1 before anything runs.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/npy_tool.py save %t/x.npy "np.linspace(-3, 3, 64 * 256, dtype=np.float32).reshape(64, 256)"
//
// RUN: trellis-run %s --entry=main --input=%t/x.npy --output-dir=%t/v3 --target-cpu=x86-64-v3 --dump-llvm-ir=%t/v3.ll
// RUN: FileCheck %s --check-prefix=CHECK-V3 < %t/v3.ll
// CHECK-V3-NOT: <16 x float>
// CHECK-V3: _ZGVdN8v_tanhf
// CHECK-V3-NOT: <16 x float>
// RUN: %python -c "import numpy as np, sys; x = np.load('%t/x.npy').astype(np.float64); y = np.load('%t/v3/result0.npy'); e = np.abs(y - np.tanh(x)).max(); print('max error', e); sys.exit(0 if e < 1e-6 else 1)"
//
// RUN: not trellis-run %s --entry=main --input=%t/x.npy --output-dir=%t/bad --target-cpu=pentium9 2>&1 | FileCheck %s --check-prefix=CHECK-UNKNOWN
// CHECK-UNKNOWN: trellis-run: error: unknown target CPU 'pentium9' for x86_64
// CHECK-UNKNOWN-NOT: recognized processor
// RUN: not ls %t/bad/result0.npy
//
// No host has both an AMD Zen 5's instructions (sse4a, clzero) and a
// Diamond Rapids' (AMX): at least one of the two is refused.
// RUN: (trellis-run %s --entry=main --input=%t/x.npy --output-dir=%t/z5 --target-cpu=znver5; trellis-run %s --entry=main --input=%t/x.npy --output-dir=%t/dr --target-cpu=diamondrapids; true) 2>&1 | FileCheck %s --check-prefix=CHECK-LACKS
// CHECK-LACKS: trellis-run: error: target CPU '{{znver5|diamondrapids}}' has {{[a-z0-9.-]+}}, which this host ({{.*}}) lacks: its code would not run here

func.func @main(%a: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = nn.tanh %a : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
