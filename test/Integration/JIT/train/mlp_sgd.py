"""Trains the MLP of mlp_sgd.mlir for 100 SGD steps in one trellis-run call.

Checks: the first step's loss equals a NumPy f64 forward pass (rel. 1e-5);
the final weights equal 100 steps of NumPy f64 SGD with hand-derived
backpropagation (norm-relative 1e-4: f32 rounding compounds over 100 steps);
the mean loss of the last 8 steps is below half that of the first 8.
Usage: mlp_sgd.py MODEL.mlir WORKDIR
"""
import math
import os
import sys

import numpy as np

from trellis_testing.run import Checker, run_entry

model, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(7)
centers = rng.normal(size=(4, 16)) * 2.0
ys = rng.integers(0, 4, size=256).astype(np.int32)
xs = (centers[ys] + rng.normal(size=(256, 16))).astype(np.float32)
params = [(rng.normal(size=(16, 32)) / 4).astype(np.float32), np.zeros(32, np.float32),
          (rng.normal(size=(32, 4)) / 6).astype(np.float32), np.zeros(4, np.float32)]
got, _ = run_entry(model, "train", params + [xs, ys], work)
losses = got[4]

erf = np.vectorize(math.erf)


def reference(w1, b1, w2, b2, steps=100, lr=0.5):
    w1, b1, w2, b2 = (p.astype(np.float64) for p in (w1, b1, w2, b2))
    out_losses = []
    for step in range(steps):
        off = (step % 8) * 32
        x, y = xs[off:off + 32].astype(np.float64), ys[off:off + 32]
        h = x @ w1 + b1
        cdf = 0.5 * (1 + erf(h / math.sqrt(2)))
        a = h * cdf
        o = a @ w2 + b2
        m = o.max(1, keepdims=True)
        p = np.exp(o - m)
        p /= p.sum(1, keepdims=True)
        out_losses.append(np.mean(-np.log(p[np.arange(32), y])))
        do = p.copy()
        do[np.arange(32), y] -= 1
        do /= 32
        dw2, db2 = a.T @ do, do.sum(0)
        da = do @ w2.T
        dh = da * (cdf + h * np.exp(-h * h / 2) / math.sqrt(2 * math.pi))
        dw1, db1 = x.T @ dh, dh.sum(0)
        w1, b1, w2, b2 = w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2
    return [w1, b1, w2, b2], np.array(out_losses)


ref_params, ref_losses = reference(*params)
check = Checker()
first = abs(losses[0] - ref_losses[0]) / abs(ref_losses[0])
check.expect("first_loss", first <= 1e-5, f"{losses[0]:.6f} vs numpy "
             f"{ref_losses[0]:.6f} (rel {first:.2e}, tolerance 1e-5)")
for name, g, ref in zip(["w1", "b1", "w2", "b2"], got, ref_params):
    check.norm_close(f"{name}_after_100_steps", g, ref, 1e-4)
early, late = losses[:8].mean(), losses[-8:].mean()
check.expect("loss_halves", late < 0.5 * early, f"mean loss first 8 steps "
             f"{early:.4f}, last 8 steps {late:.4f}")
check.finish()
