"""Gradient checks of the math/arith rules of issue 19 (math_rules.mlir).

Each input keeps inside its op's domain and away from its kinks and steps,
so that the central difference (eps 1e-6) measures the derivative; the edge
points themselves are checked against exact values instead.
"""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn
S = (3, 4)


def magnitude(low, high):
    """Values with low <= |x| <= high, random signs."""
    return gc.uniform(low, high, *S) * np.where(gc.uniform(0, 1, *S) < 0.5,
                                                -1.0, 1.0)


def off_steps():
    """Values at least 0.1 from every integer and half-integer."""
    return np.floor(n(*S) * 2) + gc.uniform(0.1, 0.4, *S) + \
        np.where(gc.uniform(0, 1, *S) < 0.5, 0.0, 0.5)


def frac_ok(a, b):
    """a/b at least 0.05 from an integer (remf jumps there)."""
    q = np.abs(a / b)
    f = q - np.floor(q)
    return np.all((f > 0.05) & (f < 0.95))


domains = {
    "sin": gc.uniform(-2, 2, *S), "cos": gc.uniform(-2, 2, *S),
    "tan": gc.uniform(-1.2, 1.2, *S), "absf": gc.away_from_zero(*S),
    "log1p": gc.uniform(-0.5, 2, *S), "expm1": gc.uniform(-2, 2, *S),
    "atan": gc.uniform(-2, 2, *S), "exp2": gc.uniform(-2, 2, *S),
    "log2": gc.uniform(0.5, 2.5, *S), "log10": gc.uniform(0.5, 2.5, *S),
    "sinh": gc.uniform(-2, 2, *S), "cosh": gc.uniform(-2, 2, *S),
    "asinh": gc.uniform(-2, 2, *S), "acosh": gc.uniform(1.2, 3, *S),
    "atanh": gc.uniform(-0.8, 0.8, *S), "asin": gc.uniform(-0.8, 0.8, *S),
    "acos": gc.uniform(-0.8, 0.8, *S), "cbrt": magnitude(0.3, 2),
    "erfc": gc.uniform(-2, 2, *S),
}
for op in ["ceil", "floor", "round", "roundeven", "trunc"]:
    domains[op] = off_steps()
for op, a in domains.items():
    gc.check(op, f"loss_{op}", [a, n(*S)], argnums=[0], full=[0],
             arg_names=["a"])

ab = ["a", "b"]
gc.check("atan2", "loss_atan2", [n(*S), gc.away_from_zero(*S), n(*S)],
         argnums=[0, 1], full=[0, 1], arg_names=ab)
gc.check("copysign", "loss_copysign",
         [gc.away_from_zero(*S), gc.away_from_zero(*S), n(*S)],
         argnums=[0, 1], full=[0, 1], arg_names=ab)
while True:
    a, b = gc.uniform(-3, 3, *S), gc.away_from_zero(*S, margin=0.5)
    if frac_ok(a, b):
        break
gc.check("remf", "loss_remf", [a, b, n(*S)], argnums=[0, 1], full=[0, 1],
         arg_names=ab)
gc.check("fma", "loss_fma", [n(*S), n(*S), n(*S), n(*S)], argnums=[0, 1, 2],
         full=[0, 1, 2], arg_names=["a", "b", "d"])
gc.check("fpowi", "loss_fpowi",
         [gc.away_from_zero(*S, margin=0.5), gc.randint(-2, 4, *S), n(*S)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("sincos", "loss_sincos", [n(*S), n(*S)], argnums=[0], full=[0],
         arg_names=["a"])

# The generic body: sin a (a away from 0) and r away from 0, so that the
# absf of atan2 and the copysign of the fma stay off their kinks.
while True:
    a, r = magnitude(0.3, 1.5), gc.away_from_zero(4, margin=0.5)
    t = np.log1p(np.abs(np.arctan2(np.sin(a), r))) * np.cbrt(r) + a
    if np.min(np.abs(t)) > 0.1:
        break
gc.check("generic_math", "loss_generic_math", [a, r, n(*S)], argnums=[0, 1],
         full=[0, 1], arg_names=["a", "r"])

# Second derivatives, away from the chains' singular points (asin and acos
# of cos(sin 0) = 1, acosh'(1), cbrt'(0)).
gc.check("second_order_trig", "second_order_trig", [magnitude(0.5, 1.2)],
         argnums=[0], full=[0], arg_names=["a"])
gc.check("second_order_hyperbolic", "second_order_hyperbolic",
         [magnitude(0.5, 1.5)], argnums=[0], full=[0], arg_names=["a"])
gc.check("second_order_exp_log", "second_order_exp_log",
         [magnitude(0.5, 1.5)], argnums=[0], full=[0], arg_names=["a"])
while True:
    a, b = n(*S), gc.away_from_zero(*S, margin=0.5)
    fused = np.copysign(np.arctan2(a, b), b) * np.fmod(a, b) + a
    if frac_ok(a, b) and np.min(np.abs(fused)) > 0.1:
        break
gc.check("second_order_binary", "second_order_binary", [a, b],
         argnums=[0, 1], full=[0, 1], arg_names=ab)

# Edge points, exact: absf and copysign give 0 at x = +-0 (the subgradient
# 0), sign(x)·sign(s) elsewhere (the sign of s = -0.0 is -1); the rounding
# ops nothing (only the "+ x" of f_rounding8 counts); fpowi n·x^(n-1), and 0
# for n = 0 even at x = 0 (not 0·0^-1 = NaN).
x = np.array([0.0, -0.0, 1.5, -2.5, 2.0, -1.0, 0.5, 3.0])
s = np.array([1.0, -1.0, -1.0, 1.0, -0.0, 0.0, 2.0, -3.0])
k = np.array([0, 0, 2, 3, 0, -1, 1, 2], dtype=np.int32)
edges = gc.call("edges", [x, s, k], results=4)
gc.run()
with np.errstate(divide="ignore", invalid="ignore"):
    fpowi = np.where(k == 0, 0.0, k * np.power(x, (k - 1).astype(float)))
for name, got, want in (
        ("absf", edges.results[0], np.sign(x)),
        ("copysign", edges.results[1], np.sign(x) * np.copysign(1.0, s)),
        ("rounding", edges.results[2], np.ones(8)),
        ("fpowi", edges.results[3], fpowi)):
    gc.expect(f"edges.{name}", np.array_equal(got, want),
              f"{np.asarray(got).tolist()} (want {want.tolist()})")
gc.finish()
