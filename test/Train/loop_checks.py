"""The training loop's checks (issue 20). Prints one line per case:

* resume: `--resume` with `--steps` at or below the checkpoint's step is
  one error line, exit 1, checkpoint and metrics.jsonl byte for byte
  unchanged (it printed "steps 20..10", exited 0 and rewrote the
  checkpoint as step 10 holding step-20 weights).
* inf_lr: learning rate +inf, a checkpoint every step: the parameters
  after step 1 are not finite; the run stops naming the step and the
  first non-finite parameter, and the checkpoint of the last good step
  (2, from a run with a finite rate) is kept (it was overwritten with
  ±inf parameters).
* huge_lr: learning rate 1e10: the loss passes 1.8e19, the square root
  of the largest f32, while still finite (a learning rate of 1e30 trained
  the reversible example to a loss of 1e29 with exit 0).
* lock: a second trainer on the output directory of a running one is one
  line naming the directory and the holder's pid, exit 1 at once (both
  exited 0 with interleaved metrics).

usage: loop_checks.py WORKDIR SRC
"""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_model import write_linear_data, write_linear_model  # noqa: E402

work, src = sys.argv[1], sys.argv[2]
data = write_linear_data(work)


def train(model, out, *extra, data=data):
    return subprocess.run(["trellis-train", model, f"--data={data}",
                           f"--output-dir={out}", *extra],
                          capture_output=True, text=True, timeout=300)


def last_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return f"{len(lines)} line(s): {lines[-1] if lines else ''}"


def snapshot(out):
    return {f: open(os.path.join(out, f), "rb").read()
            for f in ("checkpoint.npz", "metrics.jsonl")}


# --resume with --steps at or below the checkpoint's step.
model = write_linear_model(work)
out = os.path.join(work, "resume")
train(model, out, "--steps=6", "--checkpoint-every=3")
before = snapshot(out)
for steps in (6, 4):
    r = train(model, out, "--resume", f"--steps={steps}")
    same = snapshot(out) == before
    print(f"resume --steps={steps}: exit {r.returncode}, "
          f"{'unchanged' if same else 'CHANGED'}, {last_line(r)}")

# A learning rate of +inf: the last good checkpoint is kept.
out = os.path.join(work, "inf")
train(model, out, "--steps=2")
before = snapshot(out)["checkpoint.npz"]
inf_model = write_linear_model(work, lr=float("inf"), name="inf.mlir")
r = train(inf_model, out, "--resume", "--steps=10", "--checkpoint-every=1")
same = snapshot(out)["checkpoint.npz"] == before
print(f"inf_lr: exit {r.returncode}, checkpoint "
      f"{'kept' if same else 'OVERWRITTEN'}, {last_line(r)}")

# A learning rate of 1e10: a finite but absurd loss.
huge = write_linear_model(work, lr=1e10, name="huge.mlir")
r = train(huge, os.path.join(work, "huge"), "--steps=100")
print(f"huge_lr: exit {r.returncode}, {last_line(r)}")

# Two trainers on one output directory.
out = os.path.join(work, "locked")
first = subprocess.Popen(["trellis-train", model, f"--data={data}",
                          f"--output-dir={out}", "--steps=1000000000"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
metrics = os.path.join(out, "metrics.jsonl")
deadline = time.monotonic() + 120
while first.poll() is None and time.monotonic() < deadline and not (
        os.path.exists(metrics) and os.path.getsize(metrics) > 0):
    time.sleep(0.05)
start = time.monotonic()
r = train(model, out, "--steps=10")
seconds = time.monotonic() - start
first.send_signal(signal.SIGTERM)
first.wait(timeout=60)
print(f"lock: exit {r.returncode} in {'under 5 s' if seconds < 5 else f'{seconds:.1f} s'}"
      f", holder pid {first.pid} named: {f'process {first.pid})' in r.stderr}, "
      f"first run exit {first.returncode}, {last_line(r)}")

# Negative intervals are one line each.
for flag in ("checkpoint-every", "eval-every", "log-every"):
    r = train(model, os.path.join(work, "negative"), "--steps=3",
              f"--{flag}=-1")
    print(f"--{flag}=-1: exit {r.returncode}, {last_line(r)}")

# By default a checkpoint every 500 steps: SIGKILL after step 600 leaves
# the checkpoint of step 500 (without a default, none).
out = os.path.join(work, "default")
proc = subprocess.Popen(["trellis-train", model, f"--data={data}",
                         f"--output-dir={out}", "--steps=1000000000"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
metrics = os.path.join(out, "metrics.jsonl")
deadline = time.monotonic() + 120
while proc.poll() is None and time.monotonic() < deadline and not (
        os.path.exists(metrics) and os.path.getsize(metrics) > 40 * 600):
    time.sleep(0.01)
proc.kill()
proc.wait()
import numpy as np  # noqa: E402
with np.load(os.path.join(out, "checkpoint.npz")) as z:
    step = int(z["step"])
print(f"default checkpoint-every: checkpoint of a multiple of 500 steps: "
      f"{step > 0 and step % 500 == 0}")
