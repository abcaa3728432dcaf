"""Gradient checks of fan-out, unused and integer arguments, argnums,
nested calls, ad.checkpoint, has_aux and ad.vjp."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn

gc.check("fan_out", "loss_fan_out", [n(3, 4), n(3, 4)], argnums=[0],
         full=[0], arg_names=["x"])
gc.check("unused", "loss_unused", [n(3, 4), n(2, 2), n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["x", "u"])
ids = np.array([3, 1, 3, 0], np.int32)
labels = np.array([4, 0, 2, 2], np.int32)
key = np.array([5, 6], np.int32)
# argnums out of order: the gradients come back as (b, a).
gc.check("integer_args", "loss_integer_args",
         [ids, n(4, 5), labels, n(4, 5), key], argnums=[3, 1], full=[1, 3],
         arg_names=["ids", "a", "labels", "b", "key"])

x, c = n(3, 4), n(3, 4)
default = gc.call("grad_default_argnums", [x, c], results=1)
gc.check("default_argnums", "loss_fan_out", [x, c], argnums=[0], full=[0],
         arg_names=["x"], grads_from=(default, [0]))

gc.check("nested_call", "loss_nested_call",
         [n(3, 4), n(4, 4, scale=0.5), n(4), n(3, 4)],
         argnums=[0, 1, 2], full=[0, 1, 2], arg_names=["x", "w", "b"])
gc.check("checkpoint", "loss_checkpoint",
         [n(3, 4), n(3, 4), n(4, 4, scale=0.5), n(4), n(3, 4)],
         argnums=[0, 1, 2, 3], full=[0, 1, 2, 3],
         arg_names=["x", "h", "w", "b"])

gc.check("serial_in_checkpoint", "loss_serial_in_checkpoint",
         [n(2, 3), n(2, 3), n(3, 3), n(2, 3)], argnums=[0, 1, 2],
         full=[0, 1, 2], arg_names=["x1", "x2", "w"])
gc.check("loss_is_argument", "loss_is_argument", [np.asarray(0.3), n(3)],
         argnums=[0, 1], full=[1], arg_names=["s", "x"])
gc.check("constant_loss", "loss_constant", [n(3)], argnums=[0], full=[0],
         arg_names=["x"])

# has_aux: gradients by FD of loss_aux's first result; values and aux
# against a plain call of loss_aux (same inputs, same ops: 1e-12).
w, xs, y = n(4, 3), n(5, 4), np.array([0, 2, 1, 1, 0], np.int32)
plain = gc.call("loss_aux", [w, xs, y], results=3)
ga = gc.call("grad_aux", [w, xs, y], results=4)
vg = gc.call("value_and_grad_aux", [w, xs, y], results=5)
gc.check("grad_has_aux", "loss_aux", [w, xs, y], argnums=[0, 1], full=[0],
         arg_names=["w", "x"], grads_from=(ga, [0, 1]))
gc.check("value_and_grad_has_aux", "loss_aux", [w, xs, y], argnums=[0, 1],
         full=[0], arg_names=["w", "x"], grads_from=(vg, [3, 4]))

# vjp of a nonlinear map: against FD of <u, f(x, w)> (nonlinear_dot).
xv, wv, u0, u1 = n(3, 4), n(4, 4, scale=0.5), n(3, 4), np.asarray(-0.7)
vjn = gc.call("vjp_nonlinear", [xv, wv, u0, u1], results=4)
gc.check("vjp_nonlinear", "nonlinear_dot", [xv, wv, u0, u1], argnums=[0, 1],
         full=[0, 1], arg_names=["x", "w"], grads_from=(vjn, [2, 3]))

# vjp with an integer primal: dx against FD of u·loss, dlabels all zeros.
xi, ui = n(4, 5), np.asarray(2.5)
vji = gc.call("vjp_integer_primal", [xi, labels, ui], results=3)
gc.check("vjp_integer_primal", "loss_labels_scaled", [xi, labels, ui],
         argnums=[0, 1], full=[0], arg_names=["x", "labels"],
         grads_from=(vji, [1, 2]))

# vjp of a linear map: against NumPy's Jᵀ·u.
xl, yl, v0, v1 = n(3, 4), n(4), n(3, 2), n(4)
vjl = gc.call("vjp_linear", [xl, yl, v0, v1], results=4)
gc.run()

if plain.results and vg.results and ga.results:
    gc.close("value_and_grad_has_aux.value", vg.results[0], plain.results[0])
    gc.close("value_and_grad_has_aux.aux0", vg.results[1], plain.results[1])
    gc.close("value_and_grad_has_aux.aux1", vg.results[2], plain.results[2])
    gc.close("grad_has_aux.aux0", ga.results[2], plain.results[1])
    gc.close("grad_has_aux.aux1", ga.results[3], plain.results[2])
if vjl.results:
    M = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25], [2.0, 1.0]])
    gc.close("vjp_linear.r0", vjl.results[0], xl @ M)
    gc.close("vjp_linear.r1", vjl.results[1], 2.0 * yl - xl[1])
    dx = v0 @ M.T
    dx[1] -= v1
    gc.close("vjp_linear.dx", vjl.results[2], dx)
    gc.close("vjp_linear.dy", vjl.results[3], 2.0 * v1)
gc.finish()
