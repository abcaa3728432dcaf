"""The depth-scalable reversible stack (make_loop_stack.py): layers iterated
by scf.for over stacked weights.

For each depth: trellis-equiv against the same math with ordinary residual
adds in the same loop (whose AD tapes the carried values), norm-relative
1e-5 on outputs, input and weight gradients; then peak_tensor_bytes and
compile_ms of both VJPs. Between the two depths, the reversible loop's peak
may grow by no more than the size of the added layers' weights and their
gradients (2·(D·D + D) floats each per layer; the gradients are results, and
the stacked accumulators are updated slice by slice) plus one B×D
activation of slack: its activation memory does not depend on depth. The
taped loop grows by at least one B×D activation per layer. The IR has the
same size at every depth.
Usage: loop_stack.py DEPTHS WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np

depths, work = [int(d) for d in sys.argv[1].split(",")], sys.argv[2]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
B, D = 64, 16
activation = B * D * 4
grads_per_layer = 2 * (D * D + D) * 4
ok = True
peaks, sizes = {}, {}
for depth in depths:
    model = f"{work}/loop{depth}.mlir"
    subprocess.run([sys.executable, f"{here}/make_loop_stack.py", str(depth), model, str(B), str(D)],
                   check=True)
    sizes[depth] = os.path.getsize(model)
    rng = np.random.default_rng(depth)
    scale = 1.0 / (4.0 * np.sqrt(depth))
    arrays = [rng.normal(size=(B, D)), rng.normal(size=(B, D)),
              scale * rng.normal(size=(depth, D, D)), 0.1 * rng.normal(size=(depth, D)),
              scale * rng.normal(size=(depth, D, D)), 0.1 * rng.normal(size=(depth, D)),
              rng.normal(size=(B, D)), rng.normal(size=(B, D))]
    paths = []
    for i, a in enumerate(arrays):
        paths.append(f"{work}/d{depth}_{i}.npy")
        np.save(paths[-1], a.astype(np.float32))
    inputs = [f"--input={p}" for p in paths]
    r = subprocess.run(["trellis-equiv", model, "--entry=stored_vjp", "--test-entry=reversible_vjp",
                        "--norm-rtol=1e-5", "--labels=y1,y2,dx1,dx2,dWF,dBF,dWG,dBG"] + inputs,
                       capture_output=True, text=True)
    print(f"depth {depth}: trellis-equiv exit {r.returncode}")
    if r.returncode != 0:
        print(r.stdout, r.stderr)
    ok &= r.returncode == 0
    for entry in ("stored_vjp", "reversible_vjp"):
        r = subprocess.run(["trellis-run", model, f"--entry={entry}", "--stats",
                            f"--output-dir={work}/out"] + inputs, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        stats = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
        peaks[entry, depth] = stats["peak_tensor_bytes"]
        print(f"depth {depth:3d} {entry:15s} peak_tensor_bytes {stats['peak_tensor_bytes']:9d} "
              f"compile_ms {stats['compile_ms']:.0f} run_ms {stats['run_ms']:.2f}")

lo, hi = depths[0], depths[-1]
layers = hi - lo
rev = peaks["reversible_vjp", hi] - peaks["reversible_vjp", lo]
taped = peaks["stored_vjp", hi] - peaks["stored_vjp", lo]
allowed = layers * 2 * grads_per_layer + activation
print(f"peak growth over {layers} layers: reversible {rev} B (allowed {allowed}: "
      f"weights and gradients {2 * grads_per_layer} B per layer), taped {taped} B")
ok &= rev <= allowed
ok &= taped >= layers * activation
# Only the digits of the depth in the stacked types differ.
ok &= abs(sizes[hi] - sizes[lo]) < 0.02 * sizes[lo]
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
