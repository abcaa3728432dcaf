"""Gradient checks of the linalg rules."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("matmul", "loss_matmul", [n(3, 4, scale=0.5), n(4, 5, scale=0.5),
                                   n(3, 5), n(3, 5)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["a", "b", "init"])
gc.check("batch_matmul", "loss_batch_matmul",
         [n(2, 3, 4, scale=0.5), n(2, 4, 5, scale=0.5), n(2, 3, 5),
          n(2, 3, 5)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["a", "b", "init"])
gc.check("transpose", "loss_transpose", [n(2, 3, 4), n(4, 2, 3)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("broadcast", "loss_broadcast", [n(3, 4), n(3, 5, 4)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("reduce", "loss_reduce", [n(3, 4, 5, scale=0.5), n(3, 5), n(3, 5)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "init"])
gc.check("fill", "loss_fill", [np.asarray(0.6), n(3, 4),
                               gc.uniform(0.5, 1.5, 3, 4)],
         argnums=[0], arg_names=["s"])
gc.check("generic_elementwise", "loss_generic_elementwise",
         [n(3, 4), n(4), n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "r"])
gc.check("generic_sum", "loss_generic_sum", [n(3, 4), n(4), n(3), n(3)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["a", "v", "init"])
# Max reduction: each column's maximum of a[i,j]·w[i] leads the runner-up
# by >= 0.3, so perturbations never change which element is the maximum.
w = gc.uniform(0.5, 1.5, 4)
while True:
    a = n(4, 5)
    prod = np.sort(a * w[:, None], axis=0)
    if np.all(prod[-1] - prod[-2] >= 0.3):
        break
gc.check("generic_max", "loss_generic_max", [a, w, n(5)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "w"])
gc.check("matmul_self", "loss_matmul_self", [n(3, 3), n(3, 3)], argnums=[0],
         full=[0], arg_names=["a"])
gc.check("reduce_two_dims", "loss_reduce_two_dims", [n(2, 3, 4, scale=0.3), n(3)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("broadcast_two_dims", "loss_broadcast_two_dims", [n(3), n(2, 3, 4)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("fill_over_argument", "loss_fill_over_argument",
         [np.asarray(0.4), n(3, 4), gc.uniform(0.5, 1.5, 3, 4)],
         argnums=[0, 1], full=[1], arg_names=["s", "a"])
# a, b > 0 and c > 0, so the contributions to the scalar s do not cancel.
gc.check("generic_misc", "loss_generic_misc",
         [gc.uniform(0.2, 1.0, 3, 4), gc.uniform(0.2, 1.0, 4, 3),
          np.asarray(0.8), gc.uniform(0.5, 1.5, 3, 4)],
         argnums=[0, 1, 2], full=[0, 1], arg_names=["a", "b", "s"])
gc.run()
gc.finish()
