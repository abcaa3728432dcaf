"""The collective timeout: a rank that stops answering ends the job with one
line naming it, within the timeout and a few seconds, and the ranks waiting
for it do not burn a core meanwhile.

* mpirun -np 3 trellis-run runs a loop of psums over and over (--repeat,
  `--collective-timeout=5`); once every rank has used more CPU time than
  compiling takes, rank 1 gets SIGSTOP. The job must exit non-zero within
  the timeout + LIMIT_AFTER seconds of the stop, with exactly one
  "collective timeout" line that names rank 1 as not arrived and ranks 0
  and 2 as waiting at the psum (at the agreement check before it, or in the
  psum itself, depending on where rank 1 stopped), and the waiting ranks
  must use less than a quarter of a core between the stop and the
  timeout.
* The same on 2 ranks without the agreement checks (so the psum itself
  waits), rank 0 stopped, the timeout of 1 s from TRELLIS_COLLECTIVE_TIMEOUT.
* A hung rank (rank 1 computes for hours before its psum): the job ends
  naming rank 1.
* Ranks that wait at different points, with the checks off (rank 1 runs
  one psum more; rank 0 has finished and waits at the end of the program):
  no rank is missing, and the line names where each rank waits.
* A timeout that is not a number of seconds, in the flag or in
  TRELLIS_COLLECTIVE_TIMEOUT, is an error naming it.

usage: timeout.py WORKDIR
"""

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, trellis_run_path, write_model

workdir = sys.argv[1]
check = Checker()
CPU_BEFORE_STOP = 1.5  # seconds of CPU per rank; compiling takes ~0.3
# From the timeout's expiry to the job's end: a second of answers, then
# mpirun's abort, on a loaded machine.
LIMIT_AFTER = 8.0

model = write_model(workdir, """
func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %s = coll.psum %a {axis = "batch"} : tensor<4xf32>
    %h = arith.constant dense<0.5> : tensor<4xf32>
    %m = arith.mulf %s, %h : tensor<4xf32>
    scf.yield %m : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Rank 1 runs 10^13 dependent float steps (hours) before its psum.
func.func @hang(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = coll.axis_index {axis = "batch"} : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %hung = arith.cmpi eq, %i, %c1 : index
  %steps = arith.select %hung, %c1, %c0 : index
  %n = arith.constant 10000000000000 : index
  %bound = arith.muli %steps, %n : index
  %x0 = tensor.extract %x[%c0] : tensor<4xf32>
  %scale = arith.constant 0.999999 : f32
  %v = scf.for %k = %c0 to %bound step %c1 iter_args(%a = %x0) -> f32 {
    %b = arith.mulf %a, %scale : f32
    %c = arith.addf %b, %x0 : f32
    scf.yield %c : f32
  }
  %y = tensor.insert %v into %x[%c0] : tensor<4xf32>
  %s = coll.psum %y {axis = "batch"} : tensor<4xf32>
  return %s : tensor<4xf32>
}

// The last rank runs one psum more than the others.
func.func @extra(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
  %i = coll.axis_index {axis = "batch"} : index
  %n = coll.axis_size {axis = "batch"} : index
  %c1 = arith.constant 1 : index
  %last_index = arith.subi %n, %c1 : index
  %last = arith.cmpi eq, %i, %last_index : index
  %r = scf.if %last -> tensor<4xf32> {
    %b = coll.psum %a {axis = "batch"} : tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
""")
x = os.path.join(workdir, "x.npy")
np.save(x, np.ones(4, np.float32))


def ones(ranks):
    return [[np.ones(4, np.float32)] for _ in range(ranks)]


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / jobs.TICKS


def parse_waiting(text):
    """{rank: site} of "rank 0 waits at X; ranks 1, 3-4 wait at Y"."""
    found = {}
    for part in text.split("; "):
        names, site = re.match(r"ranks? (.*?) waits? at (.*)", part).groups()
        for item in names.split(", "):
            low, _, high = item.partition("-")
            for r in range(int(low), int(high or low) + 1):
                found[r] = site
    return found


def stop_rank(name, ranks, victim, timeout, extra=(), env=None):
    proc, _, cmd = mpi.MpiJob(os.path.join(workdir, name), ranks).start(
        model, "loop", ones(ranks), ["--repeat=1000000000", *extra], env,
        stdout=subprocess.DEVNULL)
    found = {}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        found = jobs.rank_processes(proc.pid, "trellis-run")
        if len(found) == ranks and all(c >= CPU_BEFORE_STOP
                                       for _, c in found.values()):
            break
    else:
        proc.kill()
        result = mpi.finish(proc)
        check.expect(name, False, f"the ranks never got to their run loop "
                     f"(exit {result.returncode}): {result.stderr[-1000:]}")
        return
    os.kill(found[victim][0], signal.SIGSTOP)
    stopped = time.monotonic()
    waiting = [pid for r, (pid, _) in found.items() if r != victim]
    # The waiting ranks' CPU from half a second after the stop to just
    # before the timeout.
    time.sleep(0.5)
    before = {pid: cpu(pid) for pid in waiting}
    start = time.monotonic()
    time.sleep(max(0.2, timeout - 0.7))
    used = max(cpu(pid) - before[pid] for pid in waiting) / (
        time.monotonic() - start)
    result = mpi.finish(proc)
    seconds = time.monotonic() - stopped
    ok = jobs.expect_failure(
        check, name, result, seconds, cmd, timeout + LIMIT_AFTER,
        marker="collective timeout",
        parts=[f"collective timeout: rank {victim} did not arrive within "
               f"{timeout:g} s; "])
    if ok:
        line = next(l for l in result.stderr.splitlines()
                    if "collective timeout" in l)
        waiting_at = parse_waiting(line.split(" s; ", 1)[1])
        others = {r for r in range(ranks) if r != victim}
        check.expect(f"{name}.waiting",
                     set(waiting_at) == others and all(
                         site.startswith("coll.psum") and
                         site.endswith("(model.mlir:7:10)")
                         for site in waiting_at.values()),
                     f"ranks {sorted(others)} wait at the psum: {waiting_at}")
    check.expect(f"{name}.idle", used < 0.25,
                 f"the waiting ranks used {used:.1%} of a core while waiting")


# The timeout bounds MPI_Init too (init-timeout.test): long enough here for
# three ranks on two loaded cores to start (2 s was not, in a fresh Debian
# root running the whole suite).
stop_rank("stopped_rank1_of_3", 3, 1, 5, ["--collective-timeout=5"])
stop_rank("stopped_rank0_of_2_unchecked", 2, 0, 3,
          ["--check-collectives=false"],
          env={"TRELLIS_COLLECTIVE_TIMEOUT": "3"})

# Rank 1 hangs before its psum.
mpi.MpiJob(os.path.join(workdir, "hung_rank"), 2).expect_failure(
    check, "hung_rank", model, "hang", ones(2), 30,
    marker="collective timeout",
    parts=["rank 1 did not arrive within 1 s; rank 0 waits at "
           "coll.psum f32[4] (model.mlir:"],
    extra=["--collective-timeout=1"])

# Every rank waits, at different points (no checks to tell them apart).
mpi.MpiJob(os.path.join(workdir, "extra"), 2).expect_failure(
    check, "extra_collective_unchecked", model, "extra", ones(2), 30,
    marker="collective timeout",
    parts=["every rank waits, but their collectives did not "
           "complete within 1 s; rank 0 waits at the end of "
           "the program; rank 1 waits at coll.psum "
           "(model.mlir:"],
    extra=["--collective-timeout=1", "--check-collectives=false"])

for name, extra, env, text in (
        ("invalid_flag", ["--collective-timeout=soon"], {},
         "for the --collective-timeout option: 'soon' is not a number of "
         "seconds (e.g. 300; 0: no timeout)"),
        ("invalid_env", [], {"TRELLIS_COLLECTIVE_TIMEOUT": "-1"},
         "TRELLIS_COLLECTIVE_TIMEOUT: '-1' is not a number of seconds")):
    proc = subprocess.run([trellis_run_path(), model, "--entry=loop",
                           f"--input={x}", *extra], capture_output=True,
                          text=True, env=dict(os.environ, **env), timeout=120)
    check.expect(name, proc.returncode == 1 and text in proc.stderr,
                 f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
check.finish()
