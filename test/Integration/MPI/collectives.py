"""Every coll op against the NumPy reference of its semantics (docs/spec.md), on
`ranks` MPI ranks: psum with and without groups, pmean (both), ppermute (a
full cycle and a partial permutation), all_gather along dims 0 and 1 and
within groups, psum_scatter (with and without groups), and
Adasum (random inputs against the pairwise formula and its butterfly or the
3-rank extension, 12 and 1001 elements; orthogonal inputs give their sum;
identical inputs give the input; a zero tensor on one rank). Adasum results must be bit-identical on
every rank. Tolerance: trellis_testing.run's relative error with the RMS
floor, 1e-5 in f32 and 1e-12 in f64.

usage: collectives.py WORKDIR RANKS DTYPE
"""

import os
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

workdir, n, dtype_name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dtype = {"f32": np.float32, "f64": np.float64}[dtype_name]
check = Checker(dtype)
rng = np.random.default_rng(100 + n)

# Two interleaved groups ([0, 2, ...], [1, 3, ...]) when n is even, else one
# group of all ranks; the cycle r -> r+1; the partial permutation 0 -> n-1.
if n % 2 == 0:
    groups = [[g + 2 * i for i in range(n // 2)] for g in range(2)]
else:
    groups = [list(range(n))]
cycle = [[r, (r + 1) % n] for r in range(n)]
partial = [[0, n - 1]]


def attr(rows):
    return (f"dense<{rows}> : tensor<{len(rows)}x{len(rows[0])}xi64>")


T = dtype_name
G = len(groups[0])
model = f"""
func.func @main(%x: tensor<3x4x{T}>, %o: tensor<6x{T}>, %i: tensor<6x{T}>,
                %z: tensor<5x{T}>, %b: tensor<7x143x{T}>, %p: tensor<{2 * n}x3x{T}>)
    -> (tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<3x4x{T}>,
        tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<{3 * n}x4x{T}>,
        tensor<3x{4 * n}x{T}>, tensor<3x4x{T}>, tensor<6x{T}>, tensor<6x{T}>,
        tensor<5x{T}>, tensor<7x143x{T}>, tensor<{3 * G}x4x{T}>, tensor<2x3x{T}>,
        tensor<{2 * n // G}x3x{T}>) {{
  %psum = coll.psum %x {{axis = "batch"}} : tensor<3x4x{T}>
  %psum_g = coll.psum %x {{axis = "batch", groups = {attr(groups)}}} : tensor<3x4x{T}>
  %pmean = coll.pmean %x {{axis = "batch"}} : tensor<3x4x{T}>
  %pmean_g = coll.pmean %x {{axis = "batch", groups = {attr(groups)}}} : tensor<3x4x{T}>
  %cycle = coll.ppermute %x {{axis = "batch", pairs = {attr(cycle)}}} : tensor<3x4x{T}>
  %partial = coll.ppermute %x {{axis = "batch", pairs = {attr(partial)}}} : tensor<3x4x{T}>
  %g0 = coll.all_gather %x {{axis = "batch", dim = 0 : i64}} : tensor<3x4x{T}> -> tensor<{3 * n}x4x{T}>
  %g1 = coll.all_gather %x {{axis = "batch", dim = 1 : i64}} : tensor<3x4x{T}> -> tensor<3x{4 * n}x{T}>
  %g_g = coll.all_gather %x {{axis = "batch", dim = 0 : i64, groups = {attr(groups)}}} : tensor<3x4x{T}> -> tensor<{3 * G}x4x{T}>
  %ps = coll.psum_scatter %p {{axis = "batch", dim = 0 : i64}} : tensor<{2 * n}x3x{T}> -> tensor<2x3x{T}>
  %ps_g = coll.psum_scatter %p {{axis = "batch", dim = 0 : i64, groups = {attr(groups)}}} : tensor<{2 * n}x3x{T}> -> tensor<{2 * n // G}x3x{T}>
  %ada = coll.adasum %x {{axis = "batch"}} : tensor<3x4x{T}>
  %ada_o = coll.adasum %o {{axis = "batch"}} : tensor<6x{T}>
  %ada_i = coll.adasum %i {{axis = "batch"}} : tensor<6x{T}>
  %ada_z = coll.adasum %z {{axis = "batch"}} : tensor<5x{T}>
  %ada_b = coll.adasum %b {{axis = "batch"}} : tensor<7x143x{T}>
  return %psum, %psum_g, %pmean, %pmean_g, %cycle, %partial, %g0, %g1, %ada,
         %ada_o, %ada_i, %ada_z, %ada_b, %g_g, %ps, %ps_g
    : tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<3x4x{T}>,
      tensor<3x4x{T}>, tensor<3x4x{T}>, tensor<{3 * n}x4x{T}>,
      tensor<3x{4 * n}x{T}>, tensor<3x4x{T}>, tensor<6x{T}>, tensor<6x{T}>,
      tensor<5x{T}>, tensor<7x143x{T}>, tensor<{3 * G}x4x{T}>, tensor<2x3x{T}>,
      tensor<{2 * n // G}x3x{T}>
}}
"""
os.makedirs(workdir, exist_ok=True)
path = os.path.join(workdir, f"collectives_np{n}_{T}.mlir")
with open(path, "w") as f:
    f.write(model)

xs = [rng.standard_normal((3, 4)).astype(dtype) for _ in range(n)]
# Orthogonal: rank r holds a multiple of the unit vector e_r.
orth = [np.zeros(6, dtype) for _ in range(n)]
for r in range(n):
    orth[r][r] = 1.5 + r
same = rng.standard_normal(6).astype(dtype)
zs = [rng.standard_normal(5).astype(dtype) for _ in range(n)]
zs[n - 1][:] = 0  # one rank contributes a zero tensor
# 1001 elements: segments of uneven length in every halving round.
bs = [rng.standard_normal((7, 143)).astype(dtype) for _ in range(n)]

job = mpi.MpiJob(workdir, n)
ps = [rng.standard_normal((2 * n, 3)).astype(dtype) for _ in range(n)]
outs = job.run(path, "main", [[xs[r], orth[r], same, zs[r], bs[r], ps[r]] for r in range(n)],
               results=16)

total = sum(x.astype(np.float64) for x in xs)
grouped = mpi.psum_groups(xs, groups)
sizes = {r: len(g) for g in groups for r in g}
cyc = mpi.ppermute(xs, cycle)
part = mpi.ppermute(xs, partial)
gather0 = np.concatenate([x.astype(np.float64) for x in xs], axis=0)
gather1 = np.concatenate([x.astype(np.float64) for x in xs], axis=1)
row = {r: g for g in groups for r in g}
gather_g = [np.concatenate([xs[s].astype(np.float64) for s in row[r]], axis=0)
            for r in range(n)]
ada = mpi.adasum(xs)
ada_z = mpi.adasum(zs)
for r in range(n):
    o = outs[r]
    tag = f"np{n}.{T}.rank{r}"
    check.close(f"{tag}.psum", o[0], total)
    check.close(f"{tag}.psum_groups", o[1], grouped[r])
    check.close(f"{tag}.pmean", o[2], total / n)
    check.close(f"{tag}.pmean_groups", o[3], grouped[r] / sizes[r])
    check.close(f"{tag}.ppermute_cycle", o[4], cyc[r])
    check.equal(f"{tag}.ppermute_partial", o[5], part[r].astype(dtype))
    check.close(f"{tag}.all_gather0", o[6], gather0)
    check.close(f"{tag}.all_gather1", o[7], gather1)
    check.close(f"{tag}.all_gather_groups", o[13], gather_g[r])
    ps_total = sum(p.astype(np.float64) for p in ps)
    check.close(f"{tag}.psum_scatter", o[14], ps_total[2 * r:2 * r + 2])
    k = 2 * n // G
    ps_group = sum(ps[s].astype(np.float64) for s in row[r])
    i = row[r].index(r)
    check.close(f"{tag}.psum_scatter_groups", o[15], ps_group[i * k:(i + 1) * k])
    check.close(f"{tag}.adasum", o[8], ada)
    check.close(f"{tag}.adasum_orthogonal_is_sum", o[9],
                sum(v.astype(np.float64) for v in orth))
    check.close(f"{tag}.adasum_identical_is_input", o[10], same)
    check.close(f"{tag}.adasum_zero_rank", o[11], ada_z)
    check.close(f"{tag}.adasum_1001", o[12], mpi.adasum(bs))
for i, name in ((8, "adasum"), (9, "adasum_orthogonal"), (11, "adasum_zero"),
                (12, "adasum_1001")):
    check.expect(f"np{n}.{T}.{name}.bit_identical",
                 all(np.array_equal(outs[0][i], outs[r][i]) for r in range(n)),
                 "every rank holds the same bits")
check.finish()
