"""Failures end the whole MPI job quickly with a clear message, never a hang.

* Bad input on one rank (rank 2 of 4 gets an array of the wrong shape): the
  job exits non-zero within 20 s although the other ranks wait in a psum,
  and the message names the input.
* A program compiled for 4 ranks (all_gather's result shape, psum groups)
  run on 2: non-zero exit, and the message names both counts; for a pmean
  with groups it names coll.pmean.
* A 4-rank ring of ppermute (its pairs name ranks 0-3) run on 5 ranks, where
  rank 4 would silently get zeros, and on 3, where a pair names rank 3.
* An MPI call of the lowered code that fails (the runtime's MPI_Iallreduce
  of a psum, and with convert-coll-to-mpi{upstream-allreduce} the upstream
  MPI_Allreduce; preloaded ones return MPI_ERR_COUNT): the job ends, and the
  message names the collective and its location.

usage: failures.py WORKDIR
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, write_model

workdir = sys.argv[1]
check = Checker()
LIMIT = 20.0

model = write_model(workdir, """
func.func @sum(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = coll.psum %x {axis = "batch"} : tensor<4xf32>
  %z = coll.psum %y {axis = "batch"} : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @gather(%x: tensor<2xf32>) -> tensor<8xf32> {
  %y = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<2xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @groups(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = coll.psum %x {axis = "batch", groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @ring(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @pmean_groups(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = coll.pmean %x {axis = "batch", groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : tensor<2xf32>
  return %y : tensor<2xf32>
}
""")


def expect_failure(name, ranks, entry, inputs, message):
    proc, _, seconds, cmd = mpi.MpiJob(os.path.join(workdir, name), ranks).launch(
        model, entry, inputs, timeout=120)
    jobs.expect_failure(check, name, proc, seconds, cmd, LIMIT,
                        marker=message, one_line=False)


good = np.ones(4, np.float32)
bad = np.ones(5, np.float32)
expect_failure("bad_input_on_rank2", 4, "sum",
               [[good], [good], [bad], [good]],
               "input 0")
expect_failure("all_gather_rank_count", 2, "gather",
               [[np.ones(2, np.float32)]] * 2,
               "compiled for 4 ranks (its result shape) but the job has 2")
expect_failure("groups_rank_count", 2, "groups",
               [[np.ones(2, np.float32)]] * 2,
               "compiled for 4 ranks (its groups) but the job has 2")
expect_failure("pmean_groups_names_pmean", 2, "pmean_groups",
               [[np.ones(2, np.float32)]] * 2,
               "coll.pmean: the program was compiled for 4 ranks (its groups) "
               "but the job has 2")
expect_failure("ppermute_more_ranks", 5, "ring",
               [[np.ones(2, np.float32)]] * 5,
               "coll.ppermute: the program was compiled for 4 ranks (its "
               "pairs) but the job has 5")
expect_failure("ppermute_fewer_ranks", 3, "ring",
               [[np.ones(2, np.float32)]] * 3,
               "coll.ppermute: the pair [2, 3] names a rank the job does not "
               "have (3 ranks)")

# The lowered psum's allreduce fails (preloaded MPI_Allreduce and
# MPI_Iallreduce return MPI_ERR_COUNT): the job ends naming the collective
# and its location; the same through the upstream lowering, lowered first by
# trellis-opt.
shim = os.path.join(workdir, "failing_allreduce.so")
subprocess.run(["mpicc", "-shared", "-fPIC", "-o", shim,
                os.path.join(os.path.dirname(__file__), "Inputs",
                             "failing_allreduce.c")], check=True)
upstream = os.path.join(workdir, "upstream.mlir")
subprocess.run(["trellis-opt", model, "--convert-coll-to-mpi=upstream-allreduce",
                "-o", upstream], check=True)


def failing_allreduce(name, path, call):
    """Runs @sum of `path` with the failing allreduces preloaded; the error
    names `call`."""
    # mpirun's environment reaches the ranks it starts on this host.
    saved = os.environ.get("LD_PRELOAD")
    os.environ["LD_PRELOAD"] = ":".join(p for p in (shim, saved) if p)
    try:
        proc, _, seconds, cmd = mpi.MpiJob(os.path.join(workdir, name), 2).launch(
            path, "sum", [[good]] * 2, timeout=120)
    finally:
        if saved is None:
            del os.environ["LD_PRELOAD"]
        else:
            os.environ["LD_PRELOAD"] = saved
    jobs.expect_failure(check, name, proc, seconds, cmd, LIMIT,
                        marker=f"coll.psum (model.mlir:3:8): {call} failed: "
                        "MPI_ERR_COUNT", one_line=False)


failing_allreduce("failing_allreduce", model, "MPI_Iallreduce")
failing_allreduce("failing_allreduce_upstream", upstream, "MPI_Allreduce")
check.finish()
