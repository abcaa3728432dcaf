"""relu / tanh / gelu (exact and tanh form) over a wide range of inputs."""

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.run import Session

s = Session.from_argv()
x = np.concatenate([
    np.linspace(-8.0, 8.0, 256),                     # the interesting range
    s.rng.standard_normal(128) * 2.0,
    [0.0, -0.0, 1e-3, -1e-3, 1e-6, -1e-6, 50.0, -50.0],
    s.rng.uniform(-30.0, 30.0, 120)]).astype(s.dtype).reshape(8, 64)

relu, tanh, gelu, gelu_tanh = s.run("activations", x, results=4)
s.equal("activations.relu", relu, np.maximum(x, 0).astype(s.dtype))
# tanh: elementwise relative everywhere (no floor; tanh(0) must be 0).
s.close("activations.tanh", tanh, ref.tanh(x), floor=0.0)
# gelu: both forms compute x·(1 + erf|tanh(...))/2, whose left tail
# (x < -3, |gelu| < 4e-3) cancels to ~|x|·eps absolute; elements with
# |gelu| < 0.1 are held to an absolute 0.1·rtol, all others elementwise.
s.close("activations.gelu", gelu, ref.gelu(x), floor=0.1)
s.close("activations.gelu_tanh", gelu_tanh, ref.gelu(x, approximate=True),
        floor=0.1)
# The two forms differ by up to ~5e-4 (near |x| = 2): a model computing the
# wrong form for the `approximate` attribute fails one of the checks above.
gap = np.abs(ref.gelu(x) - ref.gelu(x, approximate=True)).max()
s.expect("activations.gelu_forms_differ", gap > 1e-4, f"max gap {gap:.3g}")
s.finish()
