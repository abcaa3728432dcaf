"""Gradient check of every `@loss_*` function of a model: all float
arguments differentiated (ad.grad against central differences in f64,
trellis_testing/gradcheck.py), inputs standard normal, integer arguments
zeros. Usage: check_losses.py MODEL.mlir WORKDIR
"""
import re

import numpy as np

from trellis_testing.gradcheck import GradCheck, function_signature

gc = GradCheck.from_argv()
for name in re.findall(r"func\.func\s+@(loss_\w+)", gc.text):
    arg_types, _ = function_signature(gc.text, name)
    inputs, argnums = [], []
    for i, t in enumerate(arg_types):
        m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", t)
        shape = tuple(int(d) for d in m.group(1).split("x") if d)
        if m.group(2).startswith("f"):
            inputs.append(gc.randn(*shape))
            argnums.append(i)
        else:
            inputs.append(np.zeros(shape, dtype=np.int32))
    gc.check(name, name, inputs, argnums)
gc.run()
gc.finish()
