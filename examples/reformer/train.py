"""examples/reformer in the trellis package (docs/python.md): the same
reversible language model as model.mlir (gen_model.py), built from
Trax-style layers the way Trax's ReformerLM is, and trained with
trellis.Trainer on make_data.py's duplication task.

    /usr/bin/python3 examples/reformer/make_data.py /tmp/rf
    PYTHONPATH=build/python /usr/bin/python3 examples/reformer/train.py --data /tmp/rf
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/reformer/train.py --data /tmp/rf

`reformer_lm` and `trainer` are what test/Examples/python-examples-reformer.test
compares with model.mlir (the same @train_step on the same parameters).
"""

import argparse

import numpy as np

import trellis
from trellis import layers as tl, optim

V, N = 32, 15            # make_data.py: vocabulary, |w|
L = 2 * N + 2            # sequences 0 w 0 w
D, HEADS, FF = 32, 2, 64
TRAIN_BATCH, EVAL_BATCH, LR = 32, 128, 3e-3


def copied_rows(n):
    """BxLxD -> (B·n)xD: the rows of input positions n+1 .. 2n, whose next
    tokens are the copy of w (the predictable half)."""
    def rows(b, x):
        batch, _, d = x.shape
        s = b.slice(x, [0, n + 1, 0], [batch, n, d])
        return b.reshape(s, (batch * n, d))
    return tl.Fn("CopiedRows", rows)


def label_rows():
    """Bxn int32 targets -> (B·n), in the order of copied_rows."""
    return tl.Fn("LabelRows", lambda b, y: b.reshape(y, (y.shape[0] * y.shape[1],)))


def reformer_lm(vocab=V, length=L, d_model=D, n_heads=HEADS, d_ff=FF, n_layers=2, n=N):
    """(tokens, position ids, targets) -> (logits of the copied half, its
    targets): token plus learned positional embeddings, duplicated into the
    two streams of a ReversibleSerial of `n_layers` layers — each an
    attention half-residual and a feed-forward half-residual, with swaps, as
    in Trax's ReformerLM — the streams summed, layer-normed, projected."""
    body = []
    for _ in range(n_layers):
        body += [tl.ReversibleHalfResidual(tl.LayerNorm(), tl.CausalAttention(n_heads)),
                 tl.ReversibleSwap(),
                 tl.ReversibleHalfResidual(tl.LayerNorm(), tl.Dense(d_ff), tl.Gelu(),
                                           tl.Dense(d_model)),
                 tl.ReversibleSwap()]
    lm = tl.Serial(
        tl.Parallel(tl.Embedding(vocab, d_model, init="normal:0.1"),
                    tl.Embedding(length, d_model, init="normal:0.1")),
        tl.Add(), tl.Dup(), tl.ReversibleSerial(*body), tl.Add(), tl.LayerNorm(),
        copied_rows(n), tl.Dense(vocab))
    return tl.Parallel(lm, label_rows())


def trainer(n_layers=2):
    return trellis.Trainer(reformer_lm(n_layers=n_layers), tl.CrossEntropyLoss(),
                           inputs={"x": ((L,), "i32"), "pos_ids": ((L,), "i32"),
                                   "y": ((N,), "i32")},
                           batch_size=TRAIN_BATCH, eval_batch_size=EVAL_BATCH,
                           optimizer=optim.Adam(LR, b2=0.98, eps=1e-9))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/tmp/rf", help="make_data.py's output directory")
    ap.add_argument("--output-dir", default="/tmp/reformer-py")
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
        print(f"reformer: first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}; "
              f"held-out accuracy on the copied half {last['accuracy']:.4f}, "
              f"loss {last['loss']:.4g}")


if __name__ == "__main__":
    main()
