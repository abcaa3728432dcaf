"""ad-remat with a memory budget on a 16-layer dense/tanh chain.

Checks: with everything stored the gradient computation's measured
peak_tensor_bytes exceeds the budget; after ad-remat{policy=budget} it is
within the budget; the gradients are unchanged (trellis-equiv, rtol 1e-6,
atol 1e-7: the recomputation repeats the same float operations).
Usage: budget.py BUDGET WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np

budget, work = int(sys.argv[1]), sys.argv[2]
os.makedirs(work, exist_ok=True)
L, B, D = 16, 256, 16
T, W, V = f"tensor<{B}x{D}xf32>", f"tensor<{D}x{D}xf32>", f"tensor<{D}xf32>"
args = ", ".join([f"%x: {T}"] + [f"%w{i}: {W}, %b{i}: {V}" for i in range(L)])
lines = [f"func.func @chain({args}) -> tensor<f32> {{"]
prev = "x"
for i in range(L):
    lines.append(f"  %d{i} = nn.dense %{prev}, %w{i}, %b{i} : ({T}, {W}, {V}) -> {T}")
    lines.append(f"  %h{i} = nn.tanh %d{i} : {T}")
    prev = f"h{i}"
lines.append(f"  %l = nn.mean %{prev} : ({T}) -> tensor<f32>\n  return %l : tensor<f32>\n}}")
types = ", ".join([T] + [f"{W}, {V}" for _ in range(L)])
names = ", ".join(["%x"] + [f"%w{i}, %b{i}" for i in range(L)])
grads = ", ".join(f"{W}, {V}" for _ in range(L))
argnums = ", ".join(str(1 + i) for i in range(2 * L))
rets = ", ".join(f"%g#{i}" for i in range(2 * L))
lines.append(f"func.func @grads({args}) -> ({grads}) {{\n"
             f"  %g:{2 * L} = ad.grad @chain({names}) {{argnums = array<i64: {argnums}>}}"
             f" : ({types}) -> ({grads})\n  return {rets} : {grads}\n}}")
model = f"{work}/chain.mlir"
with open(model, "w") as f:
    f.write("\n".join(lines) + "\n")
remat = f"{work}/chain.remat.mlir"
r = subprocess.run(["trellis-opt", model, f"--ad-remat=policy=budget budget={budget}", "-o", remat],
                   capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(r.stderr)
print(r.stderr.splitlines()[0])

rng = np.random.default_rng(0)
arrays = [rng.normal(size=(B, D))]
for _ in range(L):
    arrays += [rng.normal(size=(D, D)) / 4, 0.1 * rng.normal(size=D)]
inputs = []
for i, a in enumerate(arrays):
    inputs.append(f"--input={work}/in{i}.npy")
    np.save(f"{work}/in{i}.npy", a.astype(np.float32))


def peak(path):
    r = subprocess.run(["trellis-run", path, "--entry=grads", "--stats", f"--output-dir={work}/out"]
                       + inputs, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])["peak_tensor_bytes"]


stored, rematerialized = peak(model), peak(remat)
print(f"peak_tensor_bytes: all stored {stored}, ad-remat {rematerialized}, budget {budget}")
r = subprocess.run(["trellis-equiv", model, "--entry=grads", f"--test-file={remat}", "--test-entry=grads",
                    "--rtol=1e-6", "--atol=1e-7"] + inputs, capture_output=True, text=True)
print(r.stdout.splitlines()[-1])
ok = stored > budget >= rematerialized and r.returncode == 0
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
