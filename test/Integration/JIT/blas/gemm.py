"""Runs the GEMMs of gemm.mlir and compares them with float64 NumPy."""

import os
import sys

import numpy as np

from trellis_testing.run import Session

s = Session.from_argv()
if s.dtype == np.float64:
    # Scalars and block arguments too, not only the tensor types.
    s.model = os.path.join(s.workdir, "gemm_f64.mlir")
    with open(sys.argv[1]) as src, open(s.model, "w") as dst:
        dst.write(src.read().replace("f32", "f64"))
n = s.randn
f64 = np.float64


def check(name, *inputs, want):
    got, = s.run(name, *inputs, results=1)
    s.close(name, got, want)


a, b, c = n(5, 7), n(7, 3), n(5, 3)
A, B, C = a.astype(f64), b.astype(f64), c.astype(f64)
check("mm", a, b, want=A @ B)
check("mm_acc", a, b, c, want=C + A @ B)
check("mm_ta", np.ascontiguousarray(a.T), b, c, want=C + A @ B)
check("mm_tb", a, np.ascontiguousarray(b.T), c, want=C + A @ B)
check("mm_tab", np.ascontiguousarray(a.T), np.ascontiguousarray(b.T), want=A @ B)
check("mm_ct", a, b, np.ascontiguousarray(c.T), want=(C + A @ B).T)

big_a, big_b, big_c = n(8, 12), n(20, 9), n(6, 10)
want = big_c.astype(f64)
want[1:6, 5:8] += big_a[1:6, 2:9].astype(f64) @ big_b[3:17:2, 4:7].astype(f64)
check("mm_slices", big_a, big_b, big_c, want=want)

a12 = n(12, 7)
check("mm_loop_slices", a12, b, want=a12.astype(f64) @ B)

ga, gb, gc = n(67, 300), n(300, 129), n(67, 129)
check("mm_big", ga, gb, gc, want=gc.astype(f64) + ga.astype(f64) @ gb.astype(f64))

ba, bb, bc = n(3, 4, 5), n(3, 5, 6), n(3, 4, 6)
check("bmm", ba, bb, bc, want=bc.astype(f64) + ba.astype(f64) @ bb.astype(f64))

q, k = n(2, 8, 4, 16), n(2, 12, 4, 16)
check("heads", q, k, want=np.einsum("bihd,bjhd->bhij", q.astype(f64), k.astype(f64)))

wide = n(5, 14)
check("mm_col_step", wide, b, c, want=C + wide[:, ::2].astype(f64) @ B)
s.finish()
