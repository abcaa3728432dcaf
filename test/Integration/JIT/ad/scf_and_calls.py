"""Checks the gradients of scf_and_calls.mlir against central differences.

The reference function is evaluated in NumPy f64; every gradient entry is
compared with (f(x+e) − f(x−e)) / 2e, e = 1e-6, relative error (to the
largest entry) ≤ 1e-6. Both differentiation modes of calls are run: inlined
(the default) and through VJP functions (ad-differentiate{inline-callees=false},
applied with trellis-opt before trellis-run).
Usage: scf_and_calls.py MODEL.mlir WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

model, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(1)
x, w = rng.normal(size=3), rng.normal(size=3)
np.save(f"{work}/x.npy", x)
np.save(f"{work}/w.npy", w)


def f(x, w, c):
    a = x
    for _ in range(4):
        a = np.tanh(a) * w
    return (np.exp(a) if c else a * w).mean()


def central(fn, v, e=1e-6):
    return np.array([(fn(v + e * d) - fn(v - e * d)) / (2 * e) for d in np.eye(v.size)])


no_inline = f"{work}/no_inline.mlir"
r = subprocess.run(["trellis-opt", model, "--ad-differentiate=inline-callees=false",
                    "-o", no_inline], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(r.stderr)
if "__call_vjp" not in open(no_inline).read():
    sys.exit("inline-callees=false did not differentiate through a VJP function")

ok = True
for variant, path in [("inlined", model), ("vjp calls", no_inline)]:
    for c in (True, False):
        entry = f"grad_{str(c).lower()}"
        out = f"{work}/{variant.replace(' ', '_')}_{entry}"
        r = subprocess.run(["trellis-run", path, f"--entry={entry}", f"--input={work}/x.npy",
                            f"--input={work}/w.npy", f"--output-dir={out}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        gx, gw = np.load(f"{out}/result0.npy"), np.load(f"{out}/result1.npy")
        fx = central(lambda v: f(v, w, c), x)
        fw = central(lambda v: f(x, v, c), w)
        for name, g, fd in (("x", gx, fx), ("w", gw, fw)):
            err = np.abs(g - fd).max() / np.abs(fd).max()
            print(f"{variant}, cond={c}: d/d{name} relative error {err:.1e}")
            ok &= err <= 1e-6
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
