"""Trains a small classifier with the trellis package (docs/python.md).

    python3 python/examples/train.py --output-dir /tmp/run
    mpirun -np 2 python3 python/examples/train.py --output-dir /tmp/run

Four Gaussian clusters in 8 dimensions; an MLP with LayerNorm and GELU,
AdamW with warm-up and cosine decay, gradient clipping. Under mpirun each
rank trains on its shard of every batch and the gradients are averaged.
"""

import argparse

import numpy as np

import trellis
from trellis import layers as tl, optim


def blobs(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(0).standard_normal((4, 8)) * 2.5
    y = rng.integers(0, 4, n).astype(np.int32)
    return {"x": (centers[y] + rng.standard_normal((n, 8))).astype(np.float32), "y": y}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--reduce", default="mean")
    args = ap.parse_args()

    model = tl.Serial(tl.Dense(32), tl.LayerNorm(), tl.Gelu(), tl.Dense(4))
    trainer = trellis.Trainer(model, tl.CrossEntropyLoss(), inputs={"x": (8,), "y": ((), "i32")},
                              batch_size=16, clip_norm=1.0,
                              optimizer=optim.AdamW(optim.WarmupCosine(1e-2, args.steps // 10, args.steps)))
    result = trainer.fit(blobs(1024, 1), steps=args.steps, output_dir=args.output_dir,
                         eval_data=blobs(256, 2), checkpoint_every=100, reduce=args.reduce)
    if result.metrics is not None:  # rank 0
        print(f"final eval: accuracy {result.evals[-1]['accuracy']:.3f}, "
              f"loss {result.evals[-1]['loss']:.4f}; first loss {result.losses[0]:.4f}")
        print("parameters:", ", ".join(result.params))


if __name__ == "__main__":
    main()
