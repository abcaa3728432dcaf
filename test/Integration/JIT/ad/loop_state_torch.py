"""A loop of reversible blocks carrying batch norm's running statistics,
against PyTorch (f64, autograd)."""

import numpy as np
import torch
import torch.nn.functional as F

from trellis_testing.run import Session

s = Session.from_argv()


def t64(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


x1, x2 = s.randn(2, 4), s.randn(2, 4)
scale, shift = s.randn(4) * 0.5 + 1.0, s.randn(4) * 0.1
mean, var = s.randn(4) * 0.1, np.abs(s.randn(4)) + 0.5

a, c = t64(x1, True), t64(x2, True)
st, bt = t64(scale, True), t64(shift, True)
rm, rv = t64(mean), t64(var)
inputs = (a, c)
for _ in range(3):  # a, c -> c, a + tanh(batch_norm(c)); the statistics move each time
    y = F.batch_norm(c, rm, rv, st, bt, training=True, momentum=0.1, eps=1e-5)
    a, c = c, a + torch.tanh(y)
loss = (a * c).mean()
loss.backward()

got = s.run("step", x1, x2, scale, shift, mean, var, results=7)
s.close("loop.loss", got[0], np.float64(loss.item()))
s.close("loop.state", np.concatenate(got[1:3]), np.concatenate([rm.numpy(), rv.numpy()]))
for name, g, t in zip(("dx1", "dx2", "dscale", "dshift"), got[3:], (*inputs, st, bt)):
    s.close("loop." + name, g, t.grad.numpy())
s.finish()
