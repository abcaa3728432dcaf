"""Failures end the whole MPI job quickly with a clear message, never a hang.

* Bad input on one rank (rank 2 of 4 gets an array of the wrong shape): the
  job exits non-zero within 20 s although the other ranks wait in a psum,
  and the message names the input.
* A program compiled for 4 ranks (all_gather's result shape, psum groups)
  run on 2: non-zero exit, and the message names both counts.

usage: failures.py WORKDIR
"""

import os
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
check.finish()
