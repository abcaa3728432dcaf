"""Two ranks that train different models end clearly, by default.

mpirun runs rank 0 on a model and rank 1 on the same model that also
reports the mean of its new weights over the ranks (a `coll.pmean` after
the update, an extra result the trainer ignores). Both reduce the same
gradients (coll-average-gradients, fused into one bucket by
coll-bucket-reductions: the compiled reductions agree), then rank 0 reaches
the trainer's own mean of the loss while rank 1 runs its extra pmean. The
agreement checks (on by default) cover the trainer's own reductions too,
so the job must end within LIMIT seconds (launch and compile included)
with exactly one "collective mismatch" line naming both, exit non-zero.
(Before, the check of rank 1's pmean and rank 0's unchecked MPI_Allreduce
waited for each other forever.)

usage: different-models.py WORKDIR
"""

import os
import sys

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, write_model

work = sys.argv[1]
check = Checker()
LIMIT = 60.0


def model(name, report):
    """A linear regression y ≈ x·w + b trained by SGD; with `report` the
    step also returns pmean(mean(w2)). Both have the same parameters, so
    the ranks pass the trainer's check of the parameters they start from
    and reach their collectives."""
    extra = """
  %wm = nn.mean %w2 : (tensor<4x3xf32>) -> tensor<f32>
  %wr = coll.pmean %wm {axis = "batch"} : tensor<f32>""" if report else ""
    results = "%w2, %b2, %l, %wr" if report else "%w2, %b2, %l"
    result_types = ("tensor<4x3xf32>, tensor<3xf32>, tensor<f32>"
                    + (", tensor<f32>" if report else ""))
    return write_model(work, f"""
func.func private @loss(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32>, %y: tensor<8x3xf32>) -> tensor<f32> {{
  %p = nn.dense %x, %w, %b : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %d = arith.subf %p, %y : tensor<8x3xf32>
  %s = arith.mulf %d, %d : tensor<8x3xf32>
  %l = nn.mean %s : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}}

func.func @train_step(%w: tensor<4x3xf32>, %b: tensor<3xf32>, %x: tensor<8x4xf32> {{trellis.batch = "x"}}, %y: tensor<8x3xf32> {{trellis.batch = "y"}}) -> ({result_types}) {{
  %l, %gw, %gb = ad.value_and_grad @loss(%w, %b, %x, %y) {{argnums = array<i64: 0, 1>}}
      : (tensor<4x3xf32>, tensor<3xf32>, tensor<8x4xf32>, tensor<8x3xf32>) -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>)
  %lrw = arith.constant dense<0.1> : tensor<4x3xf32>
  %uw = arith.mulf %gw, %lrw : tensor<4x3xf32>
  %w2 = arith.subf %w, %uw : tensor<4x3xf32>
  %lrb = arith.constant dense<0.1> : tensor<3xf32>
  %ub = arith.mulf %gb, %lrb : tensor<3xf32>
  %b2 = arith.subf %b, %ub : tensor<3xf32>{extra}
  return {results} : {result_types}
}}
""", name)


plain, reporting = model("plain.mlir", False), model("reporting.mlir", True)
rng = np.random.default_rng(0)
data = os.path.join(work, "data.npz")
x = rng.standard_normal((64, 4)).astype(np.float32)
np.savez(data, x=x, y=(x @ rng.standard_normal((4, 3))).astype(np.float32))


# mpirun and its options without -np: one -np per model (MPMD).
launcher = mpi.mpirun_command(1)[:-2]


def rank(path, out):
    return ["-np", "1", "trellis-train", path, f"--data={data}",
            f"--output-dir={os.path.join(work, out)}", "--steps=20"]


cmd = launcher + rank(plain, "plain") + [":"] + rank(reporting, "reporting")
proc, seconds = jobs.timed_run(cmd, timeout=300)
jobs.expect_failure(check, "different_models", proc, seconds, cmd, LIMIT,
                    marker="collective mismatch",
                    parts=["rank 0: the loss's mean over the ranks "
                           "(trellis-train)",
                           "rank 1: coll.pmean_start f32[] (reporting.mlir:"])

# The same two ranks on one model train to the end.
cmd = launcher + rank(reporting, "same0") + [":"] + rank(reporting, "same1")
proc, seconds = jobs.timed_run(cmd, timeout=300)
check.expect("same_model", proc.returncode == 0,
             f"exit {proc.returncode} after {seconds:.1f} s: "
             f"{proc.stderr.strip()[-500:]}")
check.finish()
