"""Activation memory of the reversible stack is independent of depth.

Runs the VJP (forward + backward) of the generated stack (make_stack.py,
batch 256, width 16, tanh) at two depths and reads trellis-run's
peak_tensor_bytes (the high-water mark of live tensor buffers, counted by
the runtime's allocation hooks). Per added block:
  * stored activations must grow by at least two B×D activations (each block
    keeps several for its backward pass);
  * the reversible stack may grow only by what every block must return
    anyway — its weight gradients (two D×D and two D buffers, each counted
    with the 64 bytes of alignment padding the generic allocation adds) —
    plus at most ONE B×D activation in total, since where the high-water
    mark falls can differ by a buffer between depths (TRELLIS_TRACE_ALLOC=1
    shows the composition: e.g. 11 vs 12 live activations at depth 2 vs 8).
Usage: peak_memory.py WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
B, D, depths = 256, 16, (2, 8)
activation = B * D * 4 + 64
weight_grads = 2 * ((D * D * 4 + 64) + (D * 4 + 64))
peaks = {}
for depth in depths:
    model = f"{work}/stack{depth}.mlir"
    subprocess.run([sys.executable, f"{here}/make_stack.py", str(depth), "tanh", model,
                    str(B), str(D)], check=True)
    rng = np.random.default_rng(depth)
    arrays = [rng.normal(size=(B, D)), rng.normal(size=(B, D))]
    for _ in range(2 * depth):
        arrays += [rng.normal(size=(D, D)) / (4 * np.sqrt(depth)), 0.1 * rng.normal(size=D)]
    arrays += [rng.normal(size=(B, D)), rng.normal(size=(B, D))]
    paths = []
    for i, a in enumerate(arrays):
        paths.append(f"{work}/d{depth}_{i}.npy")
        np.save(paths[-1], a.astype(np.float32))
    for entry in ("stored_vjp", "reversible_vjp"):
        r = subprocess.run(["trellis-run", model, f"--entry={entry}", "--stats", "--opt-level=0",
                            f"--output-dir={work}/out"] + [f"--input={p}" for p in paths],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        stats = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
        peaks[entry, depth] = stats["peak_tensor_bytes"]
        print(f"depth {depth:2d} {entry:15s} peak_tensor_bytes {stats['peak_tensor_bytes']}")

blocks = depths[1] - depths[0]
stored = (peaks["stored_vjp", depths[1]] - peaks["stored_vjp", depths[0]]) / blocks
reversible = (peaks["reversible_vjp", depths[1]] - peaks["reversible_vjp", depths[0]]) / blocks
print(f"growth per block: stored {stored:.0f} B, reversible {reversible:.0f} B "
      f"(one activation {activation} B, weight gradients {weight_grads} B)")
ok = stored >= 2 * activation and reversible * blocks <= blocks * weight_grads + activation
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
