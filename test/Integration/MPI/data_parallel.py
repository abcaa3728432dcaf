"""Data-parallel training with coll-average-gradients on 4 ranks.

The model: a 2-layer tanh MLP with cross-entropy, trained by SGD for 3
steps in one call (@train returns the weights after every step). Each rank
gets a shard of 8 examples of a 32-example batch.

* reduce=mean: every rank's weights after each step equal those of the
  single-process program on the whole batch (the same module text with
  batch 32, no collectives) within 1e-5 relative (RMS floor, f32).
* reduce=adasum and reduce=adasum-approx: the job runs, and after every step
  all ranks hold bit-identical weights; the weights moved.

usage: data_parallel.py WORKDIR
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
rng = np.random.default_rng(5)
RANKS, SHARD, D, H, C = 4, 8, 16, 32, 5


def model(batch):
    W = (f"tensor<{D}x{H}xf32>, tensor<{H}xf32>, tensor<{H}x{C}xf32>, "
         f"tensor<{C}xf32>")
    X = f"tensor<{batch}x{D}xf32>, tensor<{batch}xi32>"
    return f"""
func.func @loss(%w1: tensor<{D}x{H}xf32>, %b1: tensor<{H}xf32>,
                %w2: tensor<{H}x{C}xf32>, %b2: tensor<{C}xf32>,
                %x: tensor<{batch}x{D}xf32>, %y: tensor<{batch}xi32>) -> tensor<f32> {{
  %h = nn.dense %x, %w1, %b1 : (tensor<{batch}x{D}xf32>, tensor<{D}x{H}xf32>, tensor<{H}xf32>) -> tensor<{batch}x{H}xf32>
  %a = nn.tanh %h : tensor<{batch}x{H}xf32>
  %z = nn.dense %a, %w2, %b2 : (tensor<{batch}x{H}xf32>, tensor<{H}x{C}xf32>, tensor<{C}xf32>) -> tensor<{batch}x{C}xf32>
  %l = nn.cross_entropy %z, %y : (tensor<{batch}x{C}xf32>, tensor<{batch}xi32>) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @step(%w1: tensor<{D}x{H}xf32>, %b1: tensor<{H}xf32>,
                %w2: tensor<{H}x{C}xf32>, %b2: tensor<{C}xf32>,
                %x: tensor<{batch}x{D}xf32>, %y: tensor<{batch}xi32>) -> ({W}) {{
  %g:4 = ad.grad @loss(%w1, %b1, %w2, %b2, %x, %y) {{argnums = array<i64: 0, 1, 2, 3>}}
      : ({W}, {X}) -> ({W})
  %lr1 = arith.constant dense<0.5> : tensor<{D}x{H}xf32>
  %lr2 = arith.constant dense<0.5> : tensor<{H}xf32>
  %lr3 = arith.constant dense<0.5> : tensor<{H}x{C}xf32>
  %lr4 = arith.constant dense<0.5> : tensor<{C}xf32>
  %s1 = arith.mulf %g#0, %lr1 : tensor<{D}x{H}xf32>
  %s2 = arith.mulf %g#1, %lr2 : tensor<{H}xf32>
  %s3 = arith.mulf %g#2, %lr3 : tensor<{H}x{C}xf32>
  %s4 = arith.mulf %g#3, %lr4 : tensor<{C}xf32>
  %n1 = arith.subf %w1, %s1 : tensor<{D}x{H}xf32>
  %n2 = arith.subf %b1, %s2 : tensor<{H}xf32>
  %n3 = arith.subf %w2, %s3 : tensor<{H}x{C}xf32>
  %n4 = arith.subf %b2, %s4 : tensor<{C}xf32>
  return %n1, %n2, %n3, %n4 : {W}
}}
func.func @train(%w1: tensor<{D}x{H}xf32>, %b1: tensor<{H}xf32>,
                 %w2: tensor<{H}x{C}xf32>, %b2: tensor<{C}xf32>,
                 %x: tensor<{batch}x{D}xf32>, %y: tensor<{batch}xi32>)
    -> ({W}, {W}, {W}) {{
  %a:4 = call @step(%w1, %b1, %w2, %b2, %x, %y) : ({W}, {X}) -> ({W})
  %b:4 = call @step(%a#0, %a#1, %a#2, %a#3, %x, %y) : ({W}, {X}) -> ({W})
  %c:4 = call @step(%b#0, %b#1, %b#2, %b#3, %x, %y) : ({W}, {X}) -> ({W})
  return %a#0, %a#1, %a#2, %a#3, %b#0, %b#1, %b#2, %b#3, %c#0, %c#1, %c#2, %c#3
      : {W}, {W}, {W}
}}
"""


def write(name, text):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


single = write("single.mlir", model(RANKS * SHARD))
sharded = write("sharded.mlir", model(SHARD))

weights = [rng.standard_normal((D, H)).astype(np.float32) * 0.5,
           rng.standard_normal(H).astype(np.float32) * 0.1,
           rng.standard_normal((H, C)).astype(np.float32) * 0.5,
           rng.standard_normal(C).astype(np.float32) * 0.1]
x = rng.standard_normal((RANKS * SHARD, D)).astype(np.float32)
y = rng.integers(0, C, RANKS * SHARD).astype(np.int32)
shards = [[*weights, x[r * SHARD:(r + 1) * SHARD], y[r * SHARD:(r + 1) * SHARD]]
          for r in range(RANKS)]

ref = Session(single, os.path.join(workdir, "single"))
want = ref.run("train", *weights, x, y, results=12)

for reduce in ("mean", "adasum", "adasum-approx"):
    dp = os.path.join(workdir, f"dp_{reduce}.mlir")
    subprocess.run(["trellis-opt", sharded,
                    f"--coll-average-gradients=reduce={reduce}", "-o", dp],
                   check=True)
    outs = mpi.MpiJob(os.path.join(workdir, reduce), RANKS).run(
        dp, "train", shards, results=12)
    for step in range(3):
        for i, name in enumerate(("w1", "b1", "w2", "b2")):
            k = 4 * step + i
            tag = f"{reduce}.step{step + 1}.{name}"
            check.expect(f"{tag}.ranks_identical",
                         all(np.array_equal(outs[0][k], outs[r][k])
                             for r in range(RANKS)),
                         "bit-identical on all ranks")
            if reduce == "mean":
                check.close(f"{tag}.equals_single_process", outs[0][k], want[k])
            else:
                check.expect(f"{tag}.moved",
                             not np.array_equal(outs[0][k], weights[i]),
                             "weights changed")
check.finish()
