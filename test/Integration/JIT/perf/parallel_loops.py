"""Parallel loops against sequential loops and NumPy; see parallel-loops.mlir.

Usage: parallel_loops.py MODEL.mlir WORKDIR. Prints

* "OPENMP default: forks" / "OPENMP --parallel-loops=false: no forks":
  whether the optimized LLVM IR (--dump-llvm-ir) calls __kmpc_fork_call;
* "PASS|FAIL block.same": the results on 2 OpenMP threads with parallel
  loops equal those of the sequential loops bit for bit;
* "PASS|FAIL block.ref": both results against float64 NumPy (run.py's
  tolerance);
* "PASS|FAIL codegen.same": the code optimized and generated on 1 and on 3
  threads (--compile-threads: the module split into 4 parts per thread,
  each optimized alone) gives the same results as the whole module
  optimized at once (what --dump-llvm-ir dumps), bit for bit;
* "OBJECTS n": the objects a compile cache entry of a compile on 2 threads
  holds, and "PASS|FAIL codegen.hit": the results of the hit that links
  them.
"""
import glob
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "lib"))
from trellis_testing import reference as ref  # noqa: E402
from trellis_testing.run import Session, run_entry  # noqa: E402

s = Session.from_argv(seed=7)
B, L, D = 16, 64, 128
x = s.randn(B, L, D)
scale = 1.0 + 0.1 * s.randn(D)
offset = 0.1 * s.randn(D)
q = s.randn(B, L, D)
k = s.randn(B, L, D)
inputs = [x, scale, offset, q, k]
env = dict(os.environ, OMP_NUM_THREADS="2", TRELLIS_NUM_THREADS="2")


def run(tag, flags):
    ll = os.path.join(s.workdir, f"{tag}.ll")
    results, _ = run_entry(s.model, "block", inputs, s.workdir, tag=tag,
                           extra=[f"--dump-llvm-ir={ll}"] + flags, env=env)
    with open(ll) as f:
        forks = "__kmpc_fork_call" in f.read()
    return results, forks


# The GEMMs go to OpenBLAS in both runs: oneDNN's small GEMMs (which the
# host's measurement may choose) split their reduction by the threads they
# get, one inside a parallel batch loop, two outside it, so their sums
# differ in the last bits (1e-6 on attention); OpenBLAS splits rows and
# columns only. The loops are what this compares.
parallel, forks = run("parallel", ["--sgemm=cblas"])
print(f"OPENMP default: {'forks' if forks else 'no forks'}")
sequential, forks_off = run("sequential", ["--parallel-loops=false", "--sgemm=cblas"])
print(f"OPENMP --parallel-loops=false: {'forks' if forks_off else 'no forks'}")
s.expect("block.same",
         all(np.array_equal(p, q) for p, q in zip(parallel, sequential)),
         "2 OpenMP threads against sequential loops, bit for bit")
# Without --dump-llvm-ir, the optimizer runs on each part of the split
# module (on 3 threads) instead of on the whole module first.
split = [run_entry(s.model, "block", inputs, s.workdir, tag=f"codegen{n}",
                   extra=[f"--compile-threads={n}", "--sgemm=cblas"], env=env)[0]
         for n in (1, 3)]
s.expect("codegen.same",
         all(np.array_equal(p, q) for got in split
             for p, q in zip(got, parallel)),
         "code generated on 1 and on 3 threads, bit for bit")
cache = os.path.join(s.workdir, "cache")
shutil.rmtree(cache, ignore_errors=True)  # entries of an earlier run's build
for tag in ("miss", "hit"):
    cached, _ = run_entry(s.model, "block", inputs, s.workdir, tag=tag,
                          extra=["--compile-threads=2", f"--cache-dir={cache}",
                                 "--sgemm=cblas"],
                          env=env)
    if tag == "miss":
        (manifest,) = glob.glob(os.path.join(cache, "*.json"))
        with open(manifest) as f:
            print(f"OBJECTS {json.load(f)['objects']}")
s.expect("codegen.hit", all(np.array_equal(p, q) for p, q in zip(cached, parallel)),
         "the cache hit of a compile on 2 threads, bit for bit")
h = ref.gelu(ref.layer_norm(x, scale, offset)) + x
want = [ref.attention(q, k, h, 4, causal=True), ref.softmax(h)]
for got in (parallel, sequential):
    s.close("block.ref", got[0], want[0])
    s.close("block.ref", got[1], want[1])
s.finish()
