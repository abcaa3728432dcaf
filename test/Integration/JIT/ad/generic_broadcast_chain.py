"""Gradient check of x - rowmean(x) written as three linalg.generic ops."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
gc.check("center", "loss_center", [gc.randn(2, 5), gc.randn(2, 5)],
         argnums=[0], full=[0], arg_names=["x"])
gc.run()
gc.finish()
