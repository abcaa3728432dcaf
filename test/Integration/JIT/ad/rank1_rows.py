"""softmax / log_softmax / layer_norm on one row; embedding of a 0-d id."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
gc.check("softmax_rank1", "loss_softmax_rank1", [n(5), n(5)], argnums=[0],
         full=[0], arg_names=["x"])
gc.check("log_softmax_rank1", "loss_log_softmax_rank1", [n(5), n(5)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("layer_norm_rank1", "loss_layer_norm_rank1",
         [n(5), n(5), n(5), n(5)], argnums=[0, 1, 2], full=[0, 1, 2],
         arg_names=["x", "scale", "bias"])
gc.check("embedding_0d_id", "loss_embedding_0d_id",
         [np.array(2, np.int32), n(4, 3), n(3)], argnums=[1], full=[1],
         arg_names=["id", "table"])
gc.run()
gc.finish()
