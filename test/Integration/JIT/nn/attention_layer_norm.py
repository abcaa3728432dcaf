"""layer_norm + multi-head attention (attention_layer_norm.mlir) vs NumPy."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
B, L, D, H = 2, 16, 32, 4


def self_attention_ref(x, scale, bias, wq, bq, wk, bk, wv, bv):
    h = ref.layer_norm(x, scale, bias)
    q, k, v = (ref.dense(h, w, b) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    return h, ref.attention(q, k, v, H, causal=True)


x = s.randn(B, L, D, scale=2.0, loc=0.5)
args = [x, s.randn(D, loc=1.0, scale=0.2), s.randn(D, scale=0.2)]
for _ in range(3):
    args += [s.randn(D, D, scale=1.0 / np.sqrt(D)), s.randn(D, scale=0.1)]
h, out = s.run("self_attention", *args, results=2)
want_h, want_out = self_attention_ref(*args)
s.close("self_attention.normed", h, want_h)
s.close("self_attention.out", out, want_out)

# Causality: changing the last position must leave every earlier output
# bit-identical (query i attends to keys j <= i only).
x2 = x.copy()
x2[:, -1, :] = s.randn(B, D, scale=5.0)
_, out2 = s.run("self_attention", x2, *args[1:], results=2)
s.equal("self_attention.causality", out2[:, :-1], out[:, :-1])

for entry, heads in (("cross_attention", H), ("cross_attention_1head", 1)):
    q, k, v = s.randn(B, 8, D), s.randn(B, 12, D), s.randn(B, 12, D)
    o, = s.run(entry, q, k, v, results=1)
    s.close(f"{entry}.out", o, ref.attention(q, k, v, heads))
s.finish()
