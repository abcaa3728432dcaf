"""Writes seeded random .npy inputs for lit RUN lines.

Usage: npy_random.py PREFIX SHAPE:DTYPE...   e.g. 8x32:f32 2:i32 :f64
File i is PREFIX.i.npy; floats are standard normal (seed 0), integers
uniform in [0, 2^31).
"""
import sys

import numpy as np

prefix, specs = sys.argv[1], sys.argv[2:]
rng = np.random.default_rng(0)
for i, spec in enumerate(specs):
    shape_text, dtype = spec.split(":")
    shape = tuple(int(d) for d in shape_text.split("x")) if shape_text else ()
    if dtype.startswith("f"):
        a = rng.standard_normal(shape).astype({"f32": np.float32, "f64": np.float64}[dtype])
    else:
        a = rng.integers(0, 2**31, size=shape).astype({"i32": np.int32, "i64": np.int64}[dtype])
    np.save(f"{prefix}.{i}.npy", a)
