"""Runs sgd-in-gemm.mlir's @sgd_step, once and three times on the same
inputs, and compares the loss and the new parameters with float64 NumPy."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session, run_entry

SIZES = (48, 160, 160, 160, 10)
BATCH = 16
LR = 0.5

s = Session.from_argv()
params, x, y = s.dense_chain(SIZES, BATCH)
inputs = params + [x, y]

# float64 forward and backward passes.
want_loss, grads = ref.dense_relu_chain_grads(params, x, y)
# The updates themselves (new - old) against -LR * gradient: a wrong alpha,
# a lost update or a stale weight shows at full size, not in the rounding
# of the weight.
want_steps = [-LR * g for g in grads]
tolerance = 1e-5 if s.dtype == np.float32 else 1e-12


def step_error(results):
    return max(np.max(np.abs((new.astype(np.float64) - old.astype(np.float64)) - want)) / np.max(np.abs(want))
               for new, old, want in zip(results[1:], params, want_steps))


# The first run's inputs (00_in*.npy) serve the RUN lines' LLVM check.
results, _ = run_entry(s.model, "sgd_step", inputs, s.workdir, tag="00")
s.close("loss", results[0], want_loss)
worst = step_error(results)
s.expect("params", worst <= tolerance, f"worst norm-relative error of the updates {worst:.2e}")
results, _ = run_entry(s.model, "sgd_step", inputs, s.workdir, tag="repeated", extra=["--repeat=3"])
worst = step_error(results)
s.expect("repeated.params", worst <= tolerance, f"worst norm-relative error of the updates {worst:.2e}")
s.finish()
