"""Loops with trip counts known at run time only."""

import numpy as np

from trellis_testing.gradcheck import GradCheck

gc = GradCheck.from_argv()
n = gc.randn


def i32(v):
    return np.array(v, np.int32)


for trips in (0, 1, 3, 5):
    gc.check(f"fori_{trips}", "f_fori", [n(3), n(3), i32(trips)],
             argnums=[0, 1], full=[0, 1], arg_names=["x", "w"])
for ub in (0, 1, 2, 4, 7):
    gc.check(f"strided_ub{ub}", "f_strided", [n(2, 2), 0.7 * n(2, 2), i32(ub)],
             argnums=[0, 1], full=[0, 1], arg_names=["x", "w"])
for trips in (0, 1, 4, 20):
    gc.check(f"while_count_{trips}", "f_while_count",
             [0.5 * n(3), 0.5 * n(3), i32(trips)],
             argnums=[0, 1], full=[0, 1], arg_names=["x", "w"])
# s0 = 0.7: 0 trips for bound 0.5, 1 for 1.0, 4 for 3.0, 9 for 20 (1.5^k·0.7).
for bound in (0.5, 1.0, 3.0, 20.0):
    gc.check(f"while_float_{bound:g}", "f_while_float",
             [np.array(0.7), n(3), np.array(bound)],
             argnums=[0, 1], full=[1], arg_names=["x", "w"])
gc.run()
gc.finish()
