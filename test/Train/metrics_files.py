"""metrics.jsonl and curve.svg (issue 20). Prints one line per case:

* fsize: metrics.jsonl cannot grow (RLIMIT_FSIZE of 2000 bytes): one line
  naming it and the reason at the write, exit 1 (it was "LLVM ERROR: IO
  failure" at exit).
* curve: curve.svg cannot be written (a directory is in its place): one
  line naming it, exit 1.
* resume: a run of 8 steps, then lines of steps 9-12 and a torn line as a
  run killed after its last checkpoint leaves them, then --resume to 12:
  every step has exactly one loss line, equal to an uninterrupted run's,
  the evaluations are not repeated either, and the curve has all 12
  points (it repeated step lines and showed only the last process's).

usage: metrics_files.py WORKDIR
"""

import json
import os
import re
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_model import write_linear_data, write_linear_model  # noqa: E402

work = sys.argv[1]
model = write_linear_model(work)
data = write_linear_data(work)


def train(out, *extra, limit=None):
    def preexec():
        if limit:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run(["trellis-train", model, f"--data={data}",
                           f"--eval-data={data}", f"--output-dir={out}",
                           *extra], capture_output=True, text=True,
                          timeout=300, preexec_fn=preexec)


def last_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return f"{len(lines)} line(s): {lines[-1] if lines else ''}"


r = train(os.path.join(work, "fsize"), "--steps=1000", limit=2000)
print(f"fsize: exit {r.returncode}, {last_line(r)}")

out = os.path.join(work, "curve")
os.makedirs(os.path.join(out, "curve.svg"))
r = train(out, "--steps=4")
print(f"curve: exit {r.returncode}, {last_line(r)}")


def lines(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return [json.loads(l) for l in f]


straight = os.path.join(work, "straight")
train(straight, "--steps=12", "--eval-every=4")
out = os.path.join(work, "resumed")
train(out, "--steps=8", "--eval-every=4")
with open(os.path.join(out, "metrics.jsonl"), "a") as f:
    for step in range(9, 13):
        f.write(json.dumps({"step": step, "loss": 1e9}) + "\n")
    f.write('{"step": 13, "lo')
r = train(out, "--resume", "--steps=12", "--eval-every=4")
got, want = lines(out), lines(straight)
loss_steps = [l["step"] for l in got if "loss" in l]
eval_steps = [l["step"] for l in got if "eval" in l]
same = [l for l in got if "loss" in l] == [l for l in want if "loss" in l]
svg = open(os.path.join(out, "curve.svg")).read()
points = re.search(r'stroke="steelblue"[^>]*points="([^"]*)"', svg).group(1)
metric = re.search(r'stroke="darkorange"[^>]*points="([^"]*)"', svg).group(1)
print(f"resume: exit {r.returncode}, loss lines of steps {loss_steps}, "
      f"{'equal to' if same else 'DIFFERENT from'} the uninterrupted run's, "
      f"eval lines of steps {eval_steps}, curve: {len(points.split())} loss "
      f"points, {len(metric.split())} eval points")
