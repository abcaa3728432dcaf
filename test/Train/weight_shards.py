"""trellis-train --weight-shards=S: parameters and Adam moments kept as
shards between steps, the same training as without shards.

The Fashion-MNIST MLP with Adam (examples/fashion-mnist/model.mlir) on
random data, data-parallel on 4 ranks: once with every rank holding all
parameters, once with --weight-shards=2 (ranks {0,1} and {2,3} each hold
the model in halves) and once with --weight-shards=4. The step is the same
computation (each parameter gathered whole at the step's entry, the
gradients averaged over all ranks, rank r keeping its rows of the update),
so the losses, the evaluation metrics and the checkpoint (written whole,
gathered from the shards) must equal the unsharded run's within f32
rounding (rtol 1e-6; bit-identical is expected, not required). The
trainer's line of parameter bytes per rank must show 1/S of the whole, and
a shard count that does not divide the ranks is one line, exit 1.

The unsharded run uses the trainer's default buckets (25 MiB: all
gradients of this model in one bucket); --bucket-bytes=-1 (blocking
reductions per tensor) and 0 (a nonblocking one per tensor) must train
alike within rtol 1e-5 (OpenMPI may sum a longer buffer in another order).

usage: weight_shards.py WORKDIR MODEL
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

work, model = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()

rng = np.random.default_rng(0)
for name, n in [("train", 1600), ("test", 1000)]:
    np.savez(os.path.join(work, f"{name}.npz"),
             x=rng.uniform(0, 1, (n, 28, 28)).astype(np.float32),
             y=rng.integers(0, 10, n).astype(np.int32))


def run(tag, ranks, shards, steps=8, resume=False, extra=()):
    out = os.path.join(work, tag)
    cmd = mpi.mpirun_command(ranks) + [
        "trellis-train", model, f"--data={work}/train.npz",
        f"--eval-data={work}/test.npz", f"--steps={steps}", "--eval-every=4",
        f"--output-dir={out}"] + ([f"--weight-shards={shards}"] if shards else []) \
        + (["--resume"] if resume else []) + list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return proc, out


def losses_and_metrics(out):
    rows = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]
    return rows


base, base_out = run("unsharded", 4, None)
if not check.expect("unsharded.ran", base.returncode == 0,
                    f"exit {base.returncode} {base.stderr.strip()[-300:]}"):
    check.finish()
want_rows = losses_and_metrics(base_out)
want_ckpt = np.load(os.path.join(base_out, "checkpoint.npz"))

for shards in (2, 4):
    tag = f"shards{shards}"
    proc, out = run(tag, 4, shards)
    if not check.expect(f"{tag}.ran", proc.returncode == 0,
                        f"exit {proc.returncode} {proc.stderr.strip()[-300:]}"):
        continue
    m = re.search(r"weight shards: (\d+) .*parameter bytes per rank (\d+) of (\d+)",
                  proc.stdout)
    if check.expect(f"{tag}.bytes_line", m is not None,
                    m.group(0) if m else proc.stdout[-400:]):
        kept, whole = int(m.group(2)), int(m.group(3))
        # The documented rule (docs/collectives.md): a float parameter whose
        # first dimension S divides is split, any other (the powers of
        # beta, scalars; the 10-wide last bias and its moments at S = 4)
        # stays whole on every rank.
        params = [want_ckpt[k] for k in want_ckpt.files if k.startswith("param")]
        want_kept = sum(p.nbytes // shards if p.ndim and p.shape[0] % shards == 0
                        else p.nbytes for p in params)
        check.expect(f"{tag}.bytes_per_rank", kept == want_kept,
                     f"{kept} of {whole} bytes per rank, want {want_kept} "
                     f"({kept / whole:.3f} of the whole)")
    rows = losses_and_metrics(out)
    same_keys = [sorted(r) for r in rows] == [sorted(r) for r in want_rows]
    worst = 0.0
    if same_keys:
        for got, want in zip(rows, want_rows):
            for k, v in want.items():
                if isinstance(v, float):
                    worst = max(worst, abs(got[k] - v) / max(abs(v), 1e-30))
    check.expect(f"{tag}.metrics", same_keys and worst <= 1e-6,
                 f"{len(rows)} rows (losses and eval), worst relative "
                 f"difference to the unsharded run {worst:.1e}")
    ckpt = np.load(os.path.join(out, "checkpoint.npz"))
    worst, shapes = 0.0, sorted(ckpt.files) == sorted(want_ckpt.files)
    for name in want_ckpt.files if shapes else []:
        a, b = ckpt[name], want_ckpt[name]
        shapes &= a.shape == b.shape
        if shapes and a.dtype.kind == "f" and a.size:
            worst = max(worst, float(np.max(np.abs(a - b)) /
                                     max(float(np.max(np.abs(b))), 1e-30)))
    check.expect(f"{tag}.checkpoint", shapes and worst <= 1e-6,
                 f"{len(ckpt.files)} arrays of whole shapes, worst "
                 f"norm-relative difference {worst:.1e}")

for bucket in (-1, 0):
    tag = f"bucket{bucket}"
    proc, out = run(tag, 4, None, extra=[f"--bucket-bytes={bucket}"])
    if not check.expect(f"{tag}.ran", proc.returncode == 0,
                        f"exit {proc.returncode} {proc.stderr.strip()[-300:]}"):
        continue
    rows = losses_and_metrics(out)
    worst = max(abs(got[k] - v) / max(abs(v), 1e-30)
                for got, want in zip(rows, want_rows)
                for k, v in want.items() if isinstance(v, float))
    check.expect(f"{tag}.metrics", len(rows) == len(want_rows) and worst <= 1e-5,
                 f"{len(rows)} rows, worst relative difference to the default "
                 f"buckets {worst:.1e}")

# Resumed from the whole checkpoint, split again: still the unsharded run.
base, _ = run("unsharded", 4, None, steps=12, resume=True)
proc, out = run("shards2", 4, 2, steps=12, resume=True)
ok = base.returncode == 0 and proc.returncode == 0
worst = 0.0
if ok:
    a = np.load(os.path.join(out, "checkpoint.npz"))
    b = np.load(os.path.join(base_out, "checkpoint.npz"))
    for name in b.files:
        if b[name].dtype.kind == "f":
            worst = max(worst, float(np.max(np.abs(a[name] - b[name]))))
check.expect("shards2.resume", ok and worst <= 1e-6,
             f"exits {base.returncode}, {proc.returncode}; step 12 from the "
             f"step-8 checkpoint, worst difference {worst:.1e}")

proc, _ = run("bad", 4, 3)
# Every rank reports it (their lines may interleave on mpirun's stderr).
message = ("error: --weight-shards=3 must be at least 1 and divide the "
           "number of ranks (4)")
check.expect("bad_count", proc.returncode != 0 and message in proc.stderr,
             f"exit {proc.returncode}: {proc.stderr.count(message)} ranks "
             f"reported '{message}'")
check.finish()
