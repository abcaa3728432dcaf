"""@eval before the first step, and over every eval example (issue 20).
Prints one line per case:

* A wrong @eval: a parameter of another type than @train_step's, an eval
  array missing or of other rows, no metrics, `--eval-data` for a module
  without @eval. Each is one line, exit 1, before the first step: the runs
  ask for 10^9 steps, no metrics.jsonl is written, and they end within the
  test's timeout (the parameter's type was found by the final evaluation,
  after the whole run).
* The remainder: 300 eval examples at @eval's batch of 128 (two batches
  and 44 examples over, which were dropped). `frac` is the fraction of
  examples whose y[:, 0] >= 0, with only the last example negative: it
  must be 299/300 = 0.996667 (it was 1.0: example 299 was never seen).
  `mse` depends on the trained parameters: it must equal NumPy's mean
  squared error over all 300 examples with the checkpoint's parameters.
  Also 50 examples (fewer than one batch, an error before) and 256 (no
  remainder).

usage: eval_checks.py WORKDIR
"""

import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_model import write_linear_data, write_linear_model  # noqa: E402

work = sys.argv[1]
data = write_linear_data(work)
model = write_linear_model(work)
with open(model) as f:
    linear = f.read()
train_part = linear[:linear.index("func.func @eval")]

E = 128
X, W, B, Y = (f"tensor<{E}x4xf32>", "tensor<4x3xf32>", "tensor<3xf32>",
              f"tensor<{E}x3xf32>")
GOOD_EVAL = f"""
func.func @eval(%w: {W}, %b: {B}, %x: {X} {{trellis.batch = "x"}}, %y: {Y} {{trellis.batch = "y"}})
    -> (tensor<f32> {{trellis.name = "frac"}}, tensor<f32> {{trellis.name = "mse"}}) {{
  %p = nn.dense %x, %w, %b : ({X}, {W}, {B}) -> {Y}
  %d = arith.subf %p, %y : {Y}
  %s = arith.mulf %d, %d : {Y}
  %mse = nn.mean %s : ({Y}) -> tensor<f32>
  %c = tensor.extract_slice %y[0, 0] [{E}, 1] [1, 1] : {Y} to tensor<{E}x1xf32>
  %zero = arith.constant dense<0.0> : tensor<{E}x1xf32>
  %one = arith.constant dense<1.0> : tensor<{E}x1xf32>
  %ge = arith.cmpf oge, %c, %zero : tensor<{E}x1xf32>
  %hit = arith.select %ge, %one, %zero : tensor<{E}x1xi1>, tensor<{E}x1xf32>
  %frac = nn.mean %hit : (tensor<{E}x1xf32>) -> tensor<f32>
  return %frac, %mse : tensor<f32>, tensor<f32>
}}
"""


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def eval_data(name, n, negative_last=True, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.standard_normal((n, 3)).astype(np.float32)
    y[:, 0] = np.abs(y[:, 0]) + 0.5
    if negative_last:
        y[-1, 0] = -1.0
    path = os.path.join(work, name)
    np.savez(path, x=x, y=y)
    return path, x, y


def train(model, out, *extra, steps=10**9, evaluation=None):
    cmd = ["trellis-train", model, f"--data={data}", f"--output-dir={out}",
           f"--steps={steps}", *extra]
    if evaluation:
        cmd.append(f"--eval-data={evaluation}")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def last_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return f"{len(lines)} line(s): {lines[-1] if lines else ''}"


# -- a wrong @eval: one line before the first step ---------------------------
evaluation, _, _ = eval_data("eval300.npz", 300)
wide = os.path.join(work, "wide.npz")
np.savez(wide, x=np.zeros((300, 5), np.float32),
         y=np.zeros((300, 3), np.float32))
cases = {
    "param_type": (write("param_type.mlir", train_part + GOOD_EVAL.replace(
        f"func.func @eval(%w: {W}", "func.func @eval(%w: tensor<3x4xf32>")
        .replace("%p = nn.dense %x, %w, %b",
                 "%w0 = tensor.empty() : tensor<4x3xf32>\n"
                 "  %p = nn.dense %x, %w0, %b")), evaluation),
    "missing_array": (write("missing.mlir", train_part + GOOD_EVAL.replace(
        'trellis.batch = "y"', 'trellis.batch = "labels"')), evaluation),
    "other_rows": (write("rows.mlir", train_part + GOOD_EVAL), wide),
    "no_metrics": (write("no_metrics.mlir", train_part + f"""
func.func @eval(%w: {W}, %b: {B}, %x: {X} {{trellis.batch = "x"}}) {{
  return
}}
"""), evaluation),
    "no_eval": (write_linear_model(work, name="no_eval.mlir",
                                   with_eval=False), evaluation),
}
for name, (path, evaluation_data) in cases.items():
    out = os.path.join(work, name)
    r = train(path, out, evaluation=evaluation_data)
    started = os.path.exists(os.path.join(out, "metrics.jsonl"))
    print(f"{name}: exit {r.returncode}, "
          f"{'STEPS RAN' if started else 'no step'}, {last_line(r)}")


# -- the remainder ------------------------------------------------------------
good = write("good.mlir", train_part + GOOD_EVAL)
for n in (300, 50, 256):
    path, x, y = eval_data(f"eval{n}.npz", n)
    out = os.path.join(work, f"remainder{n}")
    r = train(good, out, "--eval-every=5", steps=10, evaluation=path)
    if r.returncode != 0:
        print(f"remainder {n}: exit {r.returncode}: {r.stderr.strip()}")
        continue
    with open(os.path.join(out, "metrics.jsonl")) as f:
        evals = [json.loads(l) for l in f if '"eval"' in l]
    final = evals[-1]["eval"]
    with np.load(os.path.join(out, "checkpoint.npz")) as z:
        w, b = z["param0"].astype(np.float64), z["param1"].astype(np.float64)
    mse = np.mean((x.astype(np.float64) @ w + b - y) ** 2)
    frac = np.mean(y[:, 0] >= 0)
    print(f"remainder {n}: {len(evals)} evaluations, frac {final['frac']:.6f} "
          f"(NumPy {frac:.6f}), mse equal to NumPy's within 1e-5: "
          f"{abs(final['mse'] - mse) <= 1e-5 * mse} "
          f"({final['mse']:.7g} vs {mse:.7g})")
