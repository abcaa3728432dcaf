"""examples/digits in the trellis package (docs/python.md): the same MLP as
model.mlir (64 -> dense 128 -> relu -> dense 10, softmax cross-entropy,
SGD lr 0.1, batch 32, eval batch 120) on the same split as make_data.py,
built from Trax-style layers and trained with trellis.Trainer.

    PYTHONPATH=build/python /usr/bin/python3 examples/digits/train.py
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/digits/train.py
"""

import argparse
import gzip

import numpy as np

import trellis
from trellis import layers as tl, optim

SOURCE = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def load(seed=0):
    """make_data.py's split: 1437 training and 360 held-out images in [0, 1]."""
    with gzip.open(SOURCE, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float64)
    x, y = (table[:, :64] / 16.0).astype(np.float32), table[:, 64].astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(y))
    test, train = order[:360], order[360:]
    return {"x": x[train], "y": y[train]}, {"x": x[test], "y": y[test]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output-dir", default="/tmp/digits-py")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--reduce", default="mean")
    args = ap.parse_args()
    train, test = load()

    # The model: ten lines.
    model = tl.Serial(tl.Dense(128), tl.Relu(), tl.Dense(10))
    trainer = trellis.Trainer(model, tl.CrossEntropyLoss(),
                              inputs={"x": (64,), "y": ((), "i32")},
                              batch_size=32, eval_batch_size=120,
                              optimizer=optim.SGD(0.1))
    result = trainer.fit(train, steps=args.steps, output_dir=args.output_dir,
                         eval_data=test, eval_every=min(args.eval_every, args.steps),
                         reduce=args.reduce)

    if result.metrics is not None:  # rank 0
        losses, last = result.losses, result.evals[-1]
        print(f"digits: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}; "
              f"held-out accuracy {last['accuracy']:.4f}, loss {last['loss']:.4f}")


if __name__ == "__main__":
    main()
