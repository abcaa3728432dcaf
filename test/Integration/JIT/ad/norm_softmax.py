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
# BxLxC logits with BxL labels (one outside [0, C)): the mean over all
# B·L positions.
logits3 = n(2, 3, 5, scale=2.0)
labels3 = np.array([[0, 4, 2], [3, 5, 1]], np.int32)
gc.check("cross_entropy3", "loss_cross_entropy3", [logits3, labels3, s],
         argnums=[0, 2], full=[0], arg_names=["logits", "labels", "s"])
logits1 = n(5, scale=2.0)
gc.check("cross_entropy1", "loss_cross_entropy1",
         [logits1, np.asarray(3, np.int32)], argnums=[0], full=[0],
         arg_names=["logits"])
h3 = gc.call("loss_cross_entropy3", [logits3, labels3, s], results=1)
h1 = gc.call("loss_cross_entropy1", [logits1, np.asarray(3, np.int32)],
             results=1)


def cross_entropy_ref(logits, labels):
    m = logits.max(axis=-1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(axis=-1, keepdims=True)))[..., 0]
    classes = np.arange(logits.shape[-1])
    picked = np.where(classes == labels[..., None], logits, 0.0).sum(axis=-1)
    return np.mean(lse - picked)


# Rows of variance ~1e-12, comparable with epsilon = 1e-12.
xs = 1e-6 * n(3, 8)
ls, lb = n(8), n(8)
hl = gc.call("layer_norm_eps", [xs, ls, lb], results=2)
gc.check("mean", "loss_mean", [n(2, 3, 4)], argnums=[0], full=[0],
         arg_names=["x"])
gc.run()
gc.close("cross_entropy3.value", h3.results[0],
         cross_entropy_ref(logits3, labels3) * s, rtol=1e-14)
gc.close("cross_entropy1.value", h1.results[0],
         cross_entropy_ref(logits1, np.asarray(3)), rtol=1e-14)
mu = xs.mean(axis=-1, keepdims=True)
var = ((xs - mu) ** 2).mean(axis=-1, keepdims=True)
ln_ref = (xs - mu) / np.sqrt(var + 1e-12) * ls + lb
gc.close("layer_norm_eps_f64.y", hl.results[0], ln_ref, rtol=1e-14)
gc.close("layer_norm_eps_f32attr.y", hl.results[1], ln_ref, rtol=1e-14)
gc.finish()
