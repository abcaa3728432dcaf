"""Gradient checks of nn.dense (x of rank 1, 2, 3) and the activations."""

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("dense2", "loss_dense2", [n(5, 4), n(4, 3), n(3), n(5, 3)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "w", "b"])
gc.check("dense3", "loss_dense3", [n(2, 3, 4), n(4, 5), n(5), n(2, 3, 5)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "w", "b"])
gc.check("dense1", "loss_dense1", [n(4), n(4, 3), n(3), n(3)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "w", "b"])
# relu: |x| >= 0.2, so x ± eps·v never crosses the kink.
gc.check("relu", "loss_relu", [gc.away_from_zero(4, 6), n(4, 6)],
         argnums=[0], full=[0], arg_names=["x"])
# gelu / tanh over [-4, 4] (both tails and the curved middle).
gc.check("gelu", "loss_gelu", [gc.uniform(-4, 4, 4, 6), n(4, 6)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("gelu_tanh", "loss_gelu_tanh", [gc.uniform(-4, 4, 4, 6), n(4, 6)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("tanh", "loss_tanh", [gc.uniform(-3, 3, 4, 6), n(4, 6)],
         argnums=[0], full=[0], arg_names=["x"])
gc.run()
gc.finish()
