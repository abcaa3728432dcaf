"""Chunked attention (online softmax forward, chunked VJP) against the whole
lowering, NumPy and finite differences.

The model is generated here: for each case, @fwd_<case> (nn.attention),
@loss_<case> (mean of the output times a fixed tensor) and @grad_<case>
(ad.grad of the loss for q, k, v). It runs twice, with
`--attention-chunk=CHUNK` and with `--attention-chunk=0` (whole):

  * chunked vs whole, outputs and gradients: norm-relative error
    ‖got − want‖ / ‖want‖ ≤ 1e-5 in f32, 1e-10 in f64;
  * chunked forward vs NumPy in float64 (reference.attention), elementwise
    (run.py's Checker.close: 1e-5 in f32, 1e-12 in f64 with an RMS floor);
  * f64 cases: the chunked gradients against central finite differences of
    the chunked loss (gradcheck.py: 4 random directions per argument,
    1e-6 relative);
  * a reversible half-residual (layer_norm → q/k/v dense → attention →
    dense) with gradients of its input and all its weights, chunked vs
    whole, f64 and f32 (the key bias, whose true gradient is zero, is held
    to zero at the scale of the key weights' gradient).

Lengths that are and are not multiples of the chunk, causal and not,
Lq ≠ Lk, 1–4 heads.
usage: chunked.py WORKDIR
"""

import os
import sys

import numpy as np

from trellis_testing import reference as ref
from trellis_testing.gradcheck import GradCheck
from trellis_testing.run import Checker

CHUNK = 4
NORM_RTOL = {"f32": 1e-5, "f64": 1e-10}

# name: (batch, Lq, Lk, D, heads, causal, dtype)
CASES = {
    "causal_ragged": (2, 10, 10, 8, 2, True, "f64"),
    "causal_even": (2, 12, 12, 8, 2, True, "f64"),
    "causal_one_head": (1, 9, 9, 6, 1, True, "f64"),
    "cross_ragged": (1, 9, 13, 8, 4, False, "f64"),
    "cross_even": (2, 8, 12, 6, 3, False, "f64"),
    "self_ragged": (2, 7, 7, 8, 2, False, "f64"),
    "causal_f32": (2, 11, 11, 16, 4, True, "f32"),
    "cross_f32": (1, 6, 10, 8, 2, False, "f32"),
}
# The reversible block: (batch, L, D, heads, dtype).
BLOCKS = {"block_f64": (2, 10, 8, 2, "f64"), "block_f32": (1, 9, 8, 4, "f32")}


def ty(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def case_funcs(name, b, lq, lk, d, h, causal, dt):
    tq, tk, s = ty((b, lq, d), dt), ty((b, lk, d), dt), ty((), dt)
    att = (f"nn.attention %q, %k, %v {{num_heads = {h} : i64, causal = "
           f"{str(causal).lower()}}} : ({tq}, {tk}, {tk}) -> {tq}")
    return f"""
func.func @fwd_{name}(%q: {tq}, %k: {tk}, %v: {tk}) -> {tq} {{
  %o = {att}
  return %o : {tq}
}}
func.func @loss_{name}(%q: {tq}, %k: {tk}, %v: {tk}, %c: {tq}) -> {s} {{
  %o = {att}
  %p = arith.mulf %o, %c : {tq}
  %l = nn.mean %p : ({tq}) -> {s}
  return %l : {s}
}}
func.func @grad_{name}(%q: {tq}, %k: {tk}, %v: {tk}, %c: {tq})
    -> ({tq}, {tk}, {tk}) {{
  %gq, %gk, %gv = ad.grad @loss_{name}(%q, %k, %v, %c)
      {{argnums = array<i64: 0, 1, 2>}}
      : ({tq}, {tk}, {tk}, {tq}) -> ({tq}, {tk}, {tk})
  return %gq, %gk, %gv : {tq}, {tk}, {tk}
}}
"""


def block_funcs(name, b, l, d, h, dt):
    x, w, v, s = ty((b, l, d), dt), ty((d, d), dt), ty((d,), dt), ty((), dt)
    params = ", ".join(f"%{p}: {w if p.startswith('w') else v}" for p in
                       ("lns", "lno", "wq", "bq", "wk", "bk", "wv", "bv",
                        "wo", "bo"))
    names = "%lns, %lno, %wq, %bq, %wk, %bk, %wv, %bv, %wo, %bo"
    types = ", ".join([v, v] + [w, v] * 4)
    return f"""
func.func @loss_{name}(%x1: {x}, %x2: {x}, {params}, %c: {x}) -> {s} {{
  %r:2 = nn.reversible_half_residual %x1, %x2 : {x}, {x} {{
  ^bb0(%u: {x}):
    %n = nn.layer_norm %u, %lns, %lno : ({x}, {v}, {v}) -> {x}
    %q = nn.dense %n, %wq, %bq : ({x}, {w}, {v}) -> {x}
    %k = nn.dense %n, %wk, %bk : ({x}, {w}, {v}) -> {x}
    %vv = nn.dense %n, %wv, %bv : ({x}, {w}, {v}) -> {x}
    %a = nn.attention %q, %k, %vv {{num_heads = {h} : i64, causal = true}}
        : ({x}, {x}, {x}) -> {x}
    %o = nn.dense %a, %wo, %bo : ({x}, {w}, {v}) -> {x}
    nn.yield %o : {x}
  }}
  %p = arith.mulf %r#0, %c : {x}
  %t = arith.mulf %p, %r#1 : {x}
  %l = nn.mean %t : ({x}) -> {s}
  return %l : {s}
}}
func.func @grad_{name}(%x1: {x}, %x2: {x}, {params}, %c: {x})
    -> ({x}, {x}, {types}) {{
  %g:12 = ad.grad @loss_{name}(%x1, %x2, {names}, %c)
      {{argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>}}
      : ({x}, {x}, {types}, {x}) -> ({x}, {x}, {types})
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9, %g#10, %g#11
      : {x}, {x}, {types}
}}
"""


def main():
    workdir = sys.argv[1]
    os.makedirs(workdir, exist_ok=True)
    model = os.path.join(workdir, "model.mlir")
    with open(model, "w") as f:
        for name, c in CASES.items():
            f.write(case_funcs(name, *c))
        for name, c in BLOCKS.items():
            f.write(block_funcs(name, *c))

    rng = np.random.default_rng(7)
    npdt = {"f32": np.float32, "f64": np.float64}
    inputs = {}
    for name, (b, lq, lk, d, h, causal, dt) in CASES.items():
        inputs[name] = [rng.standard_normal(s).astype(npdt[dt]) for s in
                        ((b, lq, d), (b, lk, d), (b, lk, d), (b, lq, d))]
    for name, (b, l, d, h, dt) in BLOCKS.items():
        shapes = [(b, l, d), (b, l, d), (d,), (d,)]
        shapes += [(d, d), (d,)] * 4 + [(b, l, d)]
        arrays = [rng.standard_normal(s) for s in shapes]
        arrays[2] = 1.0 + 0.1 * arrays[2]  # layer_norm scale near 1
        for i in range(4, 12, 2):
            arrays[i] /= np.sqrt(d)
        inputs[name] = [a.astype(npdt[dt]) for a in arrays]

    # One trellis-run per chunk setting, every call in it.
    runs = {}
    for chunk in (CHUNK, 0):
        # -O0: the module is large (every case twice, the probes) and the
        # test is about the lowering, not LLVM's optimizations.
        gc = GradCheck(model, os.path.join(workdir, f"chunk{chunk}"), seed=1,
                       opt_level=0, run_args=[f"--attention-chunk={chunk}"])
        calls = {}
        for name, (b, lq, lk, d, h, causal, dt) in CASES.items():
            x = inputs[name]
            calls[name] = (gc.call(f"fwd_{name}", x[:3], results=1),
                           gc.call(f"grad_{name}", x, results=3))
            if chunk and dt == "f64":
                gc.check(f"fd.{name}", f"loss_{name}", x, argnums=[0, 1, 2],
                         arg_names=["q", "k", "v"])
        for name in BLOCKS:
            calls[name] = (None, gc.call(f"grad_{name}", inputs[name],
                                         results=12))
        gc.run()
        if chunk:
            gc_chunked = gc
        runs[chunk] = calls

    check = gc_chunked  # FD results are in; further checks print alike.
    for name, (b, lq, lk, d, h, causal, dt) in CASES.items():
        tol = NORM_RTOL[dt]
        fwd_c, grad_c = runs[CHUNK][name]
        fwd_w, grad_w = runs[0][name]
        q, k, v, _ = inputs[name]
        want = ref.attention(q, k, v, h, causal=causal)
        checker = Checker(npdt[dt])
        checker.close(f"{name}.out_vs_numpy", fwd_c.results[0], want)
        check.failures += checker.failures
        pairs = [("out", fwd_c.results[0], fwd_w.results[0])]
        pairs += [(g, a, w) for g, a, w in
                  zip(("dq", "dk", "dv"), grad_c.results, grad_w.results)]
        for what, got, ref_ in pairs:
            norm_check(check, f"{name}.{what}", got, ref_, tol)
    for name, (b, l, d, h, dt) in BLOCKS.items():
        labels = ["x1", "x2", "lns", "lno", "wq", "bq", "wk", "bk", "wv",
                  "bv", "wo", "bo"]
        chunked, whole = runs[CHUNK][name][1].results, runs[0][name][1].results
        for label, got, want in zip(labels, chunked, whole):
            # The key bias shifts every score of a query row by the same
            # q·bk, which softmax ignores: its true gradient is zero and both
            # lowerings give rounding noise. It is held to zero at the scale
            # of the key weights' gradient instead.
            scale = np.linalg.norm(whole[labels.index("wk")].astype(np.float64))
            norm_check(check, f"{name}.{label}", got, want, NORM_RTOL[dt],
                       scale=scale if label == "bk" else 0.0)
            if label == "bk":
                norm_check(check, f"{name}.bk_whole_is_zero", want,
                           np.zeros_like(want), NORM_RTOL[dt], scale=scale,
                           suffix="")
    check.finish()


def norm_check(checker, name, got, want, tol, scale=0.0,
               suffix="_chunked_vs_whole"):
    """‖got − want‖ ≤ tol · max(‖want‖, scale)."""
    got64, want64 = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or got.dtype != want.dtype:
        checker.expect(name, False, f"{got.dtype}{got.shape} vs "
                       f"{want.dtype}{want.shape}")
        return
    denom = max(np.linalg.norm(want64), scale, np.finfo(np.float64).tiny)
    err = np.linalg.norm(got64 - want64) / denom
    checker.expect(f"{name}{suffix}", err <= tol,
                   f"norm-relative error {err:.3g} (bound {tol:g})")


if __name__ == "__main__":
    main()
