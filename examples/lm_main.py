"""The command line of the language-model examples' train.py (reformer,
transformer): trains `trainer(layers)` on make_data.py's train.npz, evaluates
on its test.npz, and prints the first and last training loss and the last
held-out metrics (on rank 0)."""

import argparse

import numpy as np


def main(name, trainer, data, what="accuracy"):
    """`name` names the run (default output /tmp/<name>-py), `data` is
    make_data.py's default output directory, `what` the printed accuracy."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=data, help="make_data.py's output directory")
    ap.add_argument("--output-dir", default=f"/tmp/{name}-py")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--layers", type=int, default=2)
    args = ap.parse_args()
    train = dict(np.load(f"{args.data}/train.npz"))
    test = dict(np.load(f"{args.data}/test.npz"))
    result = trainer(args.layers).fit(train, steps=args.steps, output_dir=args.output_dir,
                                      eval_data=test,
                                      eval_every=min(args.eval_every, args.steps))
    if result.metrics is not None:  # rank 0
        losses, last = result.losses, result.evals[-1]
        print(f"{name}: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}; "
              f"held-out {what} {last['accuracy']:.4f}, loss {last['loss']:.4g}")
