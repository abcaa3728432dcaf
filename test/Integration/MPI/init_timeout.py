"""The collective timeout bounds MPI_Init: a rank stopped before it joins the
job (SIGSTOP before it execs trellis-run) used to keep the others in
MPI_Init forever.

Each job is `mpirun -np N sh -c '...; exec trellis-run ...'`, where the
victim's shell stops itself (kill -STOP $$) before the exec, so that it
never reaches MPI_Init, and every mpirun has a 120 s timeout.

* control: no rank stopped, `--collective-timeout=2`: exit 0, the psum of
  2 ranks' [0, 1, 2, 3] is [0, 2, 4, 6], and no timeout line;
* stopped_rank1_of_2 (`--collective-timeout=2`), stopped_rank1_of_3 (the
  same on 3 ranks) and stopped_rank0_of_2 (TRELLIS_COLLECTIVE_TIMEOUT=1):
  the job exits non-zero, no sooner than the timeout and within LIMIT
  seconds of the launch, with exactly one line, from the lowest rank that
  waits, naming MPI_Init and the timeout; and afterwards no process of the
  job is left (mpirun killed the stopped rank).

usage: init_timeout.py WORKDIR
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, load_results, trellis_run_path, write_model

if len(sys.argv) != 2:
    sys.exit("usage: init_timeout.py WORKDIR")
workdir = sys.argv[1]
check = Checker()
# From the launch to the job's end: the timeout, twice a rank's start-up
# and compile (on a loaded machine), the stagger of higher ranks, mpirun.
LIMIT = 30.0
MPIRUN_TIMEOUT = 120

model = write_model(workdir, """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = coll.psum %x {axis = "batch"} : tensor<4xf32>
  return %s : tensor<4xf32>
}
""")
x = os.path.join(workdir, "x.npy")
np.save(x, np.arange(4, dtype=np.float32))


def job_processes(marker):
    """Pids of the processes whose environment holds `marker` (this job's)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            pass
    return found


def launch(name, ranks, victim, extra=(), env=None):
    """Runs the job; returns (CompletedProcess, seconds, command, leftover
    pids, killed)."""
    out = os.path.join(workdir, name)
    stop = (f'if [ "$OMPI_COMM_WORLD_RANK" = {victim} ]; then kill -STOP $$; fi; '
            if victim is not None else "")
    script = (stop + f'exec "{trellis_run_path()}" "{model}" --entry=main '
              f'--input="{x}" --output-dir="{out}/$OMPI_COMM_WORLD_RANK" '
              + " ".join(extra))
    marker = f"TRELLIS_INIT_TIMEOUT_JOB={os.getpid()}-{name}"
    cmd = mpi.mpirun_command(ranks) + ["sh", "-c", script]
    env = dict(os.environ, **(env or {}))
    env["TRELLIS_INIT_TIMEOUT_JOB"] = marker.split("=", 1)[1]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=MPIRUN_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        proc = subprocess.CompletedProcess(cmd, "timeout", "",
                                           (e.stderr or b"").decode())
    seconds = time.monotonic() - start
    time.sleep(0.5)
    left = job_processes(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return proc, seconds, cmd, left, out


proc, seconds, cmd, left, out = launch("control", 2, None,
                                       ["--collective-timeout=2"])
results = [load_results(os.path.join(out, str(r))) for r in range(2)]
want = 2 * np.arange(4, dtype=np.float32)
ok = (proc.returncode == 0 and "collective timeout" not in proc.stderr and
      all(len(r) == 1 and np.array_equal(r[0], want) for r in results))
check.expect("control", ok, f"exit {proc.returncode} after {seconds:.1f} s; "
             f"results {[r[0].tolist() if r else None for r in results]} "
             f"(want {want.tolist()} on both)")
if not ok:
    print("  stderr:", proc.stderr.strip()[-2000:])


def stopped(name, ranks, victim, timeout, extra=(), env=None):
    proc, seconds, cmd, left, _ = launch(name, ranks, victim, extra, env)
    waiter = 1 if victim == 0 else 0
    ok = jobs.expect_failure(
        check, name, proc, seconds, cmd, LIMIT, marker="collective timeout",
        parts=[f"trellis: rank {waiter}: collective timeout: MPI_Init did not "
               f"complete within the timeout of {timeout:g} s"])
    check.expect(f"{name}.not_early", seconds >= timeout,
                 f"the job ended {seconds:.1f} s after its launch (timeout "
                 f"{timeout:g} s)")
    check.expect(f"{name}.no_leftover", not left,
                 f"processes of the job left after it ended: {left or 'none'}")
    return ok


stopped("stopped_rank1_of_2", 2, 1, 2, ["--collective-timeout=2"])
stopped("stopped_rank1_of_3", 3, 1, 2, ["--collective-timeout=2"])
stopped("stopped_rank0_of_2", 2, 0, 1, env={"TRELLIS_COLLECTIVE_TIMEOUT": "1"})
check.finish()
