"""nn.max_pool2d / nn.avg_pool2d forward and gradients against PyTorch (f64)."""

import numpy as np
import torch
import torch.nn.functional as F

from trellis_testing.run import Session

s = Session.from_argv()
x = s.randn(2, 7, 6, 3)
c_max, c_avg = s.randn(2, 54), s.randn(2, 42)


def t64(a, grad=False):
    return torch.tensor(a.astype(np.float64), requires_grad=grad)


def nchw(t):
    return t.permute(0, 3, 1, 2)


def nhwc(t):
    return t.permute(0, 2, 3, 1)


# Max: window (3, 2), strides (2, 1), padding top 1 and right 1 with -inf.
xt = t64(x, True)
ym = nhwc(F.max_pool2d(F.pad(nchw(xt), (0, 1, 1, 0), value=-np.inf),
                       (3, 2), stride=(2, 1)))
(ym.reshape(2, 54) * t64(c_max)).mean().backward()
y, = s.run("max_forward", x, results=1)
s.close("max_pool2d.forward", y, ym.detach().numpy())
g, = s.run("max_grad", x, c_max, results=1)
s.close("max_pool2d.dx", g, xt.grad.numpy())

# Avg: window (2, 3), strides (1, 3), padding bottom 1 and left 1 with zeros.
xt = t64(x, True)
ya = nhwc(F.avg_pool2d(F.pad(nchw(xt), (1, 0, 0, 1)), (2, 3), stride=(1, 3)))
(ya.reshape(2, 42) * t64(c_avg)).mean().backward()
y, = s.run("avg_forward", x, results=1)
s.close("avg_pool2d.forward", y, ya.detach().numpy())
g, = s.run("avg_grad", x, c_avg, results=1)
s.close("avg_pool2d.dx", g, xt.grad.numpy())

y, = s.run("max_default", x, results=1)
s.close("max_pool2d.default_strides", y,
        nhwc(F.max_pool2d(nchw(t64(x)), 2)).numpy())

# A NaN in a window is its maximum, as in PyTorch.
xn = x.copy()
xn[0, 2, 3, 1] = np.nan
y, = s.run("max_forward", xn, results=1)
want = nhwc(F.max_pool2d(F.pad(nchw(t64(xn)), (0, 1, 1, 0), value=-np.inf),
                         (3, 2), stride=(2, 1))).numpy()
s.expect("max_pool2d.nan_positions",
         np.array_equal(np.isnan(y), np.isnan(want)),
         f"{np.isnan(y).sum()} NaNs, PyTorch {np.isnan(want).sum()}")
mask = ~np.isnan(want)
s.close("max_pool2d.nan", np.where(mask, y, 0), np.where(mask, want, 0))


def tiled_grad(pool, x6, c):
    """PyTorch's gradient of mean(flatten(pool(x, (2, 3))) * c)."""
    xt = t64(x6, True)
    (nhwc(pool(nchw(xt), (2, 3))).reshape(2, 18) * t64(c)).mean().backward()
    return xt.grad.numpy()


x6, c6 = s.randn(2, 6, 6, 3), s.randn(2, 18)
g, = s.run("max_tiled_grad", x6, c6, results=1)
s.close("max_pool2d.tiled_dx", g, tiled_grad(F.max_pool2d, x6, c6))
# A window of equal values: its cotangent goes to the first element only.
x6t = x6.copy()
x6t[0, 0:2, 0:3, 0] = 1.0
g, = s.run("max_tiled_grad", x6t, c6, results=1)
s.close("max_pool2d.tiled_ties_dx", g, tiled_grad(F.max_pool2d, x6t, c6))
g, = s.run("avg_tiled_grad", x6, c6, results=1)
s.close("avg_pool2d.tiled_dx", g, tiled_grad(F.avg_pool2d, x6, c6))
s.finish()
