"""Clamped embedding gather feeding layer_norm (embedding_layer_norm.mlir)."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
V, D = 10, 16

# Rows 0..4 are O(1); rows 5..9 have a spread of ~1e-3 (variance ~1e-6, the
# size of the default epsilon), so a wrong default epsilon shows.
table = np.concatenate([s.randn(5, D, scale=1.5, loc=0.3),
                        s.randn(5, D, scale=1e-3)]).astype(s.dtype)
ids = s.randint(0, V, 4, 6)
ids[0, :] = [-1, -7, V, V + 3, -2147483648, 2147483647]  # all clamp
ids[1, :2] = [V - 1, 0]
scale, bias = s.randn(D, loc=1.0, scale=0.3), s.randn(D, scale=0.3)

e, n, n2 = s.run("embed_norm", ids, table, scale, bias, results=3)
want_e = ref.embedding(ids, table)
s.equal("embed_norm.rows", e, want_e)
want_n = ref.layer_norm(want_e, scale, bias)
s.close("embed_norm.normed", n, want_n)
want_n2 = ref.layer_norm(want_e, scale, bias, epsilon=1e-3)
s.close("embed_norm.normed_eps", n2, want_n2)
# On the small-spread rows a default epsilon of 1e-5 (another common choice)
# instead of 1e-6 would change the result by far more than the tolerance, so
# the check above really pins the default.
small = ref.embedding(ids, np.arange(V)) >= 5
gap = np.abs(want_n - ref.layer_norm(want_e, scale, bias, 1e-5))[small].max()
s.expect("embed_norm.epsilon_matters", gap > 0.1,
         f"1e-6 vs 1e-5 differ by up to {gap:.3g}")

ids1 = np.array([3, -1, 10, 9, 0, 1000, -1000], dtype=np.int32)
e1, = s.run("embed_rank1", ids1, table, results=1)
s.equal("embed_rank1.rows", e1, ref.embedding(ids1, table))
s.finish()
