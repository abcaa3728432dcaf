"""Gradient checks of reversible_half_residual / swap / serial."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("half_residual", "loss_half_residual",
         [n(3, 4), n(3, 4), n(3, 4), n(4, 4, scale=0.5), n(4),
          n(3, 4), n(3, 4), n(3, 4)],
         argnums=[0, 1, 2, 3, 4], full=[1, 2, 3],
         arg_names=["acc", "ctx1", "ctx2", "w", "b"])
gc.check("swap", "loss_swap", [n(3, 4), n(2, 5), n(2, 5), n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "b"])
gc.check("serial", "loss_serial",
         [n(3, 4), n(3, 4), n(4, 4, scale=0.5), n(4), n(3, 4), n(3, 4)],
         argnums=[0, 1, 2, 3], full=[0, 1, 2],
         arg_names=["x1", "x2", "w", "b"])
gc.check("serial_nested", "loss_serial_nested",
         [n(3, 4), n(3, 4), n(4, 4, scale=0.5), n(4), n(4, 4, scale=0.5),
          n(4), n(3, 4), n(3, 4)],
         argnums=[0, 1, 2, 3, 4, 5], full=[0, 2, 4],
         arg_names=["x1", "x2", "w", "b", "w2", "b2"])
gc.check("serial3", "loss_serial3",
         [n(2, 4), n(2, 4), n(2, 4), n(4, 4, scale=0.5), n(4),
          n(2, 4), n(2, 4), n(2, 4)],
         argnums=[0, 1, 2, 3, 4], full=[0, 1, 2],
         arg_names=["x1", "x2", "x3", "w", "b"])
gc.check("half_residual_identity", "loss_half_residual_identity",
         [n(2, 3), n(2, 3), n(2, 3), n(2, 3)], argnums=[0, 1, 2],
         full=[0, 1, 2], arg_names=["x", "ctx", "w"])
gc.run()
gc.finish()
