"""nn.dense on inputs of rank 1, 3 and 4 (dense_ranks.mlir) vs NumPy."""

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
for entry, x_shape, n in [("dense_rank3", (2, 5, 7), 3),
                          ("dense_rank1", (7,), 3),
                          ("dense_rank4", (2, 3, 4, 6), 5),
                          ("dense_k1", (4, 1), 3)]:
    x, w, b = s.randn(*x_shape), s.randn(x_shape[-1], n), s.randn(n)
    y, = s.run(entry, x, w, b, results=1)
    s.close(entry, y, ref.dense(x, w, b))
s.finish()
