"""Bucketed and overlapped gradient reductions (coll-bucket-reductions) on
2 ranks.

* Data-parallel SGD (the 2-layer tanh MLP of data_parallel.py, 3 steps in
  one call): the module of coll-average-gradients, then ad-differentiate,
  inline and coll-bucket-reductions with the default buckets (25 MiB: one
  bucket), bucket-bytes=700 (three buckets: [b2, w2], [b1], [w1]),
  bucket-bytes=0 (one per tensor) and overlap=false. Every variant's
  weights after every step are bit-identical to those of the unbucketed
  job (a sum of two ranks does not depend on the order of the elements),
  on both ranks, and within 1e-5 (f32) of a NumPy float64 reference of the
  whole-batch SGD. Each variant's IR has the expected number of starts, so
  a pass that did nothing fails here.
* A mismatch between ranks at a start (rank 0 starts a bucket of two
  tensors, rank 1 of one) ends the job with the agreement check's one line.
* A rank that computes for hours between a start and its wait: the job
  ends after the collective timeout with one line saying that rank 0 waits
  at coll.wait.

usage: buckets.py WORKDIR
"""

import os
import re
import subprocess
import sys

import numpy as np

from trellis_testing import models, mpi
from trellis_testing.run import Checker, write_model

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
check = Checker(np.float32)
rng = np.random.default_rng(7)
RANKS, SHARD, D, H, C = 2, 8, 16, 32, 5
sharded = write_model(workdir, models.mlp_sgd_module(SHARD, D, H, C),
                      name="sharded.mlir")

weights, x, y, shards = models.mlp_problem(rng, RANKS, SHARD, D, H, C)

def reference_sgd(weights, x, y, steps=3, lr=0.5):
    """Whole-batch SGD on the MLP with mean cross-entropy, in float64."""
    w1, b1, w2, b2 = (w.astype(np.float64) for w in weights)
    x = x.astype(np.float64)
    onehot = np.eye(C)[y]
    out = []
    for _ in range(steps):
        a = np.tanh(x @ w1 + b1)
        z = a @ w2 + b2
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - onehot) / len(x)
        dh = (dz @ w2.T) * (1 - a * a)
        w1, b1, w2, b2 = (w1 - lr * (x.T @ dh), b1 - lr * dh.sum(0),
                          w2 - lr * (a.T @ dz), b2 - lr * dz.sum(0))
        out += [w1, b1, w2, b2]
    return out


want = reference_sgd(weights, x, y)


def transform(name, passes):
    path = os.path.join(workdir, f"{name}.mlir")
    subprocess.run(["trellis-opt", sharded, *passes, "-o", path], check=True)
    with open(path) as f:
        starts = len(re.findall(r"coll\.pmean_start", f.read()))
    return path, starts


average = "--coll-average-gradients"
after = [average, "--ad-differentiate", "--inline"]
plain, _ = transform("plain", [average])
base = mpi.MpiJob(os.path.join(workdir, "plain"), RANKS).run(
    plain, "train", shards, results=12)
# @step and its three calls inlined into @train: the starts per step
# times 4.
variants = (("default", [], 4), ("bytes700", ["bucket-bytes=700"], 12),
            ("bytes0", ["bucket-bytes=0"], 16),
            ("no_overlap", ["overlap=false"], 4))
for name, options, starts in variants:
    option = "--coll-bucket-reductions"
    if options:
        option += "=" + " ".join(options)
    model, found = transform(name, after + [option])
    check.expect(f"{name}.starts", found == starts,
                 f"{found} coll.pmean_start (want {starts})")
    outs = mpi.MpiJob(os.path.join(workdir, name), RANKS).run(
        model, "train", shards, results=12)
    same = all(np.array_equal(outs[r][k], base[0][k])
               for r in range(RANKS) for k in range(12))
    check.expect(f"{name}.equals_unbucketed", same,
                 "bit-identical to the unbucketed job on both ranks")
    for k in range(12):
        check.close(f"{name}.step{k // 4 + 1}.w{k % 4}.reference", outs[0][k],
                    want[k])

# Disagreeing ranks and a hung rank between a start and its wait.
model = write_model(workdir, """
func.func @mismatch(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  %i = coll.axis_index {axis = "batch"} : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %first -> tensor<4xf32> {
    %q = coll.pmean_start %x, %y {axis = "batch"} : tensor<4xf32>, tensor<3xf32>
    %a, %b = coll.wait %q : tensor<4xf32>, tensor<3xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    %q = coll.pmean_start %x {axis = "batch"} : tensor<4xf32>
    %a = coll.wait %q : tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Rank 1 runs 10^13 dependent float steps (hours) between start and wait.
func.func @hang(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  %q = coll.psum_start %x {axis = "batch"} : tensor<4xf32>
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
  %s = coll.wait %q : tensor<4xf32>
  %z = tensor.insert %v into %s[%c0] : tensor<4xf32>
  return %z : tensor<4xf32>
}
""")
inputs = [np.ones(4, np.float32), np.ones(3, np.float32)]

def run_failing(name, entry, extra, parts):
    mpi.MpiJob(os.path.join(workdir, name), RANKS).expect_failure(
        check, name, model, entry, [inputs] * RANKS, 30, marker=parts[0],
        parts=parts[1:], extra=extra)


run_failing("mismatch_at_start", "mismatch", [],
            ["collective mismatch",
             "rank 0: coll.pmean_start f32[4],f32[3] (model.mlir:",
             "rank 1: coll.pmean_start f32[4] (model.mlir:"])
run_failing("hung_between_start_and_wait", "hang", ["--collective-timeout=1"],
            ["collective timeout",
             "rank 1 did not arrive within 1 s; rank 0 waits at coll.wait "
             "(model.mlir:"])
check.finish()
