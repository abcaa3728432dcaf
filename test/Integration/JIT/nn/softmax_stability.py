"""softmax / log_softmax / mean on large-magnitude rank-3 inputs."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
x = s.randn(4, 6, 32, scale=3.0)
x[0] += 1000.0                                   # exp(1000) overflows
x[1] -= 1000.0                                   # exp(-1000) underflows
x[2] = s.rng.uniform(-1000.0, 1000.0, (6, 32))   # one-hot-like rows
x[3, :, :16] += 995.0                            # two clusters per row
x[3, :, 16:] -= 5.0
x[3, 0, :] = 88.0                                # a constant row: uniform
with np.errstate(over="raise", under="ignore"):  # the reference must not
    want_p, want_lp = ref.softmax(x), ref.log_softmax(x)   # overflow either
    want_m = ref.mean(x)

p, lp, m, mp = s.run("normalize", x, results=4)
# Probabilities: elementwise relative for p >= 1e-3, absolute 1e-3·rtol below
# (the RMS is dominated by the near-one-hot rows). Log-probabilities: relative
# for |lp| >= 1, absolute rtol below (the RMS, ~60, would be far too lax).
s.close("normalize.softmax", p, want_p, floor=1e-3)
row_sums = np.asarray(p, np.float64).sum(axis=-1)
s.close("normalize.softmax_rows_sum_to_1", row_sums, np.ones_like(row_sums),
        dtype=np.float64)
s.close("normalize.log_softmax", lp, want_lp, floor=1.0)
# The mean of values of magnitude ~1000 that cancel: error measured against
# the mean magnitude of the elements (the scale a sum's rounding error has).
s.close("normalize.mean", m, want_m, floor=np.abs(x.astype(np.float64)).mean())
s.close("normalize.mean_of_softmax", mp, ref.mean(want_p))
s.finish()
