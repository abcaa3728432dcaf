"""Reconstruction drift of the reversible stack against depth.

For each depth, the loop-form stack (make_loop_stack.py, tanh residuals,
weights scaled by 1/(4·sqrt(L))) gets its inverse from ad-build-inverse —
the same reconstruction the backward pass runs — and one JIT call computes
x → y → x_rec. Prints max |x_rec − x| per depth; f32 drift must stay below
1e-4 (|x| ~ 1) up to depth 64, and grow no faster than linearly (the worst
per-layer drift times depth), f64 drift below 1e-12.
Usage: drift.py DEPTHS DTYPE WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

depths, dtype, work = [int(d) for d in sys.argv[1].split(",")], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
B, D = 8, 16
np_type = {"f32": np.float32, "f64": np.float64}[dtype]
bound = 1e-4 if dtype == "f32" else 1e-12
ok, drifts = True, []
for depth in depths:
    model = f"{work}/loop{depth}.mlir"
    subprocess.run([sys.executable, f"{here}/make_loop_stack.py", str(depth), model, str(B), str(D)],
                   check=True)
    text = open(model).read().replace("xf32>", f"x{dtype}>")
    T = f"tensor<{B}x{D}x{dtype}>"
    SW, SV = f"tensor<{depth}x{D}x{D}x{dtype}>", f"tensor<{depth}x{D}x{dtype}>"
    sig = f"%x1: {T}, %x2: {T}, %wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}"
    types = f"{T}, {T}, {SW}, {SV}, {SW}, {SV}"
    text += (f"func.func private @reversible__inverse({types}) -> ({T}, {T})\n"
             f"func.func @roundtrip({sig}) -> ({T}, {T}) {{\n"
             f"  %y:2 = func.call @reversible(%x1, %x2, %wf, %bf, %wg, %bg) : ({types}) -> ({T}, {T})\n"
             f"  %x:2 = func.call @reversible__inverse(%y#0, %y#1, %wf, %bf, %wg, %bg)"
             f" : ({types}) -> ({T}, {T})\n  return %x#0, %x#1 : {T}, {T}\n}}\n")
    open(model, "w").write(text)
    inverted = f"{work}/loop{depth}.inv.mlir"
    r = subprocess.run(["trellis-opt", model, "--ad-build-inverse", "-o", inverted],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    rng = np.random.default_rng(depth)
    scale = 1.0 / (4.0 * np.sqrt(depth))
    arrays = [rng.normal(size=(B, D)), rng.normal(size=(B, D)),
              scale * rng.normal(size=(depth, D, D)), 0.1 * rng.normal(size=(depth, D)),
              scale * rng.normal(size=(depth, D, D)), 0.1 * rng.normal(size=(depth, D))]
    paths = []
    for i, a in enumerate(arrays):
        paths.append(f"{work}/d{depth}_{i}.npy")
        np.save(paths[-1], a.astype(np_type))
    r = subprocess.run(["trellis-run", inverted, "--entry=roundtrip", f"--output-dir={work}/o{depth}"]
                       + [f"--input={p}" for p in paths], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    drift = max(np.abs(np.load(f"{work}/o{depth}/result{i}.npy").astype(np.float64) -
                       arrays[i].astype(np_type).astype(np.float64)).max() for i in range(2))
    drifts.append(drift)
    print(f"{dtype} depth {depth:3d}: max |x_rec - x| = {drift:.3e}")
    ok &= drift <= bound
# No faster than linear: every depth's drift within depth × the worst per-layer drift seen.
per_layer = max(d / L for d, L in zip(drifts, depths))
ok &= all(d <= L * per_layer * 1.0001 for d, L in zip(drifts, depths))
print(f"worst drift per layer {per_layer:.3e}; bound {bound:g}")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
