"""Runs short-gemms.mlir's @grads with --short-gemms=direct and =transposed
and compares both with float64 NumPy backpropagation."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session, run_entry

SIZES = (48, 160, 160, 160, 10)
BATCH = 16

s = Session.from_argv()
params = []
for fan_in, fan_out in zip(SIZES, SIZES[1:]):
    params += [s.randn(fan_in, fan_out, scale=1 / np.sqrt(fan_in)), s.randn(fan_out, scale=0.1)]
x = s.randn(BATCH, SIZES[0])
y = s.randint(0, SIZES[-1], BATCH)
inputs = params + [x, y]

# float64 forward and backward passes.
ws = [p.astype(np.float64) for p in params[0::2]]
bs = [p.astype(np.float64) for p in params[1::2]]
acts, pre = [x.astype(np.float64)], []
for i, (w, b) in enumerate(zip(ws, bs)):
    h = acts[-1] @ w + b
    pre.append(h)
    acts.append(ref.relu(h) if i < len(ws) - 1 else h)
want_loss = ref.cross_entropy(acts[-1], y)
probs = ref.softmax(acts[-1])
dh = probs.copy()
dh[np.arange(BATCH), y] -= 1
dh /= BATCH
want_grads = [None] * len(params)
for i in reversed(range(len(ws))):
    want_grads[2 * i] = acts[i].T @ dh
    want_grads[2 * i + 1] = dh.sum(axis=0)
    if i:
        dh = (dh @ ws[i].T) * (pre[i - 1] > 0)

losses = {}
for form in ("direct", "transposed"):
    # The first run's inputs (00_in*.npy) serve the RUN lines' LLVM checks.
    results, _ = run_entry(s.model, "grads", inputs, s.workdir,
                           tag="00" if form == "direct" else form,
                           extra=[f"--short-gemms={form}"])
    losses[form] = results[0]
    s.close(f"{form}.loss", results[0], want_loss)
    worst = max(np.max(np.abs(g - w)) / np.max(np.abs(w)) for g, w in zip(results[1:], want_grads))
    s.expect(f"{form}.grads", worst <= (1e-5 if s.dtype == np.float32 else 1e-12),
             f"worst norm-relative error {worst:.2e}")
# The forward pass is the same code in both forms.
s.equal("same_bits_of_loss", losses["transposed"], losses["direct"])
s.finish()
