"""dL/dw of L = mean(tanh(tanh(x w + b) w + b)) (b = 0) in NumPy f64, the
reference of compile-flags.mlir's stored and rematerialized gradients
(tolerance 1e-5 relative to the largest entry: f32 arithmetic on positive
inputs, whose sums do not cancel)."""
import sys

import numpy as np

x, w = (np.load(p).astype(np.float64) for p in sys.argv[1:3])
h0 = np.tanh(x @ w)
h1 = np.tanh(h0 @ w)
dh1 = np.full_like(h1, 1.0 / h1.size)
dd1 = dh1 * (1 - h1**2)
dw = h0.T @ dd1
dd0 = (dd1 @ w.T) * (1 - h0**2)
dw += x.T @ dd0
for name, path in zip(["stored", "every"], sys.argv[3:5]):
    got = np.load(path)
    error = np.abs(got - dw).max() / np.abs(dw).max()
    print(f"{name}: max error {error:.2e} vs NumPy f64: "
          f"{'ok' if error <= 1e-5 else 'FAIL'}")
