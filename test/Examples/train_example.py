"""Trains one model of the example zoo (examples/digits, transformer,
reformer) with trellis-train, briefly, and checks that it learned.

* generated: the committed model.mlir is what the example's gen_model.py
  writes (the generator and the IR do not drift apart);
* accuracy: the held-out accuracy of the last evaluation in metrics.jsonl
  reaches MIN_ACCURACY (the README states the full run's figure);
* loss_fell: the mean training loss of the last 10 % of steps is below a
  third of that of the first 10 steps.

usage: train_example.py WORKDIR EXAMPLE_DIR STEPS MIN_ACCURACY
"""

import json
import os
import subprocess
import sys

import numpy as np

from trellis_testing.run import Checker

work, example, steps, min_acc = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
name = os.path.basename(os.path.normpath(example))
os.makedirs(work, exist_ok=True)
check = Checker()
python = "/usr/bin/python3"

data = os.path.join(work, "data")
proc = subprocess.run([python, os.path.join(example, "make_data.py"), data],
                      capture_output=True, text=True)
if proc.returncode != 0:
    print(f"FAIL {name}.make_data: exit {proc.returncode}\n{proc.stderr}")
    sys.exit(1)

model = os.path.join(example, "model.mlir")
generated = subprocess.run([python, os.path.join(example, "gen_model.py")],
                           capture_output=True, text=True, check=True).stdout
with open(model) as f:
    check.expect(f"{name}.generated", f.read() == generated,
                 "model.mlir equals the output of gen_model.py")

out = os.path.join(work, "run")
cmd = ["trellis-train", model, f"--data={data}/train.npz", f"--eval-data={data}/test.npz",
       f"--steps={steps}", f"--output-dir={out}"]
proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
if proc.returncode != 0:
    print(f"FAIL {name}.train: {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
    sys.exit(1)
with open(os.path.join(out, "metrics.jsonl")) as f:
    records = [json.loads(line) for line in f]
evals = [(r["step"], r["eval"]) for r in records if "eval" in r]
last = evals[-1] if evals else (None, {})
acc = last[1].get("accuracy")
check.expect(f"{name}.accuracy", acc is not None and last[0] == steps and acc >= min_acc,
             f"held-out accuracy {acc} at step {last[0]} (>= {min_acc})")
losses = [r["loss"] for r in records if "loss" in r]
tail = max(1, len(losses) // 10)
first, final = np.mean(losses[:10]), np.mean(losses[-tail:])
check.expect(f"{name}.loss_fell", len(losses) == steps and final < first / 3,
             f"mean loss of the first 10 steps {first:.4f}, of the last {tail} {final:.4f}")
check.finish()
