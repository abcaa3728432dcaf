"""nn.sigmoid's forward and gradient against PyTorch (float64 autograd)."""

import numpy as np
import torch

from trellis_testing.run import Session

s = Session.from_argv()
x = np.concatenate([
    np.linspace(-12.0, 12.0, 30),
    [0.0, -0.0, 1e-6, -1e-6, 50.0, -50.0, 20.0, -20.0, 88.0 / 2, -30.0],
    s.rng.uniform(-40.0, 40.0, 23)]).astype(s.dtype).reshape(7, 9)
c = s.randn(7, 9)

xt = torch.tensor(x.astype(np.float64), requires_grad=True)
yt = torch.sigmoid(xt)
(yt * torch.tensor(c.astype(np.float64))).mean().backward()

y, = s.run("forward", x, results=1)
s.close("sigmoid.forward", y, yt.detach().numpy(), floor=0.0)
g, = s.run("grad", x, c, results=1)
s.close("sigmoid.grad", g, xt.grad.numpy())
s.finish()
