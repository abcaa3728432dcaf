"""examples/fashion-mnist in the trellis package (docs/python.md): the same
models as model.mlir (--model mlp: 784 -> dense 256 -> relu -> dense 128 ->
relu -> dense 10) and cnn.mlir (--model cnn: two blocks of conv 3x3 SAME ->
batch norm -> relu -> max pool 2 with 32 and 64 channels, flatten, dense
128, relu, dense 10), softmax cross-entropy, Adam lr 1e-3, batch 100, eval
batch 1000, built from Trax-style layers and trained with trellis.Trainer on
Debian's dataset-fashion-mnist. The CNN's batch-norm running statistics are
layer state that the Trainer carries; the evaluation normalizes with them.

    PYTHONPATH=build/python /usr/bin/python3 examples/fashion-mnist/train.py
    PYTHONPATH=build/python /usr/bin/python3 examples/fashion-mnist/train.py --model cnn
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/fashion-mnist/train.py
"""

import argparse
import gzip
import os

import numpy as np

import trellis
from trellis import layers as tl, optim

D = "/usr/share/datasets/fashion-mnist"


def idx(prefix, limit=None, shape=(784,)):
    """x: N x `shape` float32 in [0, 1] (byte / 255); y: N int32."""
    with gzip.open(os.path.join(D, f"{prefix}-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape((-1,) + shape)
    with gzip.open(os.path.join(D, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return {"x": (x[:limit] / 255.0).astype(np.float32), "y": y[:limit].astype(np.int32)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output-dir", default="/tmp/fashion-mnist-py")
    ap.add_argument("--steps", type=int, default=6000)   # 10 epochs of 600 batches
    ap.add_argument("--train-images", type=int, default=None)
    ap.add_argument("--reduce", default="mean")
    ap.add_argument("--model", choices=("mlp", "cnn"), default="mlp")
    args = ap.parse_args()

    # The models: a few lines each.
    if args.model == "mlp":
        shape = (784,)
        model = tl.Serial(tl.Dense(256), tl.Relu(), tl.Dense(128), tl.Relu(), tl.Dense(10))
    else:
        shape = (28, 28, 1)
        block = lambda filters: [tl.Conv(filters, 3, padding="SAME"), tl.BatchNorm(),
                                 tl.Relu(), tl.MaxPool(2)]
        model = tl.Serial(*block(32), *block(64), tl.Flatten(), tl.Dense(128), tl.Relu(),
                          tl.Dense(10))
    trainer = trellis.Trainer(model, tl.CrossEntropyLoss(),
                              inputs={"x": shape, "y": ((), "i32")},
                              batch_size=100, eval_batch_size=1000,
                              optimizer=optim.Adam(1e-3))
    result = trainer.fit(idx("train", args.train_images, shape), steps=args.steps,
                         output_dir=args.output_dir, eval_data=idx("t10k", None, shape),
                         eval_every=min(600, args.steps), reduce=args.reduce)

    if result.metrics is not None:  # rank 0
        losses, last = result.losses, result.evals[-1]
        print(f"fashion-mnist: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}; "
              f"test accuracy {last['accuracy']:.4f}, loss {last['loss']:.4f}")


if __name__ == "__main__":
    main()
