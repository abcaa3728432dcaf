"""Gradient checks of nn.dropout (fixed keys)."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

key = np.array([12345, -678], np.int32)
gc.check("dropout", "loss_dropout", [n(4, 8), key, n(4, 8)],
         argnums=[0], full=[0], arg_names=["x", "key"])
r3 = gc.check("dropout_rank3", "loss_dropout_rank3",
              [n(2, 3, 5), np.array([7, 42], np.int32), n(2, 3, 5)],
              argnums=[0], full=[0], arg_names=["x", "key"])
gc.check("dropout_ui32", "loss_dropout_ui32",
         [n(4, 8), np.array([0xDEADBEEF, 3], np.uint32), n(4, 8)],
         argnums=[0], full=[0], arg_names=["x", "key"])
gc.check("dropout_chain", "loss_dropout_chain", [n(4, 8), key, n(8), n(4, 8)],
         argnums=[0], full=[0], arg_names=["x", "key", "s"])
gc.run()
if r3.grads is not None:
    zeros = int(np.count_nonzero(r3.grads[0] == 0))
    gc.expect("dropout_rank3.mask_has_both", 0 < zeros < r3.grads[0].size,
              f"{zeros} of {r3.grads[0].size} gradient entries are zero")
gc.finish()
