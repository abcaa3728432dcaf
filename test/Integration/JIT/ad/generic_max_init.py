"""Max/min reduction generics with a differentiated init."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn


def unique_extreme(sign):
    """a (4x5) whose per-column max (sign 1) / min (sign -1) leads by 0.3."""
    while True:
        a = n(4, 5)
        s = np.sort(sign * a, axis=0)
        if np.all(s[-1] - s[-2] >= 0.3):
            return a


init = np.array([5.0, -5.0, 5.0, -5.0, -5.0])
gc.check("max_init", "loss_max_init", [unique_extreme(1), init, n(5)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "init"])
gc.check("min_init", "loss_min_init", [unique_extreme(-1), -init, n(5)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "init"])
gc.run()
gc.finish()
