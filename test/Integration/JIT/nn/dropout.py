"""nn.dropout (dropout.mlir) vs the NumPy Threefry-2x32 mask."""

import math

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import RTOL, Session

s = Session.from_argv()


def check(entry, x, key, rate, tag=None):
    """Runs `entry`; its zero pattern must be the reference's drop pattern
    exactly and its kept values x/(1-rate). Returns the result."""
    tag = tag or entry
    y, = s.run(entry, x, key, results=1)
    keep = ref.dropout_keep(x.shape, key, rate)
    s.equal(f"{tag}.mask", np.asarray(y) != 0, keep)   # x has no zeros
    # No floor: dropped elements must be exactly 0, kept ones relative.
    s.close(f"{tag}.values", y, ref.dropout(x, key, rate), floor=0.0,
            rtol=RTOL[x.dtype.type], dtype=x.dtype)
    return y


rate = 0.3
x = s.randn(256, 1024)
assert np.all(x != 0)
key = np.array([0x2545F491, 0x9E3779B9], dtype=np.uint32)
y = check("dropout_ui32", x, key, rate)

kept = np.count_nonzero(y) / y.size
sigma = math.sqrt(rate * (1 - rate) / y.size)
s.expect("dropout_ui32.keep_rate", abs(kept - (1 - rate)) <= 5 * sigma,
         f"{kept:.5f} vs {1 - rate} (5 sigma = {5 * sigma:.5f})")

y_again, = s.run("dropout_ui32", x, key, results=1)
s.equal("dropout_ui32.same_key_same_result", y_again, y)

other = np.array([0x2545F491, 0x9E3779BA], dtype=np.uint32)  # one bit apart
y_other = check("dropout_ui32", x, other, rate, tag="dropout_ui32.other_key")
differ = np.count_nonzero((y_other != 0) != (y != 0)) / y.size
# Independent masks differ at 2·rate·(1-rate) = 42% of the positions.
s.expect("dropout_ui32.other_key_differs", abs(differ - 0.42) < 0.01,
         f"{differ:.4f} of the positions")

key_i32 = np.array([-123456789, 2024], dtype=np.int32)      # high bit set
y_i32 = check("dropout_i32", x, key_i32, rate)
y_u32, = s.run("dropout_ui32", x, key_i32.view(np.uint32), results=1)
s.equal("dropout_i32.same_bits_as_ui32", y_i32, y_u32)

x0 = s.randn(8, 16)
y0, = s.run("dropout_rate0", x0, key, results=1)
s.equal("dropout_rate0.identity", y0, x0)

check("dropout_rank3", s.randn(3, 5, 7), np.array([7, 42], np.uint32), 0.5)
check("dropout_rank3_f64", s.rng.standard_normal((3, 5, 7)),
      np.array([-1, 0], np.int32), 0.8)
s.finish()
