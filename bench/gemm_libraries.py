#!/usr/bin/python3
"""Which Debian GEMM library for the f32 calls of convert-linalg-to-blas:
times single-precision GEMMs of the benchmark models' shapes in OpenBLAS
(as Debian ships it, and with OPENBLAS_CORETYPE=SkylakeX), BLIS and oneDNN,
each in its own process, alternating, through ctypes. docs/performance.md
records the result and the choice.

Shapes (M, N, K, transA, transB): the MLP training step's 14 GEMMs (batch
64, 784→1024×4→10: forward, input gradients A·Bᵀ, weight gradients Aᵀ·B)
as one set, the reversible stack's four shapes (1024 rows, 256↔1024), and
1024³.

Usage: bench/gemm_libraries.py [--threads 1] [--rounds 3] [--reps 20]
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import time

import numpy as np

LIBS = {
    "openblas": ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", {}),
    "openblas-skx": ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", {"OPENBLAS_CORETYPE": "SkylakeX"}),
    "blis": ("/usr/lib/x86_64-linux-gnu/libblis.so.4", {}),
    "onednn": ("/usr/lib/x86_64-linux-gnu/libdnnl.so.2", {}),
}

MLP = ([(64, 1024, 784, 0, 0)] + [(64, 1024, 1024, 0, 0)] * 3 + [(64, 10, 1024, 0, 0)]
       + [(64, 1024, 10, 0, 1)] + [(64, 1024, 1024, 0, 1)] * 3
       + [(1024, 10, 64, 1, 0)] + [(1024, 1024, 64, 1, 0)] * 3 + [(784, 1024, 64, 1, 0)])
SETS = {
    "MLP step (14 GEMMs)": MLP,
    "rev: 1024x1024x256 NN": [(1024, 1024, 256, 0, 0)],
    "rev: 1024x256x1024 NN": [(1024, 256, 1024, 0, 0)],
    "rev: 1024x256x1024 NT": [(1024, 256, 1024, 0, 1)],
    "rev: 256x1024x1024 TN": [(256, 1024, 1024, 1, 0)],
    "1024^3 NN": [(1024, 1024, 1024, 0, 0)],
}


def child(path, reps):
    """Runs in the library's own process: prints one line per set."""
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    f, p = ctypes.c_float, ctypes.c_void_p
    dnnl = hasattr(lib, "dnnl_sgemm") and not hasattr(lib, "cblas_sgemm")
    if dnnl:
        gemm = lib.dnnl_sgemm
        i = ctypes.c_int64
        gemm.argtypes = [ctypes.c_char, ctypes.c_char, i, i, i, f, p, i, p, i, f, p, i]
    else:
        gemm = lib.cblas_sgemm
        i = ctypes.c_int
        gemm.argtypes = [i, i, i, i, i, i, f, p, i, p, i, f, p, i]
    rng = np.random.default_rng(0)
    for name, shapes in SETS.items():
        bufs = []
        for m, n, k, ta, tb in shapes:
            a = rng.standard_normal((k, m) if ta else (m, k), dtype=np.float32)
            b = rng.standard_normal((n, k) if tb else (k, n), dtype=np.float32)
            bufs.append((m, n, k, ta, tb, a, b, np.zeros((m, n), np.float32)))

        def run():
            for m, n, k, ta, tb, a, b, c in bufs:
                lda, ldb = a.shape[1], b.shape[1]
                if dnnl:
                    gemm(b"T" if ta else b"N", b"T" if tb else b"N", m, n, k, 1.0,
                         a.ctypes.data, lda, b.ctypes.data, ldb, 0.0, c.ctypes.data, n)
                else:
                    gemm(101, 112 if ta else 111, 112 if tb else 111, m, n, k, 1.0,
                         a.ctypes.data, lda, b.ctypes.data, ldb, 0.0, c.ctypes.data, n)

        run()
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            run()
            ts.append(time.perf_counter() - t)
        flop = sum(2 * m * n * k for m, n, k, *_ in shapes)
        print(f"{name}\t{flop / statistics.median(ts) / 1e9:.1f}", flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    results = {}
    for _ in range(a.rounds):
        for lib, (path, extra) in LIBS.items():
            if not os.path.exists(path):
                continue
            env = dict(os.environ, **extra)
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS"):
                env[var] = str(a.threads)
            r = subprocess.run([sys.executable, __file__, "--child", path, str(a.reps)],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit(f"{lib}: {r.stderr}")
            for line in r.stdout.splitlines():
                name, gflops = line.split("\t")
                results.setdefault((name, lib), []).append(float(gflops))
    libs = [l for l in LIBS if any(k[1] == l for k in results)]
    print(f"GFLOP/s, {a.threads} thread(s), median of {a.rounds} rounds (each the median of {a.reps} reps)")
    print(f"{'shapes':<24}" + "".join(f"{l:>14}" for l in libs))
    for name in SETS:
        print(f"{name:<24}" + "".join(f"{statistics.median(results[(name, l)]):>14.1f}" for l in libs))


if __name__ == "__main__":
    main()
