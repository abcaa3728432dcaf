"""trellis-train --collective-timeout (SPEC.md's trainer contract): under
mpirun, a rank that stops answering ends the whole job with a message
naming it within the timeout, exit non-zero.

* mpirun -np 2 trellis-train --collective-timeout=2 on the example: once
  training has started (the first checkpoint is written), rank 1 gets
  SIGSTOP. The job must exit non-zero within the timeout + LIMIT_AFTER
  seconds, with exactly one "collective timeout" line naming rank 1 as not
  arrived and what rank 0 waits at (a gradient's collective, or the
  trainer's own mean of the loss).
* The same short timeout does not end a healthy run: 20 steps on 2 ranks
  with --collective-timeout=1 finish (the ranks' different compile times
  are allowed for at the start).

usage: timeout.py WORKDIR EXAMPLE_DIR
"""

import os
import shutil
import signal
import subprocess
import sys
import time

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker

work, example = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()
LIMIT_AFTER = 8.0
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
model = os.path.join(example, "model.mlir")


def command(out, *extra):
    return mpi.mpirun_command(2) + [
        "trellis-train", model, f"--data={data}/train.npz",
        f"--output-dir={out}", "--checkpoint-every=5", *extra]


out = os.path.join(work, "stopped")
# A checkpoint of an earlier run must not pass for this one's start.
shutil.rmtree(out, ignore_errors=True)
cmd = command(out, "--steps=1000000", "--collective-timeout=2")
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        text=True)
victim = None
deadline = time.monotonic() + 120
while victim is None and time.monotonic() < deadline and proc.poll() is None:
    time.sleep(0.2)
    ranks = jobs.rank_processes(proc.pid, "trellis-train")
    if 1 in ranks and os.path.exists(os.path.join(out, "checkpoint.npz")):
        victim = ranks[1][0]
if victim is None:
    proc.kill()
    _, stderr = proc.communicate()
    check.expect("stopped_rank", False,
                 f"rank 1 never started training: {stderr[-1000:]}")
else:
    os.kill(victim, signal.SIGSTOP)
    start = time.monotonic()
    try:
        _, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
    result = subprocess.CompletedProcess(cmd, proc.returncode, "", stderr)
    jobs.expect_failure(check, "stopped_rank", result,
                        time.monotonic() - start, cmd, 2 + LIMIT_AFTER,
                        marker="collective timeout",
                        parts=["collective timeout: rank 1 did not arrive "
                               "within 2 s; rank 0 waits at "])

healthy = os.path.join(work, "healthy")
shutil.rmtree(healthy, ignore_errors=True)
proc, seconds = jobs.timed_run(
    command(healthy, "--steps=20", "--collective-timeout=1"), timeout=600)
check.expect("short_timeout_healthy_run", proc.returncode == 0,
             f"exit {proc.returncode} after {seconds:.1f} s: "
             f"{proc.stderr.strip()[-500:]}")
check.finish()
