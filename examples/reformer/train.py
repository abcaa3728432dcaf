"""examples/reformer in the trellis package (docs/python.md): the same
reversible language model as model.mlir (gen_model.py), built from
Trax-style layers the way Trax's ReformerLM is, and trained with
trellis.Trainer on make_data.py's duplication task.

    /usr/bin/python3 examples/reformer/make_data.py /tmp/rf
    PYTHONPATH=build/python /usr/bin/python3 examples/reformer/train.py --data /tmp/rf
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/reformer/train.py --data /tmp/rf

`reformer_lm` and `trainer` are what test/Examples/python-examples-lm.test
compares with model.mlir (the same @train_step on the same parameters).
"""

import os
import sys

import trellis
from trellis import layers as tl, optim

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import lm_main  # noqa: E402  (examples/lm_main.py: the command line)

V, N = 32, 15            # make_data.py: vocabulary, |w|
L = 2 * N + 2            # sequences 0 w 0 w
D, HEADS, FF = 32, 2, 64
TRAIN_BATCH, EVAL_BATCH, LR = 32, 128, 3e-3


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
        tl.Slice(n + 1, 2 * n + 1), tl.Reshape(-1, d_model),  # the copied half's rows
        tl.Dense(vocab))
    return tl.Parallel(lm, tl.Reshape(-1))  # its targets, in the same order


def trainer(n_layers=2):
    return trellis.Trainer(reformer_lm(n_layers=n_layers), tl.CrossEntropyLoss(),
                           inputs={"x": ((L,), "i32"), "pos_ids": ((L,), "i32"),
                                   "y": ((N,), "i32")},
                           batch_size=TRAIN_BATCH, eval_batch_size=EVAL_BATCH,
                           optimizer=optim.Adam(LR, b2=0.98, eps=1e-9))


if __name__ == "__main__":
    lm_main.main("reformer", trainer, "/tmp/rf", "accuracy on the copied half")
