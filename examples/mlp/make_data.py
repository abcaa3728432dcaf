#!/usr/bin/python3
"""Writes the example MLP's weights and one data shard per MPI rank.

The data is a generated 10-class problem: each class is a Gaussian blob in
64 dimensions, so the example needs no download.
Usage: make_data.py OUT_DIR NUM_RANKS
"""
import os
import sys

import numpy as np


def main():
    out, ranks = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(10, 64)).astype(np.float32)
    np.save(f"{out}/w1.npy", (rng.normal(size=(64, 128)) / 8).astype(np.float32))
    np.save(f"{out}/b1.npy", np.zeros(128, np.float32))
    np.save(f"{out}/w2.npy", (rng.normal(size=(128, 10)) / 11).astype(np.float32))
    np.save(f"{out}/b2.npy", np.zeros(10, np.float32))
    for r in range(ranks):
        y = rng.integers(0, 10, size=64).astype(np.int32)
        x = centers[y] + 0.5 * rng.normal(size=(64, 64)).astype(np.float32)
        np.save(f"{out}/x.{r}.npy", x.astype(np.float32))
        np.save(f"{out}/y.{r}.npy", y)


if __name__ == "__main__":
    main()
