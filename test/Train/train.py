"""trellis-train on the reversible example (examples/reversible):

* single process, 300 steps: the held-out accuracy in metrics.jsonl is at
  least 0.85 (chance is 0.25), the loss fell, checkpoint.npz holds the 29
  parameters and the step, curve.svg is an SVG with a polyline;
* resume: 40 steps with a checkpoint every 20, then --resume to 80 steps,
  reproduces the losses of an uninterrupted 80-step run bit for bit (the
  data order is a function of seed and step);
* --profile: 20 steps end with the profile tables, and their losses equal
  the unprofiled run's bit for bit;
* data-parallel on 2 ranks with --reduce=adasum: runs and learns.

usage: train.py WORKDIR EXAMPLE_DIR
"""

import json
import os
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

work, example = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
model = os.path.join(example, "model.mlir")


def train(out, *extra, ranks=1):
    cmd = ["trellis-train", model, f"--data={data}/train.npz",
           f"--eval-data={data}/test.npz", f"--output-dir={out}", *extra]
    if ranks > 1:
        cmd = mpi.mpirun_command(ranks) + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(f"FAIL {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
        sys.exit(1)
    return proc.stdout


def records(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f]


def losses(out):
    return [(r["step"], r["loss"]) for r in records(out) if "loss" in r]


out = os.path.join(work, "single")
stdout = train(out, "--steps=300", "--eval-every=150")
evals = [r["eval"] for r in records(out) if "eval" in r]
check.expect("single.accuracy", evals and evals[-1]["accuracy"] >= 0.85,
             f"held-out accuracy {evals[-1]['accuracy'] if evals else None} "
             f"(>= 0.85; chance 0.25)")
ls = [l for _, l in losses(out)]
check.expect("single.loss_fell", np.mean(ls[-30:]) < 0.5 * np.mean(ls[:10]),
             f"mean loss first 10 steps {np.mean(ls[:10]):.3f}, last 30 "
             f"{np.mean(ls[-30:]):.3f}")
ckpt = np.load(os.path.join(out, "checkpoint.npz"))
check.expect("single.checkpoint",
             int(ckpt["step"]) == 300 and sum(k.startswith("param") for k in ckpt.files) == 29,
             f"step {int(ckpt['step'])}, {len(ckpt.files)} arrays")
with open(os.path.join(out, "curve.svg")) as f:
    svg = f.read()
check.expect("single.curve", svg.startswith("<svg") and "<polyline" in svg,
             "curve.svg has a polyline")
check.expect("single.summary", "checkpoint:" in stdout and "curve:" in stdout,
             "the run ends by naming the checkpoint and the curve")

straight = os.path.join(work, "straight")
train(straight, "--steps=80")
resumed = os.path.join(work, "resumed")
train(resumed, "--steps=40", "--checkpoint-every=20")
stdout = train(resumed, "--steps=80", "--resume")
want = dict(losses(straight))
got = dict(losses(resumed))
same = all(got.get(s) == want[s] for s in range(41, 81))
check.expect("resume.bit_identical", same and "resuming from" in stdout,
             "steps 41..80 after --resume equal the uninterrupted run")

profiled = os.path.join(work, "profiled")
stdout = train(profiled, "--steps=20", "--profile")
got = dict(losses(profiled))
check.expect("profile.table",
             "profile of @train_step: 20 calls" in stdout and
             "\nclass " in stdout and "\nsource op " in stdout,
             "the run ends with the profile of its 20 steps")
check.expect("profile.same_losses", all(got.get(s) == want[s] for s in range(1, 21)),
             "the profiled steps' losses equal the unprofiled run's")

dp = os.path.join(work, "adasum")
train(dp, "--steps=200", "--reduce=adasum", ranks=2)
evals = [r["eval"] for r in records(dp) if "eval" in r]
check.expect("adasum2.accuracy", evals and evals[-1]["accuracy"] >= 0.8,
             f"held-out accuracy {evals[-1]['accuracy'] if evals else None} (>= 0.8)")
check.finish()
