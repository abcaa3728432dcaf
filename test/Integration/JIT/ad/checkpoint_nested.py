"""Gradient check through nested ad.checkpoint regions."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
gc.check("checkpoint_nested", "loss_checkpoint_nested",
         [n(2, 3), n(3, 3), n(2, 3)], argnums=[0, 1], full=[0, 1],
         arg_names=["x", "w"])
gc.run()
gc.finish()
