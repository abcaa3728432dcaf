"""ad-remat with memory budgets on a dense/activation chain.

Usage: budget.py WORKDIR WIDTHS BUDGET... (WIDTHS: the dense layers' output
widths, comma-separated; each dense is followed by tanh or relu, the chain
ends with a mean; batch 32 × 8 inputs, or 256 × 16 when all widths are 16
as in the original 16-layer test).

For every budget, checks: with everything stored the gradient
computation's measured peak_tensor_bytes exceeds the budget; after
ad-remat{policy=budget} it is within the budget and equal to the peak the
pass predicted, and the pass's "all stored" figure equals the measured peak
of storing everything; the gradients are unchanged (trellis-equiv, rtol
1e-6, atol 1e-7: the recomputation repeats the same float operations); and
the schedule's recomputation cost is at most that of the best uniform
segment length the pass reports (whose recomputed layers and measured peak
are printed beside it). A BUDGET of `min` is the smallest feasible budget:
the one a budget of 1 byte is rejected with (its error names the smallest
predicted peak), which must then be accepted and met, while one byte less
is rejected.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

work, widths, budgets = sys.argv[1], [int(w) for w in sys.argv[2].split(",")], sys.argv[3:]
os.makedirs(work, exist_ok=True)
B, D = (256, 16) if set(widths) == {16} else (32, 8)
T = lambda w: f"tensor<{B}x{w}xf32>"
params, lines, prev, pw = [], [], "%x", D
for i, w in enumerate(widths):
    params += [(f"%w{i}", f"tensor<{pw}x{w}xf32>", (pw, w)), (f"%b{i}", f"tensor<{w}xf32>", (w,))]
    lines.append(f"  %d{i} = nn.dense {prev}, %w{i}, %b{i} : ({T(pw)}, tensor<{pw}x{w}xf32>, tensor<{w}xf32>) -> {T(w)}")
    lines.append(f"  %h{i} = nn.{'tanh' if i % 2 == 0 else 'relu'} %d{i} : {T(w)}")
    prev, pw = f"%h{i}", w
args = ", ".join([f"%x: {T(D)}"] + [f"{n}: {t}" for n, t, _ in params])
names = ", ".join(["%x"] + [n for n, _, _ in params])
types = ", ".join([T(D)] + [t for _, t, _ in params])
grads = ", ".join(t for _, t, _ in params)
rets = ", ".join(f"%g#{i}" for i in range(len(params)))
argnums = ", ".join(str(1 + i) for i in range(len(params)))
model = f"{work}/chain.mlir"
with open(model, "w") as f:
    f.write(f"func.func @chain({args}) -> tensor<f32> {{\n" + "\n".join(lines) +
            f"\n  %l = nn.mean {prev} : ({T(pw)}) -> tensor<f32>\n  return %l : tensor<f32>\n}}\n"
            f"func.func @grads({args}) -> ({grads}) {{\n"
            f"  %g:{len(params)} = ad.grad @chain({names}) {{argnums = array<i64: {argnums}>}}"
            f" : ({types}) -> ({grads})\n  return {rets} : {grads}\n}}\n")

rng = np.random.default_rng(0)
inputs = [f"--input={work}/x.npy"]
np.save(f"{work}/x.npy", rng.normal(size=(B, D)).astype(np.float32))
for name, _, shape in params:
    scale = 1 / np.sqrt(shape[0]) if len(shape) == 2 else 0.1
    np.save(f"{work}/{name[1:]}.npy", (scale * rng.normal(size=shape)).astype(np.float32))
    inputs.append(f"--input={work}/{name[1:]}.npy")


def remat(options, path, fail=False):
    r = subprocess.run(["trellis-opt", model, f"--ad-remat={options}", "-o", path], capture_output=True, text=True)
    if (r.returncode != 0) != fail:
        sys.exit(r.stderr or f"ad-remat={options} was accepted")
    return r.stderr.splitlines()[0] if r.stderr else ""


def peak(path):
    r = subprocess.run(["trellis-run", path, "--entry=grads", "--stats", f"--output-dir={work}/out"]
                       + inputs, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])["peak_tensor_bytes"]


stored, ok = peak(model), True
for budget in budgets:
    if budget == "min":
        error = remat("policy=budget budget=1", f"{work}/rejected.mlir", fail=True)
        budget = int(re.search(r"smallest predicted peak of any checkpointing schedule is (\d+) bytes", error)[1])
        remat(f"policy=budget budget={budget - 1}", f"{work}/rejected.mlir", fail=True)
        print(f"smallest feasible budget {budget}")
    budget = int(budget)
    path = f"{work}/chain.{budget}.mlir"
    remark = remat(f"policy=budget budget={budget}", path)
    print(remark[remark.index("remark:"):])
    measured = peak(path)
    r = subprocess.run(["trellis-equiv", model, "--entry=grads", f"--test-file={path}", "--test-entry=grads",
                        "--rtol=1e-6", "--atol=1e-7"] + inputs, capture_output=True, text=True)
    predicted = re.search(r"predicted peak (\d+) bytes .*\(all stored: (\d+)\)", remark)
    line = f"budget {budget}: peak_tensor_bytes all stored {stored}, ad-remat {measured}"
    line += " as predicted" if predicted and int(predicted[1]) == measured and int(predicted[2]) == stored else \
        f" NOT as predicted ({predicted and predicted.groups()})"
    fits = stored > budget >= measured and r.returncode == 0 and "NOT" not in line
    m = re.search(r"recomputes (\d+) layers, cost (\d+) .*; best uniform segments: every (\d+), (\d+) layers, cost (\d+)",
                  remark)
    if m:
        uniform = f"{work}/chain.{budget}.every.mlir"
        remat(f"policy=every every={m[3]}", uniform)
        line += (f"; recomputed layers {m[1]} vs {m[4]} for uniform segments of {m[3]}"
                 f" (measured peak {peak(uniform)})")
        fits = fits and int(m[2]) <= int(m[5])
    print(line)
    print(r.stdout.splitlines()[-1])
    ok = ok and fits
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
