"""Several different `groups` of psum, pmean and Adasum in one program, on 4
ranks, against the NumPy references of their semantics (docs/spec.md).

The groupings include pairs that flatten to the same rank list but differ in
group size ([[0,1],[2,3]] and [[0,1,2,3]]; [[0,2],[1,3]] and [[0,2,1,3]]),
singletons, and the whole job in another order (Adasum merges in the order
a group lists its ranks, so [[0,2,1,3]] and [[0,1,2,3]] differ there). psum
takes them in one order, pmean in the reverse one, Adasum in the first again,
so each grouping comes both before and after the one it could be mistaken
for. The ungrouped psum between them runs on all ranks. Adasum results must
be bit-identical within a group. Tolerance: trellis_testing.run's relative
error with the RMS floor, 1e-5 in f32 and 1e-12 in f64.

usage: groups.py WORKDIR DTYPE
"""

import os
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

workdir, dtype_name = sys.argv[1], sys.argv[2]
dtype = {"f32": np.float32, "f64": np.float64}[dtype_name]
check = Checker(dtype)
rng = np.random.default_rng(18)
n = 4

GROUPINGS = [
    [[0, 1], [2, 3]],
    [[0, 1, 2, 3]],
    [[0], [1], [2], [3]],
    [[0, 2], [1, 3]],
    [[0, 2, 1, 3]],
    [[3, 1], [0, 2]],
    [[3, 2, 1, 0]],
]


def attr(rows):
    return f"dense<{rows}> : tensor<{len(rows)}x{len(rows[0])}xi64>"


T = dtype_name
S = f"tensor<6x{T}>"
# (op, grouping or None, result name), in program order.
ops = [("psum", g) for g in GROUPINGS] + [("psum", None)]
ops += [("pmean", g) for g in reversed(GROUPINGS)]
ops += [("adasum", g) for g in GROUPINGS]
lines = []
for i, (op, groups) in enumerate(ops):
    extra = f", groups = {attr(groups)}" if groups else ""
    lines.append(f'  %r{i} = coll.{op} %x {{axis = "batch"{extra}}} : {S}')
names = ", ".join(f"%r{i}" for i in range(len(ops)))
types = ", ".join([S] * len(ops))
model = (f"func.func @main(%x: {S}) -> ({types}) {{\n" + "\n".join(lines) +
         f"\n  return {names} : {types}\n}}\n")
os.makedirs(workdir, exist_ok=True)
path = os.path.join(workdir, f"groups_{T}.mlir")
with open(path, "w") as f:
    f.write(model)

xs = [rng.standard_normal(6).astype(dtype) for _ in range(n)]
outs = mpi.MpiJob(workdir, n).run(path, "main", [[x] for x in xs],
                                  results=len(ops))


def group_of(groups, r):
    return next(g for g in groups if r in g)


for i, (op, groups) in enumerate(ops):
    name = f"{T}.{op}" + (
        "" if groups is None else "." + str(groups).replace(" ", ""))
    for r in range(n):
        members = list(range(n)) if groups is None else group_of(groups, r)
        if op == "adasum":
            want = mpi.adasum([xs[m] for m in members])
        else:
            want = sum(xs[m].astype(np.float64) for m in members)
            if op == "pmean":
                want = want / len(members)
        check.close(f"{name}.rank{r}", outs[r][i], want)
    if op == "adasum":
        check.expect(f"{name}.bit_identical_in_group",
                     all(np.array_equal(outs[r][i], outs[m][i])
                         for r in range(n)
                         for m in group_of(groups, r)),
                     "the ranks of a group hold the same bits")
check.finish()
