"""RevNet blocks with batch norm inside an nn.reversible_serial against the
same network in PyTorch (f64, autograd with stored activations)."""

import numpy as np
import torch
import torch.nn.functional as F

from trellis_testing.run import Session

s = Session.from_argv()
MOMENTUM, EPS = 0.3, 1e-3


def t64(a, grad=False):
    return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)


def block(x, w, cb, scale, shift, rm, rv):
    """relu(batch_norm(conv2d(x))) on NHWC x with a KHxKWxCxF weight; updates
    the running statistics rm, rv in place (PyTorch's convention)."""
    h = F.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), cb, padding=1)
    y = F.batch_norm(h, rm, rv, scale, shift, training=True,
                     momentum=MOMENTUM, eps=EPS)
    return F.relu(y).permute(0, 2, 3, 1)


def torch_net(x1, x2, params, c1=None, c2=None):
    """(o1, o2), the new running statistics and, given c1, c2, the loss and
    the gradients of x1, x2 and the trainable parameters."""
    xs = [t64(x1, True), t64(x2, True)]
    p = [t64(a, k % 6 < 4) for k, a in enumerate(params)]
    o1 = xs[0] + block(xs[1], *p[0:6])
    o2 = xs[1] + block(o1, *p[6:12])
    state = [p[4].detach().numpy(), p[5].detach().numpy(),
             p[10].detach().numpy(), p[11].detach().numpy()]
    out = (o1.detach().numpy(), o2.detach().numpy(), state)
    if c1 is None:
        return out
    loss = (o1.reshape(2, -1) * t64(c1) + o2.reshape(2, -1) * t64(c2)).mean()
    loss.backward()
    grads = [xs[0].grad, xs[1].grad] + [p[k].grad for k in
                                        (0, 1, 2, 3, 6, 7, 8, 9)]
    return out + (loss.item(), [g.numpy() for g in grads])


x1, x2 = s.randn(2, 6, 6, 3), s.randn(2, 6, 6, 3)
params = []
for _ in range(2):
    params += [s.randn(3, 3, 3, 3) * 0.3, s.randn(3) * 0.1,
               s.randn(3) * 0.5 + 1.0, s.randn(3) * 0.1,
               s.randn(3) * 0.1, np.abs(s.randn(3)) + 0.5]
c1, c2 = s.randn(2, 108), s.randn(2, 108)

o1, o2, state = torch_net(x1, x2, params)
got = s.run("forward", x1, x2, *params, results=6)
s.close("forward.o1", got[0], o1)
s.close("forward.o2", got[1], o2)
s.close("forward.state", np.concatenate(got[2:6]), np.concatenate(state))

_, _, state, loss, grads = torch_net(x1, x2, params, c1, c2)
got = s.run("step", x1, x2, *params, c1, c2, results=15)
s.close("step.loss", got[0], np.float64(loss))
# One momentum update, as in PyTorch's single forward pass: the backward
# pass's recomputation of each block must not update the statistics again.
s.close("step.state", np.concatenate(got[1:5]), np.concatenate(state))
names = ["dx1", "dx2", "dw1", "dcb1", "dscale1", "dshift1",
         "dw2", "dcb2", "dscale2", "dshift2"]
for i, (name, g, w) in enumerate(zip(names, got[5:], grads)):
    # A conv bias followed by batch norm has a zero gradient (the batch mean
    # cancels it): held to rtol times its block's weight-gradient scale.
    floor = (float(np.sqrt(np.mean(grads[i - 1] ** 2)))
             if name.startswith("dcb") else None)
    s.close("step." + name, g, w, floor=floor)
s.finish()
