"""Generates the main job's dataset: 4 classes in 16 dimensions that no
linear model separates well. Each class is a mixture of 3 Gaussian clusters
whose centres are drawn on a sphere; points get noise and pass through a
fixed random rotation followed by tanh.

usage: make_data.py OUT_DIR [SEED]   -> OUT_DIR/train.npz, OUT_DIR/test.npz
"""

import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
classes, clusters, dim = 4, 3, 16
centres = rng.standard_normal((classes, clusters, dim))
centres /= np.linalg.norm(centres, axis=-1, keepdims=True) / 2.5
rotation, _ = np.linalg.qr(rng.standard_normal((dim, dim)))


def sample(n):
    y = rng.integers(0, classes, n)
    c = rng.integers(0, clusters, n)
    x = centres[y, c] + 0.6 * rng.standard_normal((n, dim))
    return np.tanh(x @ rotation).astype(np.float32), y.astype(np.int32)


os.makedirs(out, exist_ok=True)
for name, n in (("train", 8192), ("test", 1024)):
    x, y = sample(n)
    np.savez(os.path.join(out, f"{name}.npz"), x=x, y=y)
print(f"wrote {out}/train.npz (8192 examples) and {out}/test.npz (1024)")
