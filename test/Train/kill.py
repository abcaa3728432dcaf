"""Training survives kill -9; a killed rank ends an MPI job quickly.

* trellis-train (single process, checkpoint every 5 steps) is killed with
  SIGKILL at 4 random moments; after each kill the checkpoint, if one was
  written, is a complete archive (np.load reads every array) and
  `--resume` continues from it. The losses of the finally completed run
  equal an uninterrupted run's bit for bit.
* mpirun -np 2 trellis-train: rank 1 is killed with SIGKILL mid-training;
  the job exits non-zero within 10 s.

usage: kill.py WORKDIR EXAMPLE_DIR
"""

import json
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker

work, example = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()
rng = random.Random(3)
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
model = os.path.join(example, "model.mlir")
STEPS = 3000


def command(out, *extra):
    return ["trellis-train", model, f"--data={data}/train.npz",
            f"--output-dir={out}", f"--steps={STEPS}", "--checkpoint-every=5",
            *extra]


def losses(out):
    by_step = {}
    with open(os.path.join(out, "metrics.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if "loss" in r:
                by_step[r["step"]] = r["loss"]  # a resumed run rewrites steps
    return by_step


straight = os.path.join(work, "straight")
subprocess.run(command(straight), check=True, capture_output=True, timeout=600)

killed = os.path.join(work, "killed")
ok = True
for attempt in range(4):
    extra = ["--resume"] if attempt else []
    metrics = os.path.join(killed, "metrics.jsonl")
    before = os.path.getsize(metrics) if os.path.exists(metrics) else 0
    proc = subprocess.Popen(command(killed, *extra), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # Kill while it trains (not while it compiles): after its first step.
    while proc.poll() is None and (not os.path.exists(metrics) or
                                   os.path.getsize(metrics) <= before):
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 2.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    path = os.path.join(killed, "checkpoint.npz")
    if os.path.exists(path):
        try:
            with np.load(path) as z:
                step = int(z["step"])
                arrays = {k: z[k] for k in z.files}
            print(f"kill {attempt}: checkpoint at step {step}, {len(arrays)} arrays")
        except Exception as e:  # a torn archive
            ok = False
            print(f"kill {attempt}: unreadable checkpoint: {e}")
    leftovers = [f for f in os.listdir(killed) if ".tmp." in f]
    for f in leftovers:  # a temporary file of an interrupted write is harmless
        os.remove(os.path.join(killed, f))
check.expect("kill.checkpoints_intact", ok, "every checkpoint left by SIGKILL loads")
# A run that a kill missed finished all steps: resuming it with the same
# --steps is an error (SPEC.md's trainer contract), not a rewrite.
with np.load(os.path.join(killed, "checkpoint.npz")) as z:
    done = int(z["step"]) == STEPS
if not done:
    subprocess.run(command(killed, "--resume"), check=True,
                   capture_output=True, timeout=600)
want, got = losses(straight), losses(killed)
same = all(got.get(s) == want[s] for s in range(1, STEPS + 1))
check.expect("kill.resume_bit_identical", same,
             f"all {STEPS} losses equal the uninterrupted run's")

# A rank killed mid-training ends the MPI job.
out = os.path.join(work, "mpi")
cmd = mpi.mpirun_command(2) + command(out) + ["--steps=100000"]
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        text=True)
victim = None
deadline = time.monotonic() + 120
while victim is None and time.monotonic() < deadline:
    time.sleep(0.5)
    ranks = jobs.rank_processes(proc.pid, "trellis-train")
    if 1 in ranks and os.path.exists(os.path.join(out, "checkpoint.npz")):
        victim = ranks[1][0]
if victim is None:
    proc.kill()
    check.expect("mpi.rank_killed", False, "rank 1 never started training")
else:
    seconds = jobs.kill_and_wait(proc, victim)
    check.expect("mpi.rank_killed", proc.returncode != 0 and seconds < 10,
                 f"exit {proc.returncode} {seconds:.1f} s after SIGKILL of rank 1 "
                 f"(limit 10 s)")
check.finish()
