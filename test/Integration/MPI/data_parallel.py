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

from trellis_testing import models, mpi
from trellis_testing.run import Checker, Session

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
check = Checker(np.float32)
rng = np.random.default_rng(5)
RANKS, SHARD, D, H, C = 4, 8, 16, 32, 5



def write(name, text):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


single = write("single.mlir", models.mlp_sgd_module(RANKS * SHARD, D, H, C))
sharded = write("sharded.mlir", models.mlp_sgd_module(SHARD, D, H, C))

weights, x, y, shards = models.mlp_problem(rng, RANKS, SHARD, D, H, C)

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
