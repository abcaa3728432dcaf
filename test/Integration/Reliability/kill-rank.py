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
import subprocess
import sys
import time

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, trellis_run_path, write_model

workdir = sys.argv[1]
check = Checker()
LIMIT = 10.0
CPU_BEFORE_KILL = 1.5  # seconds of CPU; compiling this module takes ~0.3

model = write_model(workdir, """
func.func @sum(%x: tensor<256xf32>) -> tensor<256xf32> {
  %y = coll.psum %x {axis = "batch"} : tensor<256xf32>
  return %y : tensor<256xf32>
}
""")
x = os.path.join(workdir, "x.npy")
np.save(x, np.ones(256, np.float32))


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
        ranks = jobs.rank_processes(proc.pid, "trellis-run")
        if victim in ranks and ranks[victim][1] >= CPU_BEFORE_KILL:
            target = ranks[victim][0]
    if target is None:
        proc.kill()
        proc.wait()
        check.expect(name, False, f"rank {victim} never got to its run loop "
                     f"(exit {proc.returncode}): {proc.stderr.read()[-1000:]}")
        return
    seconds = jobs.kill_and_wait(proc, target)
    proc.stderr.close()
    check.expect(name, proc.returncode != 0 and seconds < LIMIT,
                 f"exit {proc.returncode} {seconds:.2f} s after SIGKILL of "
                 f"rank {victim} (limit {LIMIT:g} s)")


kill_rank("trellis_run.kill_rank1", 1, [])
kill_rank("trellis_run.kill_rank0", 0, [])
kill_rank("trellis_run.kill_rank1_checked", 1, ["--check-collectives"])
check.finish()
