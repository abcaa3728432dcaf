"""Gradient checks of the tensor-dialect rules."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("extract", "loss_extract", [n(3, 4)], argnums=[0], full=[0],
         arg_names=["a"])
gc.check("insert", "loss_insert", [n(3, 4), np.asarray(0.8), n(3, 4)],
         argnums=[0, 1], full=[0], arg_names=["a", "s"])
gc.check("extract_slice", "loss_extract_slice", [n(4, 7), n(2, 3)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("slices_rank_reducing", "loss_slices_rank_reducing", [n(3, 4), n(4)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("insert_slice", "loss_insert_slice", [n(4, 6), n(2, 3), n(4, 6)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "b"])
gc.check("expand_shape", "loss_expand_shape", [n(6, 4), n(2, 3, 4)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("collapse_shape", "loss_collapse_shape", [n(2, 3, 4), n(2, 12)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("concat", "loss_concat", [n(3, 2), n(3, 4), n(2, 6), n(5, 6)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["a", "b", "d"])
# c > 0, so the 12 contributions to the splatted scalar do not cancel.
gc.check("splat", "loss_splat", [np.asarray(0.7), n(3, 4), gc.uniform(0.5, 1.5, 3, 4)],
         argnums=[0], arg_names=["s"])
gc.run()
gc.finish()
