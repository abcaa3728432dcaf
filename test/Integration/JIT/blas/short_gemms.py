"""Runs short-gemms.mlir's @grads with --short-gemms=direct and =transposed
and compares both with float64 NumPy backpropagation."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session, run_entry

SIZES = (48, 160, 160, 160, 10)
BATCH = 16

s = Session.from_argv()
params, x, y = s.dense_chain(SIZES, BATCH)
inputs = params + [x, y]

# float64 forward and backward passes.
want_loss, want_grads = ref.dense_relu_chain_grads(params, x, y)

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
