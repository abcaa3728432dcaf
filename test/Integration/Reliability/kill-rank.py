"""A rank killed while trellis-run runs collectives ends the MPI job quickly.

mpirun -np 2 trellis-run runs a psum over and over (--repeat); once the
victim rank has used more CPU time than compiling takes (so that it is in
its run loop, busy in MPI), it gets SIGKILL. The job must exit non-zero
within 10 s of the kill. Done for rank 1 and for rank 0, with and without
--check-collectives. (trellis-train: test/Train/kill.test.)

Only children of this test's own mpirun are candidates: other jobs on the
machine are never touched.

usage: kill-rank.py WORKDIR
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker, trellis_run_path

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
check = Checker()
LIMIT = 10.0
CPU_BEFORE_KILL = 1.5  # seconds of CPU; compiling this module takes ~0.3

model = os.path.join(workdir, "model.mlir")
with open(model, "w") as f:
    f.write("""
func.func @sum(%x: tensor<256xf32>) -> tensor<256xf32> {
  %y = coll.psum %x {axis = "batch"} : tensor<256xf32>
  return %y : tensor<256xf32>
}
""")
x = os.path.join(workdir, "x.npy")
np.save(x, np.ones(256, np.float32))
TICKS = os.sysconf("SC_CLK_TCK")


def children(parent):
    """{rank: (pid, cpu seconds)} of the trellis-run children of `parent`."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != parent:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"trellis-run" not in f.read().split(b"\0")[0]:
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        for entry in env:
            if entry.startswith(b"OMPI_COMM_WORLD_RANK="):
                cpu = (int(fields[11]) + int(fields[12])) / TICKS
                found[int(entry.split(b"=")[1])] = (int(pid), cpu)
    return found


def kill_rank(name, victim, extra):
    cmd = mpi.mpirun_command(2) + [trellis_run_path(), model, "--entry=sum",
                                   f"--input={x}", "--repeat=1000000000",
                                   *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    target = None
    deadline = time.monotonic() + 60
    while target is None and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        ranks = children(proc.pid)
        if victim in ranks and ranks[victim][1] >= CPU_BEFORE_KILL:
            target = ranks[victim][0]
    if target is None:
        proc.kill()
        proc.wait()
        check.expect(name, False, f"rank {victim} never got to its run loop "
                     f"(exit {proc.returncode}): {proc.stderr.read()[-1000:]}")
        return
    os.kill(target, signal.SIGKILL)
    start = time.monotonic()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    seconds = time.monotonic() - start
    proc.stderr.close()
    check.expect(name, proc.returncode != 0 and seconds < LIMIT,
                 f"exit {proc.returncode} {seconds:.2f} s after SIGKILL of "
                 f"rank {victim} (limit {LIMIT:g} s)")


kill_rank("trellis_run.kill_rank1", 1, [])
kill_rank("trellis_run.kill_rank0", 0, [])
kill_rank("trellis_run.kill_rank1_checked", 1, ["--check-collectives"])
check.finish()
