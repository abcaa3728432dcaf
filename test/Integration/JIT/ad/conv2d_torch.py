"""nn.conv2d (and nn.flatten) forward and gradients against PyTorch (f64)."""

import numpy as np
import torch
import torch.nn.functional as F

from trellis_testing.run import Session

s = Session.from_argv()
x, w, b = s.randn(2, 7, 6, 3), s.randn(3, 2, 3, 4), s.randn(4)
c = s.randn(2, 60)


def t64(a, grad=False):
    return torch.tensor(a.astype(np.float64), requires_grad=grad)


xt, wt, bt = t64(x, True), t64(w, True), t64(b, True)
# NHWC -> NCHW; padding (top 1, bottom 0, left 0, right 1); HWCF -> FCHW.
xp = F.pad(xt.permute(0, 3, 1, 2), (0, 1, 1, 0))
yt = F.conv2d(xp, wt.permute(3, 2, 0, 1), bt, stride=(2, 1),
              dilation=(1, 2)).permute(0, 2, 3, 1)
(yt.reshape(2, 60) * t64(c)).mean().backward()

y, = s.run("forward", x, w, b, results=1)
s.close("conv2d.forward", y, yt.detach().numpy())
gx, gw, gb = s.run("grad", x, w, b, c, results=3)
s.close("conv2d.dx", gx, xt.grad.numpy())
s.close("conv2d.dw", gw, wt.grad.numpy())
s.close("conv2d.db", gb, bt.grad.numpy())


def torch_grads(w, pad, dilation, c):
    """dx, dw of mean(flatten(conv2d(x)) * c) with stride 1; pad is
    (top, bottom, left, right)."""
    xt, wt = t64(x, True), t64(w, True)
    xp = F.pad(xt.permute(0, 3, 1, 2), (pad[2], pad[3], pad[0], pad[1]))
    y = F.conv2d(xp, wt.permute(3, 2, 0, 1), t64(b), dilation=dilation).permute(0, 2, 3, 1)
    (y.reshape(2, -1) * t64(c)).mean().backward()
    return xt.grad.numpy(), wt.grad.numpy()


for name, shape, pad, dil, n in (("s1", (3, 2, 3, 4), (2, 1, 0, 1), (1, 2), 160),
                                 ("pad1x1", (1, 1, 3, 4), (1, 0, 0, 0), (1, 1), 192)):
    wk, ck = s.randn(*shape), s.randn(2, n)
    want = torch_grads(wk, pad, dil, ck)
    got = s.run(f"grad_{name}", x, wk, b, ck, results=2)
    s.close(f"conv2d_{name}.dx", got[0], want[0])
    s.close(f"conv2d_{name}.dw", got[1], want[1])
s.finish()
