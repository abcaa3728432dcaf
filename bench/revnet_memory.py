#!/usr/bin/python3
"""The RevNet of examples/fashion-mnist (gen_revnet.py): peak tensor memory
of one training step (@train_step: forward, backward, Adam) at several
depths, reversible (the blocks in an nn.reversible_serial, whose backward
reconstructs each block's inputs) against the same blocks as ordinary
residuals (--plain, every activation stored). Both sides compute the same
step: the script checks that their losses agree within 1e-5 relative and
their gradients (Adam's first moments after one step, (1 − β1)·g) within
5e-2 norm-relative (the reconstruction x = y − F(c) in f32 drifts with
depth: measured below), then prints
peak_tensor_bytes (trellis-run --stats: the high-water mark of the
step's live tensor buffers), the step time and the compile time.

Issue 22's target: the reversible network's activation memory is flat from
8 to 32 blocks.

Usage: bench/revnet_memory.py [--depths 8,16,32] [--batch 100] [--build build]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples", "fashion-mnist"))
import gen_revnet  # noqa: E402
import perf  # noqa: E402  (host_description)


def initial_arrays(blocks, batch, rng):
    """@train_step's arguments: the parameters drawn as their trellis.init
    says, the batch-norm state, Adam's zero moments and unit powers of beta,
    and a batch of images in [0, 1] with labels."""
    params = gen_revnet.parameters(blocks)
    arrays = perf.draw_parameters(params + gen_revnet.state(blocks), rng)
    arrays += [np.zeros(p.shape, np.float32) for p in params] * 2
    arrays += [np.ones((), np.float32)] * 2
    arrays += [rng.uniform(0, 1, (batch, 28, 28)).astype(np.float32),
               rng.integers(0, 10, batch).astype(np.int32)]
    return arrays


def run_step(trellis_run, work, blocks, batch, plain, repeat=3):
    """One side at one depth: (its results, trellis-run's --stats)."""
    args = ["--blocks", str(blocks), "--batch", str(batch), "--eval-batch", str(batch)]
    text = gen_revnet.model_text(gen_revnet.parse(args + (["--plain"] if plain else [])))
    tag = f"{work}/{'plain' if plain else 'rev'}{blocks}"
    os.makedirs(tag, exist_ok=True)
    with open(f"{tag}/model.mlir", "w") as f:
        f.write(text)
    arrays = initial_arrays(blocks, batch, np.random.default_rng(0))
    for i, a in enumerate(arrays):
        np.save(f"{tag}/in{i}.npy", a)
    r = subprocess.run([trellis_run, f"{tag}/model.mlir", "--entry=train_step", "--stats",
                        f"--repeat={repeat}", f"--output-dir={tag}/out"]
                       + [f"--input={tag}/in{i}.npy" for i in range(len(arrays))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"revnet_memory.py: trellis-run failed on {tag}/model.mlir:\n{r.stderr}")
    stats = json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][-1])
    results = [np.load(f"{tag}/out/result{i}.npy") for i in range(len(arrays) - 1)]
    return results, stats


def compare(rev, plain, blocks):
    """(relative loss difference, norm-relative gradient difference): the
    loss is @train_step's last result, the gradients are the first Adam
    moments, which follow the parameters and the state."""
    n = len(gen_revnet.parameters(blocks))
    first = n + len(gen_revnet.state(blocks))
    loss = abs(float(rev[-1]) - float(plain[-1])) / abs(float(plain[-1]))
    num = sum(float(np.sum((r.astype(np.float64) - q) ** 2))
              for r, q in zip(rev[first:first + n], plain[first:first + n]))
    den = sum(float(np.sum(q.astype(np.float64) ** 2)) for q in plain[first:first + n])
    return loss, float(np.sqrt(num / den))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--depths", default="8,16,32")
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    a = p.parse_args()
    depths = [int(d) for d in a.depths.split(",")]
    trellis_run = os.path.join(a.build, "bin", "trellis-run")
    work = tempfile.mkdtemp(prefix="trellis_revnet.")
    print(f"bench/revnet_memory.py: batch {a.batch}, depths {depths}", flush=True)
    print(f"host: {perf.host_description()}", flush=True)
    rows = []
    for blocks in depths:
        rev, rev_stats = run_step(trellis_run, work, blocks, a.batch, plain=False)
        plain, plain_stats = run_step(trellis_run, work, blocks, a.batch, plain=True)
        loss_diff, diff = compare(rev, plain, blocks)
        if not (loss_diff <= 1e-5 and diff <= 5e-2):
            sys.exit(f"revnet_memory.py: at {blocks} blocks the reversible and the plain step "
                     f"differ: loss {loss_diff:.2e}, gradients {diff:.2e} (norm-relative)")
        rows.append((blocks, rev_stats, plain_stats, diff))
        print(f"{blocks} blocks: reversible {rev_stats['peak_tensor_bytes'] / 2**20:.1f} MiB, "
              f"plain {plain_stats['peak_tensor_bytes'] / 2**20:.1f} MiB", flush=True)
    print()
    print(f"{'blocks':>6}  {'reversible peak':>16}  {'plain peak':>11}  {'rev step':>9}  "
          f"{'plain step':>10}  {'rev compile':>11}  gradient difference")
    for blocks, r, q, diff in rows:
        print(f"{blocks:>6}  {r['peak_tensor_bytes'] / 2**20:>12.1f} MiB  "
              f"{q['peak_tensor_bytes'] / 2**20:>7.1f} MiB  {r['run_ms']:>6.0f} ms  "
              f"{q['run_ms']:>7.0f} ms  {r['compile_ms'] / 1e3:>9.1f} s  {diff:.1e}")
    first, last = rows[0][1]["peak_tensor_bytes"], rows[-1][1]["peak_tensor_bytes"]
    print(f"\nreversible peak from {depths[0]} to {depths[-1]} blocks: x{last / first:.3f} "
          f"(flat: {'yes' if last <= 1.05 * first else 'no'})")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
