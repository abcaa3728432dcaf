"""examples/transformer in the trellis package (docs/python.md): the same
decoder-only Transformer as model.mlir (gen_model.py) — token and learned
positional embeddings, pre-layer-norm blocks of causal self-attention and a
gelu feed-forward, a final layer norm, the vocabulary projection of
positions 1..L-1 — built from Trax-style layers and trained with
trellis.Trainer on make_data.py's Fibonacci task.

    /usr/bin/python3 examples/transformer/make_data.py /tmp/tf
    PYTHONPATH=build/python /usr/bin/python3 examples/transformer/train.py --data /tmp/tf
    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/transformer/train.py --data /tmp/tf

`transformer_lm` and `trainer` are what test/Examples/python-examples-lm.test
compares with model.mlir (the same @train_step on the same parameters).
"""

import os
import sys

import trellis
from trellis import layers as tl, optim

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import lm_main  # noqa: E402  (examples/lm_main.py: the command line)

V, L = 10, 16            # make_data.py: vocabulary, sequence length
D, HEADS, FF = 32, 2, 128
TRAIN_BATCH, EVAL_BATCH, LR = 32, 128, 3e-3


def transformer_lm(vocab=V, length=L, d_model=D, n_heads=HEADS, d_ff=FF, n_layers=2):
    """(tokens, position ids, targets) -> (logits of positions 1..L-1, their
    targets): the embeddings' sum, `n_layers` pre-layer-norm blocks (causal
    attention, then a gelu feed-forward, each a residual), a final layer
    norm, the scored positions' rows projected to the vocabulary."""
    blocks = []
    for _ in range(n_layers):
        blocks += [tl.Residual(tl.LayerNorm(), tl.CausalAttention(n_heads)),
                   tl.Residual(tl.LayerNorm(), tl.Dense(d_ff), tl.Gelu(), tl.Dense(d_model))]
    lm = tl.Serial(
        tl.Parallel(tl.Embedding(vocab, d_model, init="normal:0.1"),
                    tl.Embedding(length, d_model, init="normal:0.1")),
        tl.Add(), *blocks, tl.LayerNorm(),
        tl.Slice(1, length), tl.Reshape(-1, d_model),  # positions 1..L-1
        tl.Dense(vocab))
    return tl.Parallel(lm, tl.Reshape(-1))  # their next tokens, in the same order


def trainer(n_layers=2):
    """Adam as model.mlir writes it (lr 3e-3, β 0.9 / 0.98, ε 1e-9)."""
    return trellis.Trainer(transformer_lm(n_layers=n_layers), tl.CrossEntropyLoss(),
                           inputs={"x": ((L,), "i32"), "pos_ids": ((L,), "i32"),
                                   "y": ((L - 1,), "i32")},
                           batch_size=TRAIN_BATCH, eval_batch_size=EVAL_BATCH,
                           optimizer=optim.Adam(LR, b2=0.98, eps=1e-9))


if __name__ == "__main__":
    lm_main.main("transformer", trainer, "/tmp/tf", "next-token accuracy")
