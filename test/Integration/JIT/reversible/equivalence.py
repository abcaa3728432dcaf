"""Reversible stack vs the same math with stored activations (trellis-equiv).

For each depth, generates both forms (make_stack.py), draws inputs, weights
and output cotangents, and runs trellis-equiv on their VJP entries: outputs,
input gradients and weight gradients must agree to the norm-relative
tolerance. tanh and gelu residuals: 1e-5. ReLU residuals: 2e-3, because a
pre-activation within ~1e-7 of zero can flip sign between the reconstructed
and the stored computation and move a gradient (TOOLCHAIN.md).
Usage: equivalence.py ACT DEPTHS WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

act, depths, work = sys.argv[1], [int(d) for d in sys.argv[2].split(",")], sys.argv[3]
tol = 2e-3 if act == "relu" else 1e-5
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(work, exist_ok=True)
ok = True
for depth in depths:
    model = f"{work}/stack{depth}.mlir"
    subprocess.run([sys.executable, f"{here}/make_stack.py", str(depth), act, model], check=True)
    rng = np.random.default_rng(depth)
    arrays = [rng.normal(size=(4, 16)), rng.normal(size=(4, 16))]
    # Weights of a well-conditioned residual stack: each block changes the
    # activations by O(1/sqrt(depth)), as normalised residual nets do.
    scale = 1.0 / (4.0 * np.sqrt(depth))
    for _ in range(depth):
        for _ in range(2):
            arrays += [scale * rng.normal(size=(16, 16)), 0.1 * rng.normal(size=16)]
    arrays += [rng.normal(size=(4, 16)), rng.normal(size=(4, 16))]
    paths = []
    for i, a in enumerate(arrays):
        paths.append(f"{work}/d{depth}_in{i}.npy")
        np.save(paths[-1], a.astype(np.float32))
    labels = ["y1", "y2", "dx1", "dx2"] + [f"d{k}{l}" for l in range(depth)
                                          for k in ("wf", "bf", "wg", "bg")]
    r = subprocess.run(["trellis-equiv", model, "--entry=stored_vjp", "--test-entry=reversible_vjp",
                        f"--norm-rtol={tol}", "--labels=" + ",".join(labels),
                        # Deep unrolled stacks are large functions; O0 keeps
                        # the JIT quick (both variants get the same level).
                        "--opt-level=0"] +
                       [f"--input={p}" for p in paths], capture_output=True, text=True)
    worst = max((float(line.split("norm-relative ")[1].split(",")[0])
                 for line in r.stdout.splitlines() if "norm-relative " in line and line.startswith(("ok", "FAIL"))),
                default=float("inf"))
    print(f"{act} depth {depth}: worst norm-relative difference {worst:.2e} (tolerance {tol:g}), "
          f"trellis-equiv exit {r.returncode}")
    if r.returncode != 0:
        print(r.stdout[-3000:], r.stderr[-2000:])
    ok &= r.returncode == 0
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
