"""Two ranks that train different models end clearly, by default.

mpirun runs rank 0 on a model that trains its weights only and rank 1 on
the same model that trains its bias too (the same parameters: the ranks
start alike). Each rank's @train_step reduces its gradients
(coll-average-gradients), then the trainer averages the loss over the
ranks itself: rank 0 reaches the trainer's mean of the loss while rank 1
still runs the pmean of its bias's gradient. The agreement checks (on by
default) cover the trainer's own reductions too, so the job must end
within LIMIT seconds (launch and compile included) with exactly one
"collective mismatch" line naming both, exit non-zero. (Before, the check of
rank 1's pmean and rank 0's unchecked MPI_Allreduce waited for each other
forever.)

usage: different-models.py WORKDIR
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import jobs, mpi
from trellis_testing.run import Checker, write_model

work = sys.argv[1]
check = Checker()
LIMIT = 60.0


def model(name, bias):
    """A linear regression y ≈ x·w + b trained by SGD; without `bias` the
    bias keeps its initial zeros (not differentiated). Both have the same
    parameters, so the ranks pass the trainer's check of the parameters
    they start from and reach their collectives."""
    b_arg = "%b: tensor<3xf32>, "
    b_type = "tensor<3xf32>, "
    b_value = "%b"
    grads = "%gw, %gb" if bias else "%gw"
    grad_types = "tensor<4x3xf32>, tensor<3xf32>" if bias else "tensor<4x3xf32>"
    argnums = "0, 1" if bias else "0"
    b_update = """
  %lrb = arith.constant dense<0.1> : tensor<3xf32>
  %ub = arith.mulf %gb, %lrb : tensor<3xf32>
  %b2 = arith.subf %b, %ub : tensor<3xf32>""" if bias else ""
    results = "%w2, %b2, %l" if bias else "%w2, %b, %l"
    result_types = "tensor<4x3xf32>, tensor<3xf32>, tensor<f32>"
    return write_model(work, f"""
func.func private @loss(%w: tensor<4x3xf32>, {b_arg}%x: tensor<8x4xf32>, %y: tensor<8x3xf32>) -> tensor<f32> {{
  %p = nn.dense %x, %w, {b_value} : (tensor<8x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %d = arith.subf %p, %y : tensor<8x3xf32>
  %s = arith.mulf %d, %d : tensor<8x3xf32>
  %l = nn.mean %s : (tensor<8x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}}

func.func @train_step(%w: tensor<4x3xf32>, {b_arg}%x: tensor<8x4xf32> {{trellis.batch = "x"}}, %y: tensor<8x3xf32> {{trellis.batch = "y"}}) -> ({result_types}) {{
  %l, {grads} = ad.value_and_grad @loss(%w, %b, %x, %y) {{argnums = array<i64: {argnums}>}}
      : (tensor<4x3xf32>, {b_type}tensor<8x4xf32>, tensor<8x3xf32>) -> (tensor<f32>, {grad_types})
  %lrw = arith.constant dense<0.1> : tensor<4x3xf32>
  %uw = arith.mulf %gw, %lrw : tensor<4x3xf32>
  %w2 = arith.subf %w, %uw : tensor<4x3xf32>{b_update}
  return {results} : {result_types}
}}
""", name)


plain, biased = model("plain.mlir", False), model("biased.mlir", True)
rng = np.random.default_rng(0)
data = os.path.join(work, "data.npz")
x = rng.standard_normal((64, 4)).astype(np.float32)
np.savez(data, x=x, y=(x @ rng.standard_normal((4, 3))).astype(np.float32))


# mpirun and its options without -np: one -np per model (MPMD).
launcher = mpi.mpirun_command(1)[:-2]


def rank(path, out):
    return ["-np", "1", "trellis-train", path, f"--data={data}",
            f"--output-dir={os.path.join(work, out)}", "--steps=20"]


cmd = launcher + rank(plain, "plain") + [":"] + rank(biased, "biased")
proc, seconds = jobs.timed_run(cmd, timeout=300)
jobs.expect_failure(check, "different_models", proc, seconds, cmd, LIMIT,
                    marker="collective mismatch",
                    parts=["rank 0: the loss's mean over the ranks "
                           "(trellis-train)",
                           "rank 1: coll.pmean f32[3] (biased.mlir:"])

# The same two ranks on one model train to the end.
cmd = launcher + rank(biased, "same0") + [":"] + rank(biased, "same1")
proc, seconds = jobs.timed_run(cmd, timeout=300)
check.expect("same_model", proc.returncode == 0,
             f"exit {proc.returncode} after {seconds:.1f} s: "
             f"{proc.stderr.strip()[-500:]}")
check.finish()
