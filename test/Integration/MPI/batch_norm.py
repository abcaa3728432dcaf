"""Batch norm under data parallelism (coll-average-gradients' `batch-norm`)
on 2 ranks, each with 8 examples of a 16-example batch. The model: dense
6 -> 5, nn.batch_norm (training, momentum 0.3), relu, dense 5 -> 3,
cross-entropy; @step takes one SGD step (lr 0.5) and returns the new
weights and the new running mean and variance (has_aux).

* sync: every rank's new weights and running statistics equal those of the
  single-process step on the whole batch (the same module text with batch
  16, no collectives) within 1e-5 relative (f32, RMS floor); and the local
  mode's differ from them (the check can tell the modes apart).
* local: each rank normalizes with its own shard's statistics: the new
  weights equal the mean of the two single-process steps on the shards
  (SGD is linear in the gradient), and the running statistics the mean of
  theirs, on both ranks.
* Both modes leave the ranks bit-identical.

usage: batch_norm.py WORKDIR
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker, Session

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
check = Checker(np.float32)
rng = np.random.default_rng(7)
RANKS, SHARD, D, H, C = 2, 8, 6, 5, 3


def module(batch):
    t = lambda *s: "tensor<" + "".join(f"{d}x" for d in s) + "f32>"
    W = f"{t(D, H)}, {t(H)}, {t(H)}, {t(H)}, {t(H, C)}, {t(C)}"
    S = f"{t(H)}, {t(H)}"
    X = f"{t(batch, D)}, tensor<{batch}xi32>"
    return f"""
func.func private @loss(%w1: {t(D, H)}, %b1: {t(H)}, %g: {t(H)}, %be: {t(H)},
                        %w2: {t(H, C)}, %b2: {t(C)}, %m: {t(H)}, %v: {t(H)},
                        %x: {t(batch, D)}, %y: tensor<{batch}xi32>) -> (tensor<f32>, {S}) {{
  %h = nn.dense %x, %w1, %b1 : ({t(batch, D)}, {t(D, H)}, {t(H)}) -> {t(batch, H)}
  %n, %nm, %nv = nn.batch_norm %h, %g, %be, %m, %v {{momentum = 3.0e-01 : f32}}
      : ({t(batch, H)}, {t(H)}, {t(H)}, {t(H)}, {t(H)}) -> ({t(batch, H)}, {S})
  %a = nn.relu %n : {t(batch, H)}
  %z = nn.dense %a, %w2, %b2 : ({t(batch, H)}, {t(H, C)}, {t(C)}) -> {t(batch, C)}
  %l = nn.cross_entropy %z, %y : ({t(batch, C)}, tensor<{batch}xi32>) -> tensor<f32>
  return %l, %nm, %nv : tensor<f32>, {S}
}}
func.func @step(%w1: {t(D, H)}, %b1: {t(H)}, %g: {t(H)}, %be: {t(H)},
                %w2: {t(H, C)}, %b2: {t(C)}, %m: {t(H)}, %v: {t(H)},
                %x: {t(batch, D)}, %y: tensor<{batch}xi32>) -> ({W}, {S}) {{
  %l, %nm, %nv, %d:6 = ad.value_and_grad @loss(%w1, %b1, %g, %be, %w2, %b2, %m, %v, %x, %y)
      {{argnums = array<i64: 0, 1, 2, 3, 4, 5>, has_aux = true}}
      : ({W}, {S}, {X}) -> (tensor<f32>, {S}, {W})
  %c = arith.constant 5.0e-01 : f32
  %n1 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}}
      ins(%d#0 : {t(D, H)}) outs(%w1 : {t(D, H)}) {{
    ^bb0(%gi: f32, %wi: f32):
      %s = arith.mulf %gi, %c : f32
      %r = arith.subf %wi, %s : f32
      linalg.yield %r : f32
  }} -> {t(D, H)}
  %lh = arith.constant dense<5.0e-01> : {t(H)}
  %s2 = arith.mulf %d#1, %lh : {t(H)}
  %n2 = arith.subf %b1, %s2 : {t(H)}
  %s3 = arith.mulf %d#2, %lh : {t(H)}
  %n3 = arith.subf %g, %s3 : {t(H)}
  %s4 = arith.mulf %d#3, %lh : {t(H)}
  %n4 = arith.subf %be, %s4 : {t(H)}
  %lw = arith.constant dense<5.0e-01> : {t(H, C)}
  %s5 = arith.mulf %d#4, %lw : {t(H, C)}
  %n5 = arith.subf %w2, %s5 : {t(H, C)}
  %lc = arith.constant dense<5.0e-01> : {t(C)}
  %s6 = arith.mulf %d#5, %lc : {t(C)}
  %n6 = arith.subf %b2, %s6 : {t(C)}
  return %n1, %n2, %n3, %n4, %n5, %n6, %nm, %nv : {W}, {S}
}}
"""


def write(name, text):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


NAMES = ("w1", "b1", "scale", "bias", "w2", "b2", "running_mean", "running_var")
state = [(rng.standard_normal((D, H)) * 0.5).astype(np.float32),
         (rng.standard_normal(H) * 0.1).astype(np.float32),
         (1 + rng.standard_normal(H) * 0.1).astype(np.float32),
         (rng.standard_normal(H) * 0.1).astype(np.float32),
         (rng.standard_normal((H, C)) * 0.5).astype(np.float32),
         (rng.standard_normal(C) * 0.1).astype(np.float32),
         (rng.standard_normal(H) * 0.1).astype(np.float32),
         (1 + np.abs(rng.standard_normal(H))).astype(np.float32)]
x = (rng.standard_normal((RANKS * SHARD, D)) * 2 + 1).astype(np.float32)
y = rng.integers(0, C, RANKS * SHARD).astype(np.int32)
shard = lambda a, r: a[r * SHARD:(r + 1) * SHARD]

full = Session(write("full.mlir", module(RANKS * SHARD)), os.path.join(workdir, "full"))
want_sync = full.run("step", *state, x, y, results=8)
part = Session(write("shard.mlir", module(SHARD)), os.path.join(workdir, "shard"))
per_shard = [part.run("step", *state, shard(x, r), shard(y, r), results=8) for r in range(RANKS)]
want_local = [(a.astype(np.float64) + b) / 2 for a, b in zip(*per_shard)]

outs = {}
for mode in ("sync", "local"):
    dp = os.path.join(workdir, f"dp_{mode}.mlir")
    subprocess.run(["trellis-opt", os.path.join(workdir, "shard.mlir"),
                    f"--coll-average-gradients=batch-norm={mode}", "-o", dp], check=True)
    outs[mode] = mpi.MpiJob(os.path.join(workdir, mode), RANKS).run(
        dp, "step", [[*state, shard(x, r), shard(y, r)] for r in range(RANKS)], results=8)
    for i, name in enumerate(NAMES):
        check.expect(f"{mode}.{name}.ranks_identical",
                     all(np.array_equal(outs[mode][0][i], outs[mode][r][i]) for r in range(RANKS)),
                     "bit-identical on all ranks")
        want = want_sync if mode == "sync" else want_local
        what = "whole-batch step" if mode == "sync" else "mean of the shards' steps"
        check.close(f"{mode}.{name}.equals_{what.replace(' ', '_')}", outs[mode][0][i], want[i])

# The local mode normalizes per shard: its running variance is not the
# whole batch's, so the sync check above could fail.
rv = NAMES.index("running_var")
diff = float(np.max(np.abs(outs["local"][0][rv] - want_sync[rv]) / np.abs(want_sync[rv])))
check.expect("local.differs_from_sync", diff > 1e-3,
             f"local running variance differs from the whole batch's by {diff:.2e} relative")
check.finish()
