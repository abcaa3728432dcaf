"""Generates the token task of examples/transformer: sequences of a
deterministic grammar, a Fibonacci recurrence modulo V,

    s[0], s[1] uniform in 0..V-1,    s[t+1] = (s[t] + s[t-1]) mod V,

so every token after the first two is a function of the two before it. The
language model reads s[0..L-1] and predicts the next token; the targets are
the predictable ones, s[2..L] (those of input positions 1..L-1), as y.

usage: make_data.py OUT_DIR [SEED]   -> OUT_DIR/train.npz, OUT_DIR/test.npz
  x:   N x L   int32  tokens
  pos_ids: N x L   int32  position ids 0..L-1 (the positional embedding's input)
  y:   N x L-1 int32  next tokens of positions 1..L-1
"""

import os
import sys

import numpy as np

V, L = 10, 16
out = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)


def sample(n):
    s = np.zeros((n, L + 1), np.int64)
    s[:, :2] = rng.integers(0, V, (n, 2))
    for t in range(2, L + 1):
        s[:, t] = (s[:, t - 1] + s[:, t - 2]) % V
    pos = np.tile(np.arange(L), (n, 1))
    return dict(x=np.ascontiguousarray(s[:, :L], np.int32), pos_ids=np.ascontiguousarray(pos, np.int32),
                y=np.ascontiguousarray(s[:, 2:], np.int32))


os.makedirs(out, exist_ok=True)
for name, n in (("train", 8192), ("test", 1024)):
    np.savez(os.path.join(out, f"{name}.npz"), **sample(n))
print(f"wrote {out}/train.npz (8192 sequences of {L}) and {out}/test.npz (1024)")
