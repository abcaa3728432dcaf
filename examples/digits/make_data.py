"""Converts the 8x8 handwritten digits that Debian's python3-sklearn ships
(1797 images, 64 pixels in 0..16, 10 classes; the UCI optdigits test set) to
trellis-train datasets: a fixed seeded split into 1437 training and 360
held-out images, pixels scaled to [0, 1].

usage: make_data.py OUT_DIR [SEED]   -> OUT_DIR/train.npz, OUT_DIR/test.npz
       (arrays x: Nx64 float32, y: N int32)
"""

import gzip
import os
import sys

import numpy as np

SOURCE = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"

out = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if not os.path.exists(SOURCE):
    sys.exit(f"make_data.py: {SOURCE} not found (apt-get install python3-sklearn)")
with gzip.open(SOURCE, "rt") as f:
    table = np.loadtxt(f, delimiter=",", dtype=np.float64)
x = (table[:, :64] / 16.0).astype(np.float32)
y = table[:, 64].astype(np.int32)
assert x.shape == (1797, 64) and set(np.unique(y)) == set(range(10))

order = np.random.default_rng(seed).permutation(len(y))
test, train = order[:360], order[360:]
os.makedirs(out, exist_ok=True)
np.savez(os.path.join(out, "train.npz"), x=x[train], y=y[train])
np.savez(os.path.join(out, "test.npz"), x=x[test], y=y[test])
print(f"wrote {out}/train.npz ({len(train)} images) and {out}/test.npz ({len(test)})")
