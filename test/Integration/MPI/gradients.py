"""Gradient checks of the collectives' reverse-mode rules on `ranks` ranks.

Every rank r differentiates its own loss
    loss_r(x_r) = mean(c_r ⊙ tanh(op(x_r)))
with ad.grad; the job's loss is L = Σ_r loss_r, and the gradient rank r gets
must be ∂L/∂x_r. The reference is independent of the rules: central finite
differences (eps 1e-6, f64) of L computed in NumPy from docs/spec.md's forward
semantics of each op, along 4 random directions of every rank's x_r, plus
the full gradient element by element. Error per direction:
|<G, v> − fd| / max(|fd|, 1e-2·max|fd|) ≤ 1e-6 (gradcheck.py's measure).

usage: gradients.py WORKDIR RANKS
"""

import os
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

workdir, n = sys.argv[1], int(sys.argv[2])
check = Checker(np.float64)
rng = np.random.default_rng(7 + n)
EPS, RTOL, K = 1e-6, 1e-6, 4

groups = ([[g + 2 * i for i in range(n // 2)] for g in range(2)]
          if n % 2 == 0 else [list(range(n))])
pairs = [[0, n - 1]] + [[r, r - 1] for r in range(1, n - 1)]  # partial chain


def attr(rows):
    return f"dense<{rows}> : tensor<{len(rows)}x{len(rows[0])}xi64>"


S = "tensor<3x4xf64>"
G1 = f"tensor<3x{4 * n}xf64>"
GG = f"tensor<3x{4 * len(groups[0])}xf64>"
# psum_scatter splits the 4 columns among the group: groups of 2 (n even)
# or the whole job of 3 ranks, whose 4 columns do not split: 12 then.
PS = f"tensor<3x{4 // len(groups[0])}xf64>" if 4 % len(groups[0]) == 0 else None
ops = {k: v for k, v in {
    "psum": (f'coll.psum %x {{axis = "batch"}} : {S}', S),
    "psum_groups": (f'coll.psum %x {{axis = "batch", groups = {attr(groups)}}} : {S}', S),
    "pmean": (f'coll.pmean %x {{axis = "batch"}} : {S}', S),
    "ppermute": (f'coll.ppermute %x {{axis = "batch", pairs = {attr(pairs)}}} : {S}', S),
    "all_gather": (f'coll.all_gather %x {{axis = "batch", dim = 1 : i64}} : {S} -> {G1}', G1),
    "psum_scatter": (f'coll.psum_scatter %x {{axis = "batch", dim = 1 : i64, groups = {attr(groups)}}}'
                     f' : {S} -> {PS}', PS),
    "all_gather_groups": (
        f'coll.all_gather %x {{axis = "batch", dim = 1 : i64, groups = {attr(groups)}}}'
        f' : {S} -> {GG}', GG),
}.items() if v[1] is not None}

text = []
for name, (op, ty) in ops.items():
    text.append(f"""
func.func @loss_{name}(%x: {S}, %c: {ty}) -> tensor<f64> {{
  %y = {op}
  %t = nn.tanh %y : {ty}
  %p = arith.mulf %t, %c : {ty}
  %l = nn.mean %p : ({ty}) -> tensor<f64>
  return %l : tensor<f64>
}}""")
args = ", ".join(f"%c_{k}: {ty}" for k, (_, ty) in ops.items())
grads = "\n".join(
    f"  %g_{k} = ad.grad @loss_{k}(%x, %c_{k}) {{argnums = array<i64: 0>}} "
    f": ({S}, {ty}) -> {S}" for k, (_, ty) in ops.items())
rets = ", ".join(f"%g_{k}" for k in ops)
text.append(f"""
func.func @main(%x: {S}, {args}) -> ({", ".join([S] * len(ops))}) {{
{grads}
  return {rets} : {", ".join([S] * len(ops))}
}}""")
os.makedirs(workdir, exist_ok=True)
path = os.path.join(workdir, f"gradients_np{n}.mlir")
with open(path, "w") as f:
    f.write("\n".join(text))


def forward(name, xs):
    if name == "psum":
        return [sum(xs)] * n
    if name == "psum_groups":
        return mpi.psum_groups(xs, groups)
    if name == "pmean":
        return [sum(xs) / n] * n
    if name == "ppermute":
        return mpi.ppermute(xs, pairs)
    if name == "all_gather":
        return [np.concatenate(xs, axis=1)] * n
    if name == "psum_scatter":
        row = {r: g for g in groups for r in g}
        k = 4 // len(groups[0])
        return [sum(xs[s] for s in row[r])[:, row[r].index(r) * k:(row[r].index(r) + 1) * k]
                for r in range(n)]
    if name == "all_gather_groups":
        # Rank r gets its group's tensors in the order the row lists them.
        row = {r: g for g in groups for r in g}
        return [np.concatenate([xs[s] for s in row[r]], axis=1) for r in range(n)]
    raise ValueError(name)


def total_loss(name, xs, cs):
    ys = forward(name, xs)
    return sum(np.mean(cs[r] * np.tanh(ys[r])) for r in range(n))


xs = [rng.standard_normal((3, 4)) for _ in range(n)]
cs = {k: [rng.standard_normal(tuple(int(d) for d in ty[7:-5].split("x")))
          for _ in range(n)] for k, (_, ty) in ops.items()}
job = mpi.MpiJob(workdir, n)
outs = job.run(path, "main",
               [[xs[r]] + [cs[k][r] for k in ops] for r in range(n)],
               results=len(ops))

for i, name in enumerate(ops):
    for r in range(n):
        g = outs[r][i]
        dirs = [rng.standard_normal((3, 4)) for _ in range(K)]
        basis = []
        for j in range(12):
            e = np.zeros(12)
            e[j] = 1
            basis.append(e.reshape(3, 4))
        worst = 0.0
        for kind in (dirs, basis):
            fds, dots = [], []
            for v in kind:
                plus = [x + EPS * v if s == r else x for s, x in enumerate(xs)]
                minus = [x - EPS * v if s == r else x for s, x in enumerate(xs)]
                fds.append((total_loss(name, plus, cs[name]) -
                            total_loss(name, minus, cs[name])) / (2 * EPS))
                dots.append(float(np.sum(g * v)))
            fds, dots = np.array(fds), np.array(dots)
            floor = max(1e-2 * np.max(np.abs(fds)), 1e-9)
            worst = max(worst, float(np.max(np.abs(dots - fds) /
                                            np.maximum(np.abs(fds), floor))))
        check.expect(f"np{n}.{name}.rank{r}", worst <= RTOL,
                     f"worst rel err {worst:.3g} vs finite differences "
                     f"(rtol {RTOL:g})")
check.finish()
