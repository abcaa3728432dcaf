"""Runs the seed's mock_training_step and checks every output against NumPy.

The reference computes the same step in float64 with hand-derived
backpropagation. Tolerance: relative 1e-5 per tensor (norm-relative for the
updated weights, whose change of 1e-4·g is checked separately: the
recovered gradient (w − w_new)/1e-4 must match NumPy's to 1e-3 relative,
limited by float32 cancellation in w − 1e-4·g).
Usage: mock_training_step.py MODEL.mlir WORKDIR
"""
import os
import sys

import numpy as np

from trellis_testing.run import Checker, run_entry

model, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(3)
x = rng.normal(size=(8, 6)).astype(np.float32)
w1 = rng.normal(size=(6, 10)).astype(np.float32)
b1 = (0.1 * rng.normal(size=10)).astype(np.float32)
w2 = rng.normal(size=(10, 3)).astype(np.float32)
b2 = rng.normal(size=3).astype(np.float32)
state = rng.normal(size=10).astype(np.float32)
args = [x, w1, b1, w2, b2, state]
got, _ = run_entry(model, "mock_training_step", args, work)

X, W1, B1, W2, B2, S = (a.astype(np.float64) for a in args)
h = X @ W1 + B1
a = np.maximum(h, 0)
logits = a @ W2 + B2
new_state = 0.9 * S + 0.1 * a.mean(0)
dlogits = np.zeros_like(logits)
dlogits[:, 0] = 1 / 8
dw2, db2 = a.T @ dlogits, dlogits.sum(0)
dh = (dlogits @ W2.T) * (h > 0)
dw1, db1 = X.T @ dh, dh.sum(0)
grads = [dw1, db1, dw2, db2]
weights = [W1, B1, W2, B2]

check = Checker()
for i, name in enumerate(["w1", "b1", "w2", "b2"]):
    check.norm_close(f"new_{name}", got[i], weights[i] - 1e-4 * grads[i], 1e-5)
    recovered = (args[i + 1].astype(np.float64) - got[i].astype(np.float64)) / 1e-4
    check.norm_close(f"gradient_of_{name}_from_the_update", recovered,
                     grads[i], 1e-3)
check.norm_close("new_state", got[4], new_state, 1e-5)
check.norm_close("logits", got[5], logits, 1e-5)
check.finish()
