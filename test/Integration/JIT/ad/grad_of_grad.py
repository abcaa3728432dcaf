"""Gradient checks of functions that take gradients (second derivatives)."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("grad_of_grad_tanh", "g_tanh", [n(3, 4), n(3, 4)], argnums=[0, 1],
         full=[0, 1], arg_names=["x", "w"])
gc.check("grad_of_grad_mlp", "h_mlp",
         [n(4, 3), n(3), n(5, 4), np.array([0, 2, 1, 1, 0], np.int32)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["w", "b", "x"])
gc.run()
gc.finish()
