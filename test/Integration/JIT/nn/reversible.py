"""Forward meaning of reversible_serial / half_residual / swap."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
B, D = 8, 32


def block(x1, x2, f, w, b):
    """Half-residual F, swap, half-residual dense, swap (Trax RevNet)."""
    y1 = np.asarray(x1, np.float64) + f(x2)
    y2 = np.asarray(x2, np.float64) + ref.dense(y1, w, b)
    return y1, y2


def weights():
    return s.randn(D, D, scale=1.0 / np.sqrt(D)), s.randn(D, scale=0.1)


x1, x2 = s.randn(B, D), s.randn(B, D)
w, b = weights()
y1, y2 = s.run("rev_block", x1, x2, w, b, results=2)
want1, want2 = block(x1, x2, ref.tanh, w, b)
s.close("rev_block.y1", y1, want1)
s.close("rev_block.y2", y2, want2)

w2, b2 = weights()
y1, y2 = s.run("rev_nested", x1, x2, w, b, w2, b2, results=2)
want1, want2 = block(*block(x1, x2, ref.tanh, w, b), ref.gelu, w2, b2)
s.close("rev_nested.y1", y1, want1)
s.close("rev_nested.y2", y2, want2)
s.finish()
