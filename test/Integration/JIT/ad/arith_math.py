"""Gradient checks of the arith and math rules (tensors and generic bodies)."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn


def separated(shape, margin=0.2):
    """(a, b) with |a - b| >= margin everywhere (no ties for max/min/cmp)."""
    a = n(*shape)
    b = a + gc.away_from_zero(*shape, margin=margin)
    return a, b


def positive(*shape):
    return gc.uniform(0.5, 2.5, *shape)


ab = ["a", "b"]
for op in ["addf", "subf", "mulf"]:
    gc.check(op, f"loss_{op}", [n(3, 4), n(3, 4), n(3, 4)],
             argnums=[0, 1], full=[0, 1], arg_names=ab)
b_away = gc.away_from_zero(3, 4, margin=0.5)
gc.check("divf", "loss_divf", [n(3, 4), b_away, n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=ab)
for op in ["maximumf", "minimumf"]:
    a, b = separated((3, 4))
    gc.check(op, f"loss_{op}", [a, b, n(3, 4)], argnums=[0, 1], full=[0, 1],
             arg_names=ab)
gc.check("negf", "loss_negf", [n(3, 4), n(3, 4)], argnums=[0], full=[0],
         arg_names=ab)
a, b = separated((3, 4))
gc.check("select", "loss_select", [a, b, n(3, 4)], argnums=[0, 1],
         full=[0, 1], arg_names=ab)
gc.check("select_scalar_cond", "loss_select_scalar_cond",
         [n(3, 4), n(3, 4), np.asarray(0.5), n(3, 4)], argnums=[0, 1],
         full=[0, 1], arg_names=ab)
a, b = separated((3, 4))
gc.check("maxnumf_minnumf", "loss_maxnumf_minnumf", [a, b, n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=ab)
gc.check("exp", "loss_exp", [n(3, 4), n(3, 4)], argnums=[0], full=[0],
         arg_names=ab)
for op in ["log", "sqrt", "rsqrt"]:
    gc.check(op, f"loss_{op}", [positive(3, 4), n(3, 4)], argnums=[0],
             full=[0], arg_names=ab)
gc.check("tanh", "loss_tanh", [gc.uniform(-3, 3, 3, 4), n(3, 4)],
         argnums=[0], full=[0], arg_names=ab)
gc.check("erf", "loss_erf", [gc.uniform(-2, 2, 3, 4), n(3, 4)], argnums=[0],
         full=[0], arg_names=ab)
gc.check("powf", "loss_powf", [positive(3, 4), gc.uniform(-1.5, 2.5, 3, 4),
                               n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=ab)

# Generic bodies: r (broadcast over rows) is kept away from 0 and from a.
a = n(3, 4)
r = gc.away_from_zero(4, margin=0.5)
while np.min(np.abs(a - r)) < 0.2:
    a = n(3, 4)
gc.check("generic_arith", "loss_generic_arith", [a, r, n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "r"])
gc.check("generic_math", "loss_generic_math",
         [gc.uniform(-1.5, 1.5, 3, 4), positive(4), n(3, 4)],
         argnums=[0, 1], full=[0, 1], arg_names=["a", "r"])
gc.run()
gc.finish()
