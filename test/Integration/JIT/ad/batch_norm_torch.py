"""nn.batch_norm (training and inference) against PyTorch's F.batch_norm (f64)."""

import numpy as np
import torch
import torch.nn.functional as F

from trellis_testing.run import Session

s = Session.from_argv()


def t64(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def torch_bn(x, scale, bias, mean, var, c, training, momentum, eps):
    """y, new running mean/var and the gradients of x, scale, bias under
    the loss mean(y * c); x is NHWC (or NxC), PyTorch's channels are dim 1."""
    xt, st, bt = t64(x, True), t64(scale, True), t64(bias, True)
    rm, rv = t64(mean), t64(var)
    xc = xt.permute(0, 3, 1, 2) if x.ndim == 4 else xt
    y = F.batch_norm(xc, rm, rv, st, bt, training=training,
                     momentum=momentum, eps=eps)
    if x.ndim == 4:
        y = y.permute(0, 2, 3, 1)
    (y.reshape(c.shape) * t64(c)).mean().backward()
    return (y.detach().numpy(), rm.numpy(), rv.numpy(),
            xt.grad.numpy(), st.grad.numpy(), bt.grad.numpy())


x = s.randn(4, 3, 5, 6) * 2 + 0.5
scale, bias = s.randn(6), s.randn(6)
mean = s.randn(6) * 0.1
var = np.abs(s.randn(6)) + 0.5
c = s.randn(4, 90)

want = torch_bn(x, scale, bias, mean, var, c, True, 0.3, 1e-3)
got = s.run("train_forward", x, scale, bias, mean, var, results=3)
for name, g, w in zip(("y", "new_mean", "new_var"), got, want[:3]):
    s.close("train." + name, g, w)
got = s.run("train_grad", x, scale, bias, mean, var, c, results=3)
for name, g, w in zip(("dx", "dscale", "dbias"), got, want[3:]):
    s.close("train." + name, g, w)

want = torch_bn(x, scale, bias, mean, var, c, False, 0.1, 1e-3)
y, nm, nv = s.run("eval_forward", x, scale, bias, mean, var, results=3)
s.close("eval.y", y, want[0])
s.expect("eval.state_unchanged",
         np.array_equal(nm, mean.astype(nm.dtype)) and
         np.array_equal(nv, var.astype(nv.dtype)),
         "inference returns mean and var unchanged")
got = s.run("eval_grad", x, scale, bias, mean, var, c, results=3)
for name, g, w in zip(("dx", "dscale", "dbias"), got, want[3:]):
    s.close("eval." + name, g, w)

x2 = s.randn(7, 5)
s2, b2, m2 = s.randn(5), s.randn(5), s.randn(5)
v2 = np.abs(s.randn(5)) + 0.5
c2 = s.randn(7, 5)
want = torch_bn(x2, s2, b2, m2, v2, c2, True, 0.1, 1e-5)
y, nm, nv = s.run("rank2_forward", x2, s2, b2, m2, v2, results=3)
s.close("rank2.y", y, want[0])
s.close("rank2.new_var", nv, want[2])
g, = s.run("rank2_grad", x2, s2, b2, m2, v2, c2, results=1)
s.close("rank2.dx", g, want[3])
s.finish()
