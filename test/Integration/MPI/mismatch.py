"""Ranks that disagree on a collective end the job with one clear line by
default: the agreement checks are on unless switched off.

The seven mismatch cases of docs/reliability-failures.md, run by
`mpirun trellis-run` without any flag: different ops (psum against
all_gather), shapes (f32[4] against f32[8]), dtypes (f32 against f64),
groups on one rank only, pairs (a ring one way and the other), one rank
running a collective more (the other has finished), and 3 ranks of which
two agree. Each must exit non-zero within LIMIT seconds (launch and compile
included) with exactly one "collective mismatch" line naming every rank's
collective. (Without the checks, measured on 2 ranks with OpenMPI 4.1:
different ops and pairs exit 0 with wrong results, shapes, dtypes and
groups end with an MPI error (MPI_ERR_IN_STATUS, a truncated message), the
extra collective waits until the collective timeout.)

The opt-out: with `--check-collectives=false` or TRELLIS_CHECK_COLLECTIVES=0
the compiled code has no check (its LLVM IR does not call
trellis_coll_check); the flag wins over the variable either way.

usage: mismatch.py WORKDIR
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.divergence import rank0_differs
from trellis_testing.run import Checker, trellis_run_path, write_model

workdir = sys.argv[1]
check = Checker()
LIMIT = 30.0
F4, F48 = "tensor<4xf32>", "tensor<4x8xf32>"

model = write_model(workdir, rank0_differs(
    "Rank 0: psum; the others: all_gather of the same tensor.",
    "different_ops", F48, """
    %a = coll.psum %x {axis = "batch"} : tensor<4x8xf32>
    scf.yield %a : tensor<4x8xf32>""", """
    %g = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = tensor.extract_slice %g[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>""") + rank0_differs(
    "Rank 0 sums 4 floats, the others 8.",
    "different_shapes", F4, """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %d = tensor.concat dim(0) %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %a = coll.psum %d {axis = "batch"} : tensor<8xf32>
    %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.yield %s : tensor<4xf32>""") + rank0_differs(
    "Rank 0 sums f32, the others f64.",
    "different_dtypes", F4, """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %d = arith.extf %x : tensor<4xf32> to tensor<4xf64>
    %a = coll.psum %d {axis = "batch"} : tensor<4xf64>
    %s = arith.truncf %a : tensor<4xf64> to tensor<4xf32>
    scf.yield %s : tensor<4xf32>""") + rank0_differs(
    "Same op and shape, with and without groups.",
    "different_groups", F4, """
    %a = coll.psum %x {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""") + rank0_differs(
    "Rank 0 sends to rank 1, the others to rank 0 (nobody receives).",
    "different_pairs", F4, """
    %a = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %a = coll.ppermute %x {axis = "batch", pairs = dense<[[1, 0]]> : tensor<1x2xi64>} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""") + """
// The last rank runs one more psum than the others.
func.func @extra_collective(%x: tensor<4xf32>) -> tensor<4xf32> {
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

func.func @agree(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
  return %a : tensor<4xf32>
}
""")
rng = np.random.default_rng(0)


def inputs(ranks, shape):
    return [[rng.standard_normal(shape).astype(np.float32)]
            for _ in range(ranks)]


def expect_mismatch(name, ranks, entry, shape, parts):
    mpi.MpiJob(os.path.join(workdir, name), ranks).expect_failure(
        check, f"default.{name}", model, entry, inputs(ranks, shape), LIMIT,
        marker="collective mismatch", parts=parts)


expect_mismatch("different_ops", 2, "different_ops", (4, 8),
                ["collective mismatch at collective #1:",
                 "rank 0: coll.psum f32[4x8] (model.mlir:",
                 "rank 1: coll.all_gather f32[4x8] -> f32[8x8] dim=0 "
                 "(model.mlir:"])
expect_mismatch("different_shapes", 2, "different_shapes", (4,),
                ["rank 0: coll.psum f32[4] (", "rank 1: coll.psum f32[8] ("])
expect_mismatch("different_dtypes", 2, "different_dtypes", (4,),
                ["rank 0: coll.psum f32[4] (", "rank 1: coll.psum f64[4] ("])
expect_mismatch("different_groups", 2, "different_groups", (4,),
                ["rank 0: coll.psum f32[4] groups=[[0,1]] (",
                 "rank 1: coll.psum f32[4] ("])
expect_mismatch("different_pairs", 2, "different_pairs", (4,),
                ["rank 0: coll.ppermute f32[4] pairs=[[0,1]] (",
                 "rank 1: coll.ppermute f32[4] pairs=[[1,0]] ("])
expect_mismatch("extra_collective", 2, "extra_collective", (4,),
                ["at collective #2:",
                 "rank 0: no further collective (the program ended)",
                 "rank 1: coll.psum f32[4] ("])
expect_mismatch("three_ranks", 3, "different_ops", (4, 8),
                ["rank 0: coll.psum f32[4x8]",
                 "ranks 1-2: coll.all_gather f32[4x8] -> f32[8x8]"])

# The opt-out, seen in the code: does the LLVM IR call the check?
x = os.path.join(workdir, "x.npy")
np.save(x, np.ones(4, np.float32))
for name, extra, variable, checked in (
        ("default", [], None, True),
        ("flag_off", ["--check-collectives=false"], None, False),
        ("env_off", [], "0", False),
        ("env_on_flag_off", ["--check-collectives=false"], "1", False),
        ("env_off_flag_on", ["--check-collectives"], "0", True)):
    ir = os.path.join(workdir, f"{name}.ll")
    env = dict(os.environ)
    env.pop("TRELLIS_CHECK_COLLECTIVES", None)
    if variable is not None:
        env["TRELLIS_CHECK_COLLECTIVES"] = variable
    proc = subprocess.run([trellis_run_path(), model, "--entry=agree",
                           f"--input={x}", f"--dump-llvm-ir={ir}", *extra],
                          capture_output=True, text=True, env=env, timeout=120)
    calls = (proc.returncode == 0 and os.path.exists(ir) and
             "trellis_coll_check(" in open(ir).read())
    check.expect(f"opt_out.{name}", proc.returncode == 0 and calls == checked,
                 f"exit {proc.returncode}; the code "
                 f"{'calls' if calls else 'does not call'} trellis_coll_check "
                 f"({' '.join(extra) or 'no flag'}, TRELLIS_CHECK_COLLECTIVES="
                 f"{variable if variable is not None else 'unset'})")
check.finish()
