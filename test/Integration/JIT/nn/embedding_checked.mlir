// nn.embedding {checked = true}: in-range ids gather the rows (compared
// bit-exactly with NumPy's table[ids]); an id of -1 or of V = 5 ends
// trellis-run with one line naming the op and a nonzero exit, and the
// default (unchecked) op clamps the same ids silently.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/table.npy', np.arange(15, dtype=np.float32).reshape(5, 3)); np.save('%t/ok.npy', np.array([[4, 0], [2, 1]], np.int32)); np.save('%t/neg.npy', np.array([[4, -1], [2, 1]], np.int32)); np.save('%t/big.npy', np.array([[4, 0], [5, 1]], np.int32))"
// RUN: trellis-run %s --entry=checked --input=%t/ok.npy --input=%t/table.npy --output-dir=%t/ok
// RUN: %python -c "import numpy as np, sys; t = np.load('%t/table.npy'); i = np.load('%t/ok.npy'); sys.exit(0 if np.array_equal(np.load('%t/ok/result0.npy'), t[i]) else 1)"
// RUN: not trellis-run %s --entry=checked --input=%t/neg.npy --input=%t/table.npy > %t/neg.out 2> %t/neg.err
// RUN: FileCheck %s --check-prefix=CHECK-ERR --input-file=%t/neg.err
// RUN: not trellis-run %s --entry=checked --input=%t/big.npy --input=%t/table.npy 2> %t/big.err
// RUN: FileCheck %s --check-prefix=CHECK-ERR --input-file=%t/big.err
// RUN: trellis-run %s --entry=unchecked --input=%t/big.npy --input=%t/table.npy --output-dir=%t/clamp
// RUN: %python -c "import numpy as np, sys; t = np.load('%t/table.npy'); i = np.clip(np.load('%t/big.npy'), 0, 4); sys.exit(0 if np.array_equal(np.load('%t/clamp/result0.npy'), t[i]) else 1)"

// One line, and no result printed.
// CHECK-ERR: trellis: rank 0: nn.embedding ({{.*}}embedding_checked.mlir:[[#@LINE+4]]:{{[0-9]+}}): an id is outside [0, 5) (checked = true)
// CHECK-ERR-NOT: {{.}}
// Unchecked, id 5 reads row 4 (np.clip).
func.func @checked(%ids: tensor<2x2xi32>, %t: tensor<5x3xf32>) -> tensor<2x2x3xf32> {
  %0 = nn.embedding %ids, %t {checked = true} : (tensor<2x2xi32>, tensor<5x3xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

func.func @unchecked(%ids: tensor<2x2xi32>, %t: tensor<5x3xf32>) -> tensor<2x2x3xf32> {
  %0 = nn.embedding %ids, %t : (tensor<2x2xi32>, tensor<5x3xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}
