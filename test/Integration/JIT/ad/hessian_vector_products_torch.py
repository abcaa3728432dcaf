"""H·v of a Transformer block loss against PyTorch's double backward (f64).

The model is hessian_vector_products.mlir's @f_block; @hvp_block_hessian
returns ∂/∂θ <∂f/∂θ', v> for the seven parameters θ (θ' = x, wq, wk, wv,
w1 carry directions v). PyTorch computes the same with
torch.autograd.grad(..., create_graph=True) twice. Both are f64; the
bound 1e-9 relative (denominators floored at 1% of the RMS) leaves room
for summation order only.
"""

import numpy as np
import torch

from trellis_testing.gradcheck import GradCheck

RTOL = 1e-9
LN_EPS = float(np.float32(1e-6))  # nn.layer_norm's default, an f32 attribute

gc = GradCheck.from_argv()
n = gc.randn
block = [n(2, 4, 8), 0.5 * n(8, 8), 0.5 * n(8, 8), 0.5 * n(8, 8),
         1.0 + 0.1 * n(8), 0.3 * n(8, 16), 0.3 * n(16, 8), n(2, 4, 8)]
dirs = [n(2, 4, 8), n(8, 8), n(8, 8), n(8, 8), n(8, 16)]
call = gc.call("hvp_block_hessian", block + dirs, results=7)
gc.run()


def f_block(x, wq, wk, wv, s, w1, w2, c):
    heads, batch, length, width = 2, 2, 4, 8
    dh = width // heads

    def split(t):
        return t.reshape(batch, length, heads, dh).transpose(1, 2)

    q, k, v = (split(x @ w + 0.1) for w in (wq, wk, wv))
    scores = q @ k.transpose(-1, -2) / np.sqrt(dh)
    future = torch.triu(torch.ones(length, length, dtype=torch.bool), 1)
    scores = scores.masked_fill(future, float("-inf"))
    a = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(
        batch, length, width)
    bias = torch.full((width,), 0.1, dtype=torch.float64)
    nrm = torch.nn.functional.layer_norm(x + a, (width,), s, bias, LN_EPS)
    g = torch.nn.functional.gelu(nrm @ w1 - 0.2)
    y = nrm + (g @ w2 + 0.1)
    return torch.mean(y * c) ** 2


params = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
          for a in block[:7]]
c = torch.tensor(block[7], dtype=torch.float64)
loss = f_block(*params, c)
with_dirs = [params[i] for i in (0, 1, 2, 3, 5)]
grads = torch.autograd.grad(loss, with_dirs, create_graph=True)
hvp = sum(torch.mean(g * torch.tensor(v)) for g, v in zip(grads, dirs))
want = torch.autograd.grad(hvp, params)
for name, got, w in zip(["x", "wq", "wk", "wv", "s", "w1", "w2"],
                        call.results, want):
    gc.close(f"hvp_block_torch.{name}", got, w.numpy(), rtol=RTOL)
gc.finish()
