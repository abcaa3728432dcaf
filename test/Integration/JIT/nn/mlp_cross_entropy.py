"""MLP forward + cross-entropy (mlp_cross_entropy.mlir) vs NumPy."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
B, SIZES, C = 16, (32, 64, 64), 10


def params():
    dims = SIZES + (C,)
    out = []
    for k, n in zip(dims[:-1], dims[1:]):
        out += [s.randn(k, n, scale=1.5 / np.sqrt(k)), s.randn(n, scale=0.5)]
    return out


def forward(x, w1, b1, w2, b2, w3, b3, labels, act1, act2):
    h = act2(ref.dense(act1(ref.dense(x, w1, b1)), w2, b2))
    logits = ref.dense(h, w3, b3)
    return ref.cross_entropy(logits, labels), logits


for entry, act1, act2 in [
        ("mlp", ref.gelu, ref.relu),
        ("mlp_tanh", lambda v: ref.gelu(v, approximate=True), ref.tanh)]:
    args = [s.randn(B, SIZES[0])] + params() + [s.randint(0, C, B)]
    loss, logits = s.run(entry, *args, results=2)
    want_loss, want_logits = forward(*args, act1, act2)
    s.close(f"{entry}.loss", loss, want_loss)
    s.close(f"{entry}.logits", logits, want_logits)

logits = s.randn(6, 5, scale=3.0)
labels = np.array([-1, 5, 2, 100, 0, -2147483648], dtype=np.int32)
loss, = s.run("cross_entropy_bad_labels", logits, labels, results=1)
s.close("cross_entropy_bad_labels", loss, ref.cross_entropy(logits, labels))
s.finish()
