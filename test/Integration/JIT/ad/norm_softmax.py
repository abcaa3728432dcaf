"""Gradient checks of layer_norm, softmax, log_softmax, cross_entropy, mean."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("layer_norm", "loss_layer_norm", [n(3, 5), n(5), n(5), n(3, 5)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "scale", "bias"])
gc.check("layer_norm3", "loss_layer_norm3",
         [n(2, 3, 4), n(4), n(4), n(2, 3, 4)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "scale", "bias"])
gc.check("softmax", "loss_softmax", [n(3, 5, scale=2.0), n(3, 5)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("softmax3", "loss_softmax3", [n(2, 2, 4, scale=2.0), n(2, 2, 4)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("log_softmax", "loss_log_softmax", [n(3, 5, scale=2.0), n(3, 5)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("log_softmax3", "loss_log_softmax3",
         [n(2, 2, 4, scale=2.0), n(2, 2, 4)],
         argnums=[0], full=[0], arg_names=["x"])
s = np.asarray(1.7)
gc.check("cross_entropy", "loss_cross_entropy",
         [n(4, 5, scale=2.0), np.array([0, 3, 4, 3], np.int32), s],
         argnums=[0, 2], full=[0], arg_names=["logits", "labels", "s"])
# Label 5 is outside [0, 5): that row's term is the log-sum-exp alone, so
# its gradient is softmax(row) without the one-hot.
gc.check("cross_entropy_oob_label", "loss_cross_entropy",
         [n(4, 5, scale=2.0), np.array([1, 5, 2, 0], np.int32), s],
         argnums=[0], full=[0], arg_names=["logits"])
gc.check("mean", "loss_mean", [n(2, 3, 4)], argnums=[0], full=[0],
         arg_names=["x"])
gc.run()
gc.finish()
