"""Generates the sequence duplication task of the Reformer paper (Kitaev,
Kaiser and Levskaya 2020, section 5): sequences 0 w 0 w, where w is a string
of N random symbols from 1..V-1. A causal language model reads the sequence
(length L = 2N + 2) and predicts every next token; only the copied second
half is predictable, so loss and accuracy are taken on it: the targets y are
w, the next tokens of input positions N+1 .. 2N.

usage: make_data.py OUT_DIR [SEED]   -> OUT_DIR/train.npz, OUT_DIR/test.npz
  x:       M x L int32  the sequences 0 w 0 w
  pos_ids: M x L int32  position ids 0..L-1 (the positional embedding's input)
  y:       M x N int32  w (the targets of positions N+1 .. 2N)
"""

import os
import sys

import numpy as np

V, N = 32, 15
L = 2 * N + 2
out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)


def sample(m):
    w = rng.integers(1, V, (m, N))
    zero = np.zeros((m, 1), np.int64)
    x = np.concatenate([zero, w, zero, w], axis=1)
    return dict(x=np.ascontiguousarray(x, np.int32),
                pos_ids=np.ascontiguousarray(np.tile(np.arange(L), (m, 1)), np.int32),
                y=np.ascontiguousarray(w, np.int32))


os.makedirs(out, exist_ok=True)
for name, m in (("train", 16384), ("test", 1024)):
    np.savez(os.path.join(out, f"{name}.npz"), **sample(m))
print(f"wrote {out}/train.npz (16384 sequences 0w0w of length {L}) and {out}/test.npz (1024)")
