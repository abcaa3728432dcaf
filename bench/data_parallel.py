#!/usr/bin/python3
"""Data-parallel throughput of a Transformer training step (issue 18).

The model is bench/transformer_lm.py's (examples/transformer/gen_model.py)
at a size that trains in seconds per run; the data are random tokens.
trellis-train runs it on 1 rank (no mpirun) and under `mpirun -np 2`, each
rank with one thread (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
TRELLIS_NUM_THREADS = 1) and its own batch of --batch sequences, so a
step of the 2-rank job trains twice the examples: the throughput ratio is
2 × steps/s(np=2) / steps/s(np=1), target >= 1.8. Under mpirun the trainer
reduces the gradients with coll-average-gradients and fuses them with
coll-bucket-reductions into buckets of --bucket-bytes (the trainer's
default 25 MiB; -1: no buckets), each started where the backward pass has
computed it and waited for before the update; TRELLIS_COLL_STATS=1 makes
every rank print the time it spent in coll.wait (the reduction's exposed
time), reported per step (0 without buckets: the per-tensor pmeans are not
counted). The host's CPU and the NumPy GEMM anchor are printed first.

Runs alternate np=1 and np=2, --rounds times; medians (min-max).
Run it while holding the build lock exclusively:
  flock /tmp/trellis-build.lock bench/data_parallel.py

Usage: bench/data_parallel.py [--rounds 3] [--steps 30] [--build build]
       [--layers 2] [--width 256] [--seq 64] [--ff 1024] [--vocab 256]
       [--batch 8] [--bucket-bytes N]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--rounds", type=int, default=3)
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--build", default=os.path.join(ROOT, "build"))
parser.add_argument("--layers", type=int, default=2)
parser.add_argument("--width", type=int, default=256)
parser.add_argument("--heads", type=int, default=4)
parser.add_argument("--seq", type=int, default=64)
parser.add_argument("--ff", type=int, default=1024)
parser.add_argument("--vocab", type=int, default=256)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--bucket-bytes", type=int, default=None,
                    help="trellis-train's --bucket-bytes (default: its own)")
args = parser.parse_args()

sys.path.insert(0, HERE)
import perf  # noqa: E402  (bench/perf.py: host and anchor lines)

print(perf.host_description())
perf.print_anchor_health(10)

work = tempfile.mkdtemp(prefix="trellis-dp-bench-")
model = os.path.join(work, "model.mlir")
with open(model, "w") as f:
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "transformer",
                                      "gen_model.py"), str(args.layers),
         "--vocab", str(args.vocab), "--seq", str(args.seq),
         "--width", str(args.width), "--heads", str(args.heads),
         "--ff", str(args.ff), "--train-batch", str(args.batch),
         "--eval-batch", str(args.batch)], stdout=f, check=True)
rng = np.random.default_rng(0)
n = args.batch * 2 * (args.steps + 1)
tokens = rng.integers(0, args.vocab, (n, args.seq + 1)).astype(np.int32)
data = os.path.join(work, "train.npz")
np.savez(data, x=tokens[:, :args.seq],
         pos_ids=np.tile(np.arange(args.seq, dtype=np.int32), (n, 1)),
         y=tokens[:, 2:args.seq + 1])
train = os.path.join(args.build, "bin", "trellis-train")
env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
           TRELLIS_NUM_THREADS="1", TRELLIS_COLL_STATS="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
cache = os.path.join(work, "cache")


def run(ranks, round_):
    out = os.path.join(work, f"np{ranks}_{round_}")
    cmd = [train, model, f"--data={data}", f"--steps={args.steps}",
           f"--output-dir={out}", "--log-every=1000000",
           f"--cache-dir={cache}"]
    if args.bucket_bytes is not None:
        cmd.append(f"--bucket-bytes={args.bucket_bytes}")
    if ranks > 1:
        cmd = ["mpirun", "--bind-to", "core", "-np", str(ranks)] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}")
    rates = [float(m) for m in re.findall(r"([0-9.]+) steps/s", proc.stdout)]
    exposed = [float(m) for m in re.findall(r"exposed ([0-9.]+) ms",
                                            proc.stderr)]
    waits = [int(m) for m in re.findall(r"waited for (\d+)", proc.stderr)]
    if not rates:
        sys.exit(f"no steps/s in the output of {' '.join(cmd)}:\n{proc.stdout}")
    per_step = max(exposed) / args.steps if exposed else 0.0
    buckets = waits[0] / args.steps if waits else 0
    return rates[-1], per_step, buckets


def fmt(values, unit=""):
    return (f"{statistics.median(values):.2f}{unit} "
            f"({min(values):.2f}-{max(values):.2f})")


run(1, "warm")  # compile once into the cache
run(2, "warm")
one, two, exposed, buckets = [], [], [], 0
for r in range(args.rounds):
    one.append(run(1, r)[0])
    rate, per_step, buckets = run(2, r)
    two.append(rate)
    exposed.append(per_step)
ratio = [2 * b / a for a, b in zip(one, two)]
print(f"model: {args.layers} layers, width {args.width}, seq {args.seq}, "
      f"ff {args.ff}, vocab {args.vocab}, batch {args.batch} per rank")
print(f"np=1: {fmt(one)} steps/s; np=2: {fmt(two)} steps/s "
      f"({buckets:g} bucket(s) per step)")
print(f"throughput np=2 / np=1: {fmt(ratio, 'x')} (target >= 1.8)")
print(f"exposed reduction time per step (max over ranks): "
      f"{fmt(exposed, ' ms')}")
