"""Buffers longer than the most elements one MPI call may move go in pieces
(MPI counts are 32-bit ints): every collective, lowered with
`convert-coll-to-mpi{max-count=5}` by trellis-opt so that 21- and 23-element
buffers need 5 pieces, the last one short, then run by trellis-run on `ranks`
ranks, against the NumPy references of their semantics (docs/spec.md): psum
and pmean without groups, psum and pmean with groups, ppermute (a cycle),
all_gather along dims 0 and 1, psum_scatter (21-element blocks: each
block's sum in pieces, block by block), Adasum (halving rounds of 12 and 11, 6 and 5,
... elements, and the extra ranks' vectors for 3 ranks). psum and pmean
without groups also through the upstream allreduce (`upstream-allreduce`: an
scf.for over subviews). The same model lowered with the default max-count
(one call each) must give the same bits for ppermute, all_gather and Adasum,
which move or combine the same elements either way.

usage: pieces.py WORKDIR RANKS DTYPE
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

workdir, n, dtype_name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dtype = {"f32": np.float32, "f64": np.float64}[dtype_name]
check = Checker(dtype)
rng = np.random.default_rng(31 + n)

if n % 2 == 0:
    groups = [[g + 2 * i for i in range(n // 2)] for g in range(2)]
else:
    groups = [list(range(n))]
cycle = [[r, (r + 1) % n] for r in range(n)]


def attr(rows):
    return f"dense<{rows}> : tensor<{len(rows)}x{len(rows[0])}xi64>"


T = dtype_name
X = f"tensor<3x7x{T}>"
V = f"tensor<23x{T}>"
P = f"tensor<{3 * n}x7x{T}>"  # psum_scatter's input: n blocks of 3x7
results = [X, X, X, X, X, f"tensor<{3 * n}x7x{T}>", f"tensor<3x{7 * n}x{T}>",
           V, X]
model = f"""
func.func @main(%x: {X}, %v: {V}, %p: {P}) -> ({", ".join(results)}) {{
  %psum = coll.psum %x {{axis = "batch"}} : {X}
  %pmean = coll.pmean %x {{axis = "batch"}} : {X}
  %psum_g = coll.psum %x {{axis = "batch", groups = {attr(groups)}}} : {X}
  %pmean_g = coll.pmean %x {{axis = "batch", groups = {attr(groups)}}} : {X}
  %cycle = coll.ppermute %x {{axis = "batch", pairs = {attr(cycle)}}} : {X}
  %g0 = coll.all_gather %x {{axis = "batch", dim = 0 : i64}} : {X} -> {results[5]}
  %g1 = coll.all_gather %x {{axis = "batch", dim = 1 : i64}} : {X} -> {results[6]}
  %ada = coll.adasum %v {{axis = "batch"}} : {V}
  %ps = coll.psum_scatter %p {{axis = "batch", dim = 0 : i64}} : {P} -> {X}
  return %psum, %pmean, %psum_g, %pmean_g, %cycle, %g0, %g1, %ada, %ps
    : {", ".join(results)}
}}
"""
os.makedirs(workdir, exist_ok=True)
source = os.path.join(workdir, f"pieces_np{n}_{T}.mlir")
with open(source, "w") as f:
    f.write(model)


def lower(options, name):
    """The model after trellis-opt --convert-coll-to-mpi=`options`."""
    path = os.path.join(workdir, name)
    proc = subprocess.run(["trellis-opt", source,
                           f"--convert-coll-to-mpi={options}", "-o", path],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL lowering {options!r}: {proc.stderr.strip()}")
        sys.exit(1)
    return path


pieces = lower("max-count=5", f"pieces_np{n}_{T}.max5.mlir")
upstream = lower("max-count=5 upstream-allreduce",
                 f"pieces_np{n}_{T}.max5.upstream.mlir")
whole = lower("", f"pieces_np{n}_{T}.whole.mlir")
with open(upstream) as f:
    check.expect(f"np{n}.{T}.lowered_in_pieces", "scf.for" in f.read(),
                 "the upstream allreduce runs in an scf.for")

xs = [rng.standard_normal((3, 7)).astype(dtype) for _ in range(n)]
vs = [rng.standard_normal(23).astype(dtype) for _ in range(n)]
ps = [rng.standard_normal((3 * n, 7)).astype(dtype) for _ in range(n)]
inputs = [[xs[r], vs[r], ps[r]] for r in range(n)]
outs = mpi.MpiJob(os.path.join(workdir, "max5"), n).run(
    pieces, "main", inputs, results=len(results))
ref = mpi.MpiJob(os.path.join(workdir, "whole"), n).run(
    whole, "main", inputs, results=len(results))
up = mpi.MpiJob(os.path.join(workdir, "max5_upstream"), n).run(
    upstream, "main", inputs, results=len(results))

total = sum(x.astype(np.float64) for x in xs)
grouped = mpi.psum_groups(xs, groups)
sizes = {r: len(g) for g in groups for r in g}
cyc = mpi.ppermute(xs, cycle)
gather0 = np.concatenate([x.astype(np.float64) for x in xs], axis=0)
gather1 = np.concatenate([x.astype(np.float64) for x in xs], axis=1)
ada = mpi.adasum(vs)
for r in range(n):
    o = outs[r]
    tag = f"np{n}.{T}.rank{r}"
    check.close(f"{tag}.psum", o[0], total)
    check.close(f"{tag}.pmean", o[1], total / n)
    check.close(f"{tag}.psum_upstream", up[r][0], total)
    check.close(f"{tag}.pmean_upstream", up[r][1], total / n)
    check.close(f"{tag}.psum_groups", o[2], grouped[r])
    check.close(f"{tag}.pmean_groups", o[3], grouped[r] / sizes[r])
    check.close(f"{tag}.ppermute_cycle", o[4], cyc[r])
    check.close(f"{tag}.all_gather0", o[5], gather0)
    check.close(f"{tag}.all_gather1", o[6], gather1)
    check.close(f"{tag}.adasum", o[7], ada)
    ps_total = sum(p.astype(np.float64) for p in ps)
    check.close(f"{tag}.psum_scatter", o[8], ps_total[3 * r:3 * r + 3])
    for i, name in ((4, "ppermute"), (5, "all_gather0"), (6, "all_gather1"),
                    (7, "adasum")):
        check.equal(f"{tag}.{name}.same_bits_as_one_call", o[i], ref[r][i])
check.expect(f"np{n}.{T}.adasum.bit_identical",
             all(np.array_equal(outs[0][7], outs[r][7]) for r in range(n)),
             "every rank holds the same bits")
check.finish()
