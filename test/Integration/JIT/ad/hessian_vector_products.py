"""Hessian-vector products through region ops and a Transformer block."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

for taken in (1, 0):
    gc.check(f"hvp_ctrl_{taken}", "hvp_ctrl",
             [n(3), n(3), np.array(taken, np.int32), n(3), n(3)],
             argnums=[0, 1], full=[0, 1], arg_names=["x", "w"])
gc.check("hvp_serial", "hvp_serial",
         [n(3, 4), n(3, 4), 0.5 * n(4, 4), n(4), n(3, 4), n(3, 4), n(3, 4),
          n(4, 4)],
         argnums=[0, 1, 2, 3], full=[0, 2], arg_names=["x1", "x2", "w", "b"])
block = [n(2, 4, 8), 0.5 * n(8, 8), 0.5 * n(8, 8), 0.5 * n(8, 8),
         1.0 + 0.1 * n(8), 0.3 * n(8, 16), 0.3 * n(16, 8), n(2, 4, 8)]
dirs = [n(2, 4, 8), n(8, 8), n(8, 8), n(8, 8), n(8, 16)]
gc.check("hvp_block", "hvp_block", block + dirs,
         argnums=[0, 1, 2, 3, 4, 5, 6], full=[1, 2],
         arg_names=["x", "wq", "wk", "wv", "s", "w1", "w2"])
gc.run()
gc.finish()
