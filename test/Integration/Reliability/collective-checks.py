"""--check-collectives: ranks that disagree on a collective end the job with
one line naming them; ranks that agree compute exactly what they compute
without the checks.

Each mismatch program makes the ranks diverge on `coll.axis_index` (scf.if),
so that rank 0 and rank 1 reach different collectives at the same point:

* different ops (psum vs all_gather), different shapes (f32[4] vs f32[8]),
  different dtypes (f32 vs f64), groups on one rank and not the other;
* one rank runs a collective the other never reaches (the other finishes:
  the check at the end of the program meets it);
* 3 ranks, two agreeing: the message groups ranks ("ranks 0-1").

Each must exit non-zero within LIMIT seconds (launch and compile included)
with exactly one "collective mismatch" line naming every rank and what it
was about to run. The same programs without checks are not run here: some
hang (different ops, the extra collective), others return wrong numbers
without a word (different shapes or dtypes); see
docs/reliability-failures.md.

Agreeing programs (every collective, f32 and f64, groups, 2 and 3 ranks)
give bit-identical results with and without the checks, the checks switched
on by the flag or by TRELLIS_CHECK_COLLECTIVES=1; so do the losses of
`mpirun -np 2 trellis-train --check-collectives` (the gradient pmeans of
coll-average-gradients are checked).

usage: collective-checks.py WORKDIR EXAMPLE_DIR
"""

import json
import os
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.divergence import rank0_differs
from trellis_testing.run import Checker, write_model

workdir, example = sys.argv[1], sys.argv[2]
check = Checker()
LIMIT = 10.0


model = write_model(workdir, rank0_differs(
    "Rank 0: psum f32[4x8]; the others: all_gather of the same tensor.",
    "different_ops", "tensor<4x8xf32>", """
    %a = coll.psum %x {axis = "batch"} : tensor<4x8xf32>
    scf.yield %a : tensor<4x8xf32>""", """
    %g = coll.all_gather %x {axis = "batch", dim = 0 : i64} : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = tensor.extract_slice %g[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>""") + rank0_differs(
    "Rank 0 sums 4 floats, the others 8.",
    "different_shapes", "tensor<4xf32>", """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %d = tensor.concat dim(0) %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %a = coll.psum %d {axis = "batch"} : tensor<8xf32>
    %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    scf.yield %s : tensor<4xf32>""") + rank0_differs(
    "Rank 0 sums f32, the others f64.",
    "different_dtypes", "tensor<4xf32>", """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %d = arith.extf %x : tensor<4xf32> to tensor<4xf64>
    %a = coll.psum %d {axis = "batch"} : tensor<4xf64>
    %s = arith.truncf %a : tensor<4xf64> to tensor<4xf32>
    scf.yield %s : tensor<4xf32>""") + rank0_differs(
    "Same op and shape, with and without groups.",
    "different_groups", "tensor<4xf32>", """
    %a = coll.psum %x {axis = "batch", groups = dense<[[0, 1]]> : tensor<1x2xi64>} : tensor<4xf32>
    scf.yield %a : tensor<4xf32>""", """
    %a = coll.psum %x {axis = "batch"} : tensor<4xf32>
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

// Every collective, as all ranks agree on them.
func.func @agree(%x: tensor<4x8xf32>, %y: tensor<6xf64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<6xf64>, tensor<6xf64>, tensor<4x8xf32>) {
  %0 = coll.psum %x {axis = "batch"} : tensor<4x8xf32>
  %1 = coll.pmean %x {axis = "batch"} : tensor<4x8xf32>
  %2 = coll.ppermute %x {axis = "batch", pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : tensor<4x8xf32>
  %3 = coll.adasum %y {axis = "batch"} : tensor<6xf64>
  %4 = coll.psum %y {axis = "batch"} : tensor<6xf64>
  %g = coll.all_gather %x {axis = "batch", dim = 1 : i64} : tensor<4x8xf32> -> tensor<4x16xf32>
  %5 = tensor.extract_slice %g[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<6xf64>, tensor<6xf64>, tensor<4x8xf32>
}

// With groups, on 3 ranks.
func.func @agree_groups(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = coll.psum %x {axis = "batch", groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>} : tensor<5xf32>
  %1 = coll.pmean %x {axis = "batch"} : tensor<5xf32>
  return %0, %1 : tensor<5xf32>, tensor<5xf32>
}
""")

rng = np.random.default_rng(0)


def inputs(ranks, *shapes_dtypes):
    return [[rng.standard_normal(s).astype(d) for s, d in shapes_dtypes]
            for _ in range(ranks)]


def expect_mismatch(name, ranks, entry, args, parts):
    mpi.MpiJob(os.path.join(workdir, name), ranks).expect_failure(
        check, f"mismatch.{name}", model, entry, args, LIMIT,
        marker="collective mismatch", parts=parts,
        extra=["--check-collectives"])


expect_mismatch("different_ops", 2, "different_ops",
                inputs(2, ((4, 8), np.float32)),
                ["collective mismatch at collective #1:",
                 "rank 0: coll.psum f32[4x8] (model.mlir:",
                 "rank 1: coll.all_gather f32[4x8] -> f32[8x8] dim=0 (model.mlir:"])
expect_mismatch("different_shapes", 2, "different_shapes",
                inputs(2, ((4,), np.float32)),
                ["rank 0: coll.psum f32[4] (", "rank 1: coll.psum f32[8] ("])
expect_mismatch("different_dtypes", 2, "different_dtypes",
                inputs(2, ((4,), np.float32)),
                ["rank 0: coll.psum f32[4] (", "rank 1: coll.psum f64[4] ("])
expect_mismatch("different_groups", 2, "different_groups",
                inputs(2, ((4,), np.float32)),
                ["rank 0: coll.psum f32[4] groups=[[0,1]] (",
                 "rank 1: coll.psum f32[4] ("])
expect_mismatch("extra_collective", 2, "extra_collective",
                inputs(2, ((4,), np.float32)),
                ["at collective #2:",
                 "rank 0: no further collective (the program ended)",
                 "rank 1: coll.psum f32[4] ("])
expect_mismatch("three_ranks", 3, "different_ops",
                inputs(3, ((4, 8), np.float32)),
                ["rank 0: coll.psum f32[4x8]",
                 "ranks 1-2: coll.all_gather f32[4x8] -> f32[8x8]"])


def expect_same(name, ranks, entry, args):
    runs = {}
    for mode, extra, env in (("off", ["--check-collectives=false"], None),
                             ("flag", ["--check-collectives"], None),
                             ("env", [], "1")):
        if env is None:
            os.environ.pop("TRELLIS_CHECK_COLLECTIVES", None)
        else:
            os.environ["TRELLIS_CHECK_COLLECTIVES"] = env
        job = mpi.MpiJob(os.path.join(workdir, f"{name}_{mode}"), ranks)
        proc, out, _, cmd = job.launch(model, entry, args, extra=extra)
        if proc.returncode != 0:
            check.expect(f"agree.{name}", False,
                         f"{mode}: exit {proc.returncode}: {proc.stderr[-1500:]}")
            return
        runs[mode] = job.results(out)
    os.environ.pop("TRELLIS_CHECK_COLLECTIVES", None)
    same = all(len(runs[m][r]) == len(runs["off"][r]) and
               all(a.dtype == b.dtype and np.array_equal(a, b)
                   for a, b in zip(runs[m][r], runs["off"][r]))
               for m in ("flag", "env") for r in range(ranks))
    count = len(runs["off"][0])
    check.expect(f"agree.{name}", same,
                 f"{count} results on {ranks} ranks bit-identical with checks "
                 f"on (flag, env) and off")


expect_same("all_collectives", 2, "agree",
            inputs(2, ((4, 8), np.float32), ((6,), np.float64)))
expect_same("groups_3_ranks", 3, "agree_groups", inputs(3, ((5,), np.float32)))

# trellis-train: the same losses with the checks on.
data = os.path.join(workdir, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
losses = {}
for mode, extra in (("off", ["--check-collectives=false"]),
                    ("on", ["--check-collectives"])):
    out = os.path.join(workdir, f"train_{mode}")
    proc = subprocess.run(
        mpi.mpirun_command(2) + ["trellis-train", os.path.join(example, "model.mlir"),
                                 f"--data={data}/train.npz", f"--output-dir={out}",
                                 "--steps=20", *extra],
        capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(f"  {mode}: exit {proc.returncode}: {proc.stderr[-1500:]}")
        continue
    with open(os.path.join(out, "metrics.jsonl")) as f:
        losses[mode] = [json.loads(l)["loss"] for l in f if '"loss"' in l]
check.expect("agree.trellis_train",
             len(losses) == 2 and len(losses["on"]) == 20 and
             losses["on"] == losses["off"],
             f"{len(losses.get('on', []))} losses of mpirun -np 2 trellis-train "
             f"equal with --check-collectives and without")
check.finish()
