"""Vector math (libmvec) accuracy and use; see vector-math.mlir.

Usage: vector_math.py MODEL.mlir WORKDIR. Runs each entry of the model with
trellis-run --dump-llvm-ir, prints the libmvec functions its optimized IR
calls ("CALLS <entry>: <name>"), and checks the results:

* math_f32 / math_f64: every element within ULPS units in the last place of
  a more precise reference (f64 for f32; x87 long double for exp, log, tanh
  in f64; Python's math.erf, itself within 1 ulp, for erf in f64, hence one
  more ulp there). glibc documents its libmvec functions to 4 ulp.
  Non-finite and zero references must be matched exactly (sign of zero
  included), NaN by NaN.
* softmax_gelu: the layers against NumPy in f64. Softmax: elementwise
  relative 2e-6 (a few f32 roundings). GELU, 0.5·x·(1 + t) with t = tanh(…)
  or erf(…): absolute 8·ε·0.5·|x|·(1 + |t|), ε = 2^-23 — a few roundings of
  t and of the sum, scaled by 0.5·|x|; near x ≈ -3, 1 + t cancels, so the
  relative error there is large in any f32 evaluation of the formula (6e-6
  with scalar libm, the same with libmvec).
"""
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "lib"))
from trellis_testing.run import run_entry  # noqa: E402

ULPS = 4
model, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
rng = np.random.default_rng(7)
failed = False


def run(entry, inputs, nresults):
    ll = os.path.join(workdir, entry + ".ll")
    results, _ = run_entry(model, entry, inputs, workdir,
                           extra=[f"--dump-llvm-ir={ll}"])
    # The libmvec calls inside the entry's code (the dump holds the whole
    # module): the engine's wrapper `_mlir_<entry>`, into which the JIT
    # inlines the entry with its loops (lib/Runtime/Optimizer.cpp).
    with open(ll) as f:
        text = f.read()
    body = re.search(r"^define [^@\n]*@_mlir_" + entry + r"\(.*?^}", text,
                     re.M | re.S).group(0)
    for name in sorted(set(re.findall(r"call [^@\n]*@(_ZGV\w+)", body))):
        print(f"CALLS {entry}: {name}")
    if len(results) != nresults:
        sys.exit(f"FAIL {entry}: {len(results)} results, expected {nresults}")
    return results


def report(name, ok, detail):
    global failed
    failed |= not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")


def check_ulps(name, got, ref, dtype, allowance=0):
    """|got - ref| in units in the last place of ref (rounded to dtype)."""
    ref_t = ref.astype(dtype)
    special = ~np.isfinite(ref_t) | (ref_t == 0)
    same = (np.isnan(got) & np.isnan(ref_t)) | (
        (got == ref_t) & (np.signbit(got) == np.signbit(ref_t)))
    if not np.all(same[special]):
        i = np.flatnonzero(special & ~same)[0]
        report(name, False, f"special value: got {got[i]!r}, want {ref_t[i]!r}")
        return
    ulp = np.spacing(np.abs(ref_t)).astype(np.longdouble)
    err = np.where(special, 0,
                   np.abs(got.astype(np.longdouble) - ref) / ulp)
    i = int(np.argmax(err))
    worst = float(err[i])
    report(name, worst <= ULPS + allowance,
           f"worst {worst:.2f} ulp at x[{i}] (limit {ULPS + allowance})")


def inputs(dtype):
    info = np.finfo(dtype)
    x_special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 20.0,
                 -20.0, 5.0, -5.0, float(info.tiny), 700.0, 710.0, -745.0,
                 -800.0, 88.7, 89.0, -87.0, -104.0]
    p_special = [0.0, -0.0, -1.0, np.inf, np.nan, 1.0, float(info.tiny),
                 float(info.smallest_subnormal), float(info.max), 0.5, 2.0]
    x = np.concatenate([x_special, rng.uniform(-10, 10, 500),
                        rng.normal(0, 1, 1024 - 500 - len(x_special))])
    p = np.concatenate([p_special,
                        10.0 ** rng.uniform(-30, 30, 1024 - len(p_special))])
    return x.astype(dtype), p.astype(dtype)


erf = np.vectorize(math.erf, otypes=[np.float64])
for dtype, entry, wide in [(np.float32, "math_f32", np.float64),
                           (np.float64, "math_f64", np.longdouble)]:
    x, p = inputs(dtype)
    with np.errstate(all="ignore"):
        e, lg, t, r = run(entry, [x, p], 4)
        check_ulps(f"{entry}.exp", e, np.exp(x.astype(wide)), dtype)
        check_ulps(f"{entry}.log", lg, np.log(p.astype(wide)), dtype)
        check_ulps(f"{entry}.tanh", t, np.tanh(x.astype(wide)), dtype)
        check_ulps(f"{entry}.erf", r,
                   erf(x.astype(np.float64)).astype(np.longdouble), dtype,
                   allowance=1 if dtype == np.float64 else 0)

x = rng.normal(0, 3, (64, 256)).astype(np.float32)
s, g, h = run("softmax_gelu", [x], 3)
xd = x.astype(np.float64)
z = np.exp(xd - xd.max(axis=1, keepdims=True))
want = {"softmax": z / z.sum(axis=1, keepdims=True),
        "gelu_tanh": 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi)
                                             * (xd + 0.044715 * xd ** 3))),
        "gelu_erf": 0.5 * xd * (1 + erf(xd / math.sqrt(2)))}
ref = want["softmax"]
err = float((np.abs(s - ref) / ref).max())
report("softmax_gelu.softmax", err <= 2e-6,
       f"worst relative error {err:.2e} (limit 2e-6)")
eps = float(np.finfo(np.float32).eps)
for name, got, t in [
        ("gelu_tanh", g, np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3))),
        ("gelu_erf", h, erf(xd / math.sqrt(2)))]:
    scale = 0.5 * np.abs(xd) * (1 + np.abs(t)) * eps
    err = float((np.abs(got - want[name]) / np.maximum(scale, 1e-30)).max())
    report(f"softmax_gelu.{name}", err <= 8,
           f"worst error {err:.2f} x eps*0.5|x|(1+|t|) (limit 8)")

print("SOME CHECKS FAILED" if failed else "ALL CHECKS PASSED")
sys.exit(1 if failed else 0)
