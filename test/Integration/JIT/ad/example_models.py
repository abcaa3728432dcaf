"""Gradient check of an example model's loss, in float64.

The example is written in f32; its types are rewritten to f64 (the same
IR otherwise) so that finite differences can resolve 1e-6 relative errors.
The loss is the first result, the logits ride along as aux.
Usage: example_models.py EXAMPLE.mlir WORKDIR
"""
import os
import sys

import numpy as np

from trellis_testing.gradcheck import GradCheck

example, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
model = os.path.join(work, "mlp_f64.mlir")
with open(example) as f:
    text = f.read().replace("xf32>", "xf64>").replace("tensor<f32>", "tensor<f64>")
with open(model, "w") as f:
    f.write(text)

gc = GradCheck(model, work, seed=11)
n = gc.randn
x = n(64, 64)
labels = gc.rng.integers(0, 10, size=64).astype(np.int32)
inputs = [x, n(64, 128, scale=0.125), n(128, scale=0.1), n(128, 10, scale=0.1),
          n(10, scale=0.1), labels]
gc.check("mlp", "forward", inputs, argnums=[0, 1, 2, 3, 4], full=[4],
         arg_names=["x", "w1", "b1", "w2", "b2"])
gc.run()
gc.finish()
