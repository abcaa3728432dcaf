"""examples/mlp in the trellis package (docs/python.md): the model of
mlp.mlir (64 -> dense 128 -> gelu -> dense 10, softmax cross-entropy, batch
64) built from Trax-style layers and trained with trellis.Trainer (SGD, lr
0.1) on make_data.py's kind of data: ten Gaussian blobs in 64 dimensions.
mlp.mlir is a forward pass only; this adds the training.

    PYTHONPATH=build/python /usr/bin/python3 examples/mlp/train.py
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/mlp/train.py
"""

import argparse

import numpy as np

import trellis
from trellis import layers as tl, optim


def blobs(n, seed):
    """Ten classes, each a Gaussian blob (std 0.5) around a fixed centre."""
    centers = np.random.default_rng(0).normal(size=(10, 64))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, size=n).astype(np.int32)
    return {"x": (centers[y] + 0.5 * rng.normal(size=(n, 64))).astype(np.float32), "y": y}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output-dir", default="/tmp/mlp-py")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--reduce", default="mean")
    args = ap.parse_args()

    # The model: ten lines.
    model = tl.Serial(tl.Dense(128), tl.Gelu(), tl.Dense(10))
    trainer = trellis.Trainer(model, tl.CrossEntropyLoss(),
                              inputs={"x": (64,), "y": ((), "i32")},
                              batch_size=64, optimizer=optim.SGD(0.1))
    result = trainer.fit(blobs(2048, 1), steps=args.steps, output_dir=args.output_dir,
                         eval_data=blobs(512, 2), eval_every=args.steps, reduce=args.reduce)

    if result.metrics is not None:  # rank 0
        losses, last = result.losses, result.evals[-1]
        print(f"mlp: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}; "
              f"held-out accuracy {last['accuracy']:.4f}, loss {last['loss']:.4f}")


if __name__ == "__main__":
    main()
