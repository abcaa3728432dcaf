"""trellis-train with the compile cache (--cache-dir, TRELLIS_CACHE_DIR;
docs/compile-cache.md), on examples/digits (@train_step and @eval):

* a run with the cache misses and reports its compile phases; the --resume
  of it hits (its compile lowers nothing), and the losses of the resumed
  steps equal an uninterrupted run without the cache bit for bit; a run
  that takes the directory from TRELLIS_CACHE_DIR hits too and reproduces
  every loss;
* with --ranks=2, data parallelism on two MPI ranks: both ranks miss the
  same key at once and the run works, leaving one whole entry and no
  temporary file; the next 2-rank run hits, with the same losses.

usage: compile_cache.py WORKDIR TRELLIS_SRC [--ranks=2]
"""

import json
import os
import re
import subprocess
import sys

from trellis_testing import mpi
from trellis_testing.run import Checker

work, src = sys.argv[1], sys.argv[2]
ranks = int(sys.argv[3].split("=")[1]) if len(sys.argv) > 3 else 1
os.makedirs(work, exist_ok=True)
check = Checker()
example = os.path.join(src, "examples", "digits")
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
model = os.path.join(example, "model.mlir")
cache = os.path.join(work, "cache")
COMPILED = re.compile(r"^compiled in [0-9]+ ms \(MLIR ([0-9]+) ms, LLVM ([0-9]+) ms, "
                      r"cache (hit|miss|off) [0-9]+ ms, GEMM tuning [0-9]+ ms\)$", re.M)


def train(out, *extra, env=None, ranks=1):
    """Returns (cache outcome, MLIR ms, LLVM ms, stderr) of the run."""
    cmd = ["trellis-train", model, f"--data={data}/train.npz",
           f"--eval-data={data}/test.npz", f"--output-dir={out}", *extra]
    if ranks > 1:
        cmd = mpi.mpirun_command(ranks) + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                          env=env)
    if proc.returncode != 0:
        print(f"FAIL {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
        sys.exit(1)
    compiled = COMPILED.findall(proc.stdout)
    if len(compiled) != 1:
        print(f"FAIL {' '.join(cmd)}: no single 'compiled in' line\n{proc.stdout}")
        sys.exit(1)
    mlir_ms, llvm_ms, outcome = compiled[0]
    return outcome, int(mlir_ms), int(llvm_ms), proc.stdout, proc.stderr


def losses(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return {r["step"]: r["loss"] for r in map(json.loads, f) if "loss" in r}


def entries():
    names = os.listdir(cache)
    keys = {n[:-5] for n in names if n.endswith(".json")}
    whole = [k for k in keys if k + ".a" in names]
    return len(whole), len(names) - 2 * len(whole)


if ranks == 1:
    straight = os.path.join(work, "straight")
    outcome, _, _, _, _ = train(straight, "--steps=40")
    check.expect("off", outcome == "off", f"without a cache: cache {outcome}")

    resumed = os.path.join(work, "resumed")
    outcome, mlir_ms, llvm_ms, _, err = train(
        resumed, "--steps=20", "--checkpoint-every=10", f"--cache-dir={cache}")
    check.expect("miss", outcome == "miss" and llvm_ms > 0 and
                 "trellis:" not in err,
                 f"first run: cache {outcome}, LLVM {llvm_ms} ms")
    outcome, mlir_ms, llvm_ms, stdout, err = train(
        resumed, "--steps=40", "--resume", f"--cache-dir={cache}")
    check.expect("resume.hit", outcome == "hit" and mlir_ms == 0 and
                 llvm_ms == 0 and "trellis:" not in err,
                 f"--resume: cache {outcome}, MLIR {mlir_ms} ms, LLVM {llvm_ms} ms")
    want, got = losses(straight), losses(resumed)
    check.expect("resume.bit_identical", "resuming from" in stdout and
                 all(got.get(s) == want[s] for s in range(21, 41)),
                 "steps 21..40 after --resume from the cache equal the "
                 "uninterrupted run without it")

    from_env = os.path.join(work, "from_env")
    outcome, _, _, _, _ = train(from_env, "--steps=40",
                                env=dict(os.environ, TRELLIS_CACHE_DIR=cache))
    check.expect("environment.hit", outcome == "hit",
                 f"TRELLIS_CACHE_DIR: cache {outcome}")
    check.expect("environment.bit_identical",
                 losses(from_env) == want, "40 steps equal the run without it")
    check.expect("entries", entries() == (1, 0),
                 "%d entries, %d other files" % entries())
else:
    first = os.path.join(work, "dp_first")
    outcome, _, _, _, err = train(first, "--steps=20", f"--cache-dir={cache}",
                                  ranks=ranks)
    check.expect("concurrent.miss", outcome == "miss" and "trellis:" not in err,
                 f"{ranks} ranks at once: cache {outcome}")
    check.expect("concurrent.entries", entries() == (1, 0),
                 "%d entries, %d other files" % entries())
    second = os.path.join(work, "dp_second")
    outcome, mlir_ms, llvm_ms, _, err = train(
        second, "--steps=20", f"--cache-dir={cache}", ranks=ranks)
    check.expect("concurrent.hit", outcome == "hit" and llvm_ms == 0 and
                 "trellis:" not in err,
                 f"next {ranks}-rank run: cache {outcome}, LLVM {llvm_ms} ms")
    check.expect("concurrent.bit_identical", losses(first) == losses(second),
                 "the hit's 20 steps equal the miss's")
check.finish()
