"""Gradient checks of nn.embedding and nn.attention."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

# Row 1 is gathered three times, row 3 twice, row 2 never (zero gradient).
ids = np.array([[1, 0, 1, 3, 1], [3, 0, 0, 1, 0]], np.int32)
gc.check("embedding", "loss_embedding", [ids, n(4, 3), n(2, 5, 3)],
         argnums=[1], full=[1], arg_names=["ids", "table"])
# -1 and -7 read row 0, 4 and 9 read row 3 (ids are clamped to [0, V)).
ids_oob = np.array([[-1, 4, 2, 9, 2], [-7, 1, 4, 0, 2]], np.int32)
gc.check("embedding_clamped", "loss_embedding", [ids_oob, n(4, 3), n(2, 5, 3)],
         argnums=[1], full=[1], arg_names=["ids", "table"])


def check_attention(name, q_shape, kv_shape):
    """The gradients of q, k and v of @loss_<name>(q, k, v, cotangent)."""
    gc.check(name, "loss_" + name,
             [n(*q_shape), n(*kv_shape), n(*kv_shape), n(*q_shape)],
             argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["q", "k", "v"])


check_attention("attention", (2, 3, 4), (2, 3, 4))
check_attention("attention_causal", (2, 3, 4), (2, 3, 4))
check_attention("attention_cross", (2, 2, 4), (2, 3, 4))
check_attention("attention_one_head", (1, 4, 3), (1, 4, 3))
gc.check("self_attention", "loss_self_attention", [n(2, 3, 4), n(2, 3, 4)],
         argnums=[0], full=[0], arg_names=["x"])
gc.check("self_attention_causal", "loss_self_attention_causal",
         [n(2, 3, 4), n(2, 3, 4)], argnums=[0], full=[0], arg_names=["x"])
gc.run()
gc.finish()
