#!/usr/bin/python3
"""Reversible Transformer step, Trellis vs a PyTorch manual-reversible twin.

Issue 17's row. The model is bench/long_attention.py's (imported, not
copied: its model_text and params_of), the Reformer shape of issue 9: batch
1, d = 256, 4 heads, FF 1024, sequence --length (1024), depth 4 and 12; each
layer is two nn.reversible_half_residual blocks with swaps, the whole chain
one nn.reversible_serial (model_text's `serial`: its backward pass
reconstructs each block's inputs, so activation memory is flat in depth),

    x1 += Attention(x2)    layer_norm → q, k, v dense → causal attention → dense
    x1 += FeedForward(x2)  layer_norm → dense 256→1024 → gelu → dense → 256

and the step (@step) is the loss mean((y1 + y2) ⊙ c) with its gradient for
every weight (ad.value_and_grad), no update.

The twin is the same step in PyTorch's manual reversible form (as
shared/anchors/rev_stack.py writes it for its stack): the forward pass runs
under torch.no_grad() and keeps only the final (y1, y2); the backward pass
walks the layers in reverse and, for each block y = x + F(c), recomputes
F(c) with autograd on, back-propagates the cotangent through it (the
weights' gradients and the context's) and reconstructs x = y − F(c), so that
no activation is kept between blocks. Same math as the IR: nn.layer_norm's
epsilon (1e-6, docs/spec.md, or the module's), exact (erf) gelu unless the
module asks for the tanh form, causal softmax attention over 4 heads of 64.
Both sides start from the same parameters and inputs (.npy files).

Twin check first, at depth 2 and --length: one step on each side; the
losses must agree within a relative 1e-4 and every gradient within a
norm-relative 1e-3 (norms floored at 1e-3 of the largest: the key biases'
gradients are zero up to rounding, softmax ignoring a shift of a row of
scores), or the script stops (exit status 1). For information it also
compares both sides with a float64 stored-activation autograd step of the
same model.

Then, for each depth, the timing as bench/transformer_lm.py's: each side at
1 and 2 threads (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, TRELLIS_NUM_THREADS;
torch.set_num_threads in the twin), the sides alternating, --rounds rounds,
each round's figure the median of --steps steps (trellis-run --repeat; the
twin after one untimed step); medians over rounds (min–max). It prints the
ratio of the two sides' best-thread times (target <= 0.8), Trellis's
compile_ms, and the activation memory of one step:

  Trellis  peak_tensor_bytes of trellis-run --stats: the high-water mark of
           the live bytes the compiled step allocates (the gradients it
           returns included, its inputs not).
  PyTorch  the high-water mark of the live bytes PyTorch's CPU allocator
           hands out during one step, above what is live when it starts
           (the parameters and inputs), from the allocation and free events
           of torch.profiler(profile_memory=True) summed in time order; one
           extra profiled step in a process of its own, at 1 thread, not a
           timed one. Beside it the growth of the process's maximum RSS
           (getrusage ru_maxrss) over an unprofiled step, which also counts
           the allocator's cached pages, BLAS/OpenMP buffers and library code
           touched for the first time.

Flat in depth means that the peak grows from one depth to the next by the
weights' gradients only (each layer's 789 760 floats, 3.01 MiB); the table
shows each side's growth beside that figure. (A high-water mark can hide
kept activations that the gradients outgrow: docs/performance.md's
"Reversible Transformer" says what it hides for this module.)

At the issue's size a trellis-run compiles for seconds (depth 12: tens of
seconds), and each round runs two per depth; --small (--length 128, depths
1,2) runs in well under a minute, for development. bench/perf.py runs this
as `--only revtf`.

Usage: bench/reversible_transformer.py [--depths 4,12] [--length 1024] [--small]
                                       [--rounds 3] [--steps 3] [--build build]
"""
import argparse
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import long_attention  # noqa: E402  (the model's IR: model_text, params_of, D, HEADS)
import perf  # noqa: E402  (Trellis, thread_env, fmt, host_description, PYTHON)

DEPTHS = (4, 12)
LENGTH = 1024
SMALL_DEPTHS, SMALL_LENGTH = (1, 2), 128
CHECK_DEPTH = 2
LOSS_TOLERANCE = 1e-4  # relative, between the two sides' losses
GRAD_TOLERANCE = 1e-3  # norm-relative (floored), between the two sides' gradients
SHOWN = ("a0_wq", "a0_bk", "a1_wo", "f0_lns", "f1_w1")  # gradients the check prints
TARGET = 0.8  # Trellis / PyTorch, best-thread step times
MiB = 2 ** 20


def describe(length, depths):
    return (f"batch 1, L={length}, d={long_attention.D}, {long_attention.HEADS} heads, "
            f"FF {long_attention.FF}, depth {','.join(map(str, depths))}")


def ir_math(text):
    """What the twin must match of the module: nn.layer_norm's epsilon (the
    attribute if the module sets one, else the spec's default 1e-6) and
    whether nn.gelu is the tanh form."""
    eps = set(re.findall(r"epsilon = ([-+0-9.eE]+) : f32", text)) or {"1.0e-6"}
    if len(eps) != 1:
        sys.exit(f"reversible_transformer.py: the module mixes layer_norm epsilons {eps}")
    return {"eps": float(eps.pop()), "approximate_gelu": "approximate = true" in text}


def initial_arrays(length, depth, rng):
    """@step's arguments: the weights (dense: normal / sqrt(fan-in); layer-norm
    scales 1 + 0.1·normal, offsets and biases 0.1·normal, so that the twin
    check sees them), then x1, x2 and the loss weights c (standard normal)."""
    arrays = []
    for name, shape in long_attention.params_of(depth):
        if len(shape) == 2:
            a = rng.standard_normal(shape) / np.sqrt(shape[0])
        elif name.endswith("lns"):
            a = 1 + 0.1 * rng.standard_normal(shape)
        else:
            a = 0.1 * rng.standard_normal(shape)
        arrays.append(a.astype(np.float32))
    arrays += [rng.standard_normal((1, length, long_attention.D), dtype=np.float32)
               for _ in range(3)]
    return arrays


def gradient_bytes(depth):
    """The bytes of @step's gradients (one per weight, f32)."""
    return 4 * sum(math.prod(shape) for _, shape in long_attention.params_of(depth))


# -- the PyTorch twin -----------------------------------------------------------

class Twin:
    """@step in PyTorch. `arrays` as initial_arrays returns them (f32, or f64
    for the reference)."""

    def __init__(self, arrays, depth, math_of_ir):
        import torch
        self.torch, self.depth = torch, depth
        self.eps, self.approximate = math_of_ir["eps"], math_of_ir["approximate_gelu"]
        names = [name for name, _ in long_attention.params_of(depth)]
        self.params = [torch.from_numpy(a).requires_grad_() for a in arrays[:len(names)]]
        by_name = dict(zip(names, self.params))
        attention = ["lns", "lno", "wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo"]
        feed_forward = ["lns", "lno", "w1", "b1", "w2", "b2"]
        self.layers = [([by_name[f"a{i}_{n}"] for n in attention],
                        [by_name[f"f{i}_{n}"] for n in feed_forward]) for i in range(depth)]
        self.x1, self.x2, self.c = (torch.from_numpy(a) for a in arrays[len(names):])
        length = self.x1.shape[1]
        self.future = torch.ones(length, length, dtype=torch.bool).triu(1)

    def dense(self, x, w, b):
        return self.torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[1])

    def norm(self, x, scale, offset):
        return self.torch.nn.functional.layer_norm(x, (x.shape[-1],), scale, offset, eps=self.eps)

    def attention(self, x, p):
        """layer_norm → q, k, v → causal softmax attention per head → dense."""
        lns, lno, wq, bq, wk, bk, wv, bv, wo, bo = p
        n = self.norm(x, lns, lno)
        B, L, D = x.shape
        heads = long_attention.HEADS
        dh = D // heads

        def split(t):
            return t.view(B, L, heads, dh).transpose(1, 2)

        q, k, v = (split(self.dense(n, w, b)) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
        scores = self.torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
        probs = scores.masked_fill(self.future, float("-inf")).softmax(-1)
        att = self.torch.matmul(probs, v).transpose(1, 2).reshape(B, L, D)
        return self.dense(att, wo, bo)

    def feed_forward(self, x, p):
        """layer_norm → dense → gelu → dense."""
        lns, lno, w1, b1, w2, b2 = p
        h = self.dense(self.norm(x, lns, lno), w1, b1)
        h = self.torch.nn.functional.gelu(h, approximate="tanh" if self.approximate else "none")
        return self.dense(h, w2, b2)

    def loss_of(self, y1, y2):
        return ((y1 + y2) * self.c).mean()

    def step(self):
        """The manual reversible step: (loss, the gradients in params_of order)."""
        torch = self.torch
        with torch.no_grad():  # forward: keep no activations
            x1, x2 = self.x1, self.x2
            for attention, feed_forward in self.layers:
                x1 = x1 + self.attention(x2, attention)
                x2 = x2 + self.feed_forward(x1, feed_forward)
        y1, y2 = x1.requires_grad_(), x2.requires_grad_()
        with torch.enable_grad():
            loss = self.loss_of(y1, y2)
        dy1, dy2 = torch.autograd.grad(loss, (y1, y2))
        y1, y2 = y1.detach(), y2.detach()
        grads = {}
        for attention, feed_forward in reversed(self.layers):
            # undo y2 = x2 + FeedForward(y1)
            y1r = y1.requires_grad_()
            with torch.enable_grad():
                r = self.feed_forward(y1r, feed_forward)
            d = torch.autograd.grad(r, [y1r] + feed_forward, grad_outputs=dy2)
            with torch.no_grad():
                x2 = y2 - r
            dy1 = dy1 + d[0]
            grads.update(zip(map(id, feed_forward), d[1:]))
            del r, d
            # undo y1 = x1 + Attention(x2)
            x2r = x2.requires_grad_()
            with torch.enable_grad():
                r = self.attention(x2r, attention)
            d = torch.autograd.grad(r, [x2r] + attention, grad_outputs=dy1)
            with torch.no_grad():
                x1 = y1.detach() - r
            dy2 = dy2 + d[0]
            grads.update(zip(map(id, attention), d[1:]))
            del r, d
            y1, y2 = x1, x2.detach()
        return float(loss), [grads[id(p)] for p in self.params]

    def stored_step(self):
        """The same step with ordinary autograd (activations stored): the
        reference of the twin check, in float64."""
        torch = self.torch
        with torch.enable_grad():
            x1, x2 = self.x1, self.x2
            for attention, feed_forward in self.layers:
                x1 = x1 + self.attention(x2, attention)
                x2 = x2 + self.feed_forward(x1, feed_forward)
            loss = self.loss_of(x1, x2)
            grads = torch.autograd.grad(loss, self.params)
        return float(loss), list(grads)


def load_twin(config):
    with open(config) as f:
        c = json.load(f)
    return Twin([np.load(path) for path in c["inputs"]], c["depth"], c["math"])


def twin_main(config, threads, steps):
    """The twin's timing process: the median ms of `steps` steps after one."""
    import torch
    torch.set_num_threads(threads)
    perf.print_twin_step_time(load_twin(config).step, steps)


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return 1024 * int(line.split()[1])
    return 0


def twin_memory_main(config):
    """The twin's memory process (1 thread): the ru_maxrss growth over one
    unprofiled step, then the allocator's peak over one profiled step."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    torch.set_num_threads(1)
    twin = load_twin(config)
    before = rss_bytes()
    twin.step()
    rss_delta = 1024 * resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = twin.step()
    del result
    events = sorted(((e.start_us(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                     if e.name() == "[memory]"), key=lambda e: e[0])
    live = peak = 0
    for _, nbytes in events:
        live += nbytes
        peak = max(peak, live)
    print(f"peak_alloc_bytes {peak} rss_delta_bytes {rss_delta}")


def run_twin_memory(config):
    r = subprocess.run([perf.PYTHON, os.path.abspath(__file__), "--twin-memory", config],
                       capture_output=True, text=True,
                       env=perf.thread_env(1, keep_freed_memory=False))
    m = re.search(r"peak_alloc_bytes (\d+) rss_delta_bytes (-?\d+)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"reversible_transformer.py: the twin's memory run failed:\n{r.stdout}{r.stderr}")
    return int(m.group(1)), int(m.group(2))


# -- the comparison --------------------------------------------------------------

def write_model(work, length, depth):
    text = long_attention.model_text(length, depth, serial=True)
    model = f"{work}/revtf_d{depth}.mlir"
    with open(model, "w") as f:
        f.write(text)
    return model, ir_math(text)


def norm_relative(ours, theirs):
    """‖a − b‖ / max(‖b‖, 1e-3·max ‖b‖) per pair (long_attention.py's measure)."""
    floor = 1e-3 * max(np.linalg.norm(b) for b in theirs)
    return [np.linalg.norm(a - b) / max(np.linalg.norm(b), floor) for a, b in zip(ours, theirs)]


def twin_check(trellis, work, length):
    """One step of each side at depth CHECK_DEPTH; exits unless the losses
    and gradients agree. Returns (loss difference, worst gradient difference)."""
    depth = CHECK_DEPTH
    model, math_of_ir = write_model(work, length, depth)
    arrays = initial_arrays(length, depth, np.random.default_rng(depth))
    inputs = trellis.save(f"check_d{depth}", arrays)
    trellis.run(model, "step", inputs, 1, 1)
    names = [name for name, _ in long_attention.params_of(depth)]
    results = [np.load(f"{work}/out/result{i}.npy") for i in range(1 + len(names))]
    ours_loss, ours = float(results[0]), [r.astype(np.float64) for r in results[1:]]
    theirs_loss, theirs = Twin(arrays, depth, math_of_ir).step()
    theirs = [g.numpy().astype(np.float64) for g in theirs]
    ref_loss, ref = Twin([a.astype(np.float64) for a in arrays], depth, math_of_ir).stored_step()
    ref = [g.numpy() for g in ref]

    loss_diff = abs(ours_loss - theirs_loss) / abs(theirs_loss)
    diffs = norm_relative(ours, theirs)
    worst = max(range(len(diffs)), key=diffs.__getitem__)
    print(f"twin check (depth {depth}, L={length}): loss Trellis {ours_loss:.8g}, PyTorch "
          f"{theirs_loss:.8g}, relative difference {loss_diff:.2e} (≤ {LOSS_TOLERANCE:g})",
          flush=True)
    print(f"twin check: gradients, largest norm-relative difference {diffs[worst]:.2e} "
          f"({names[worst]}; ≤ {GRAD_TOLERANCE:g}); some of them: "
          + ", ".join(f"{n} {diffs[names.index(n)]:.1e}" for n in SHOWN if n in names), flush=True)
    print(f"twin check, against a float64 stored-activation autograd step: loss Trellis "
          f"{abs(ours_loss - ref_loss) / abs(ref_loss):.1e}, PyTorch "
          f"{abs(theirs_loss - ref_loss) / abs(ref_loss):.1e}; gradients (largest) Trellis "
          f"{max(norm_relative(ours, ref)):.1e}, PyTorch {max(norm_relative(theirs, ref)):.1e}",
          flush=True)
    if not (loss_diff <= LOSS_TOLERANCE and diffs[worst] <= GRAD_TOLERANCE):
        sys.exit(f"reversible_transformer.py: the twin is not a twin: loss {loss_diff:.2e} "
                 f"(≤ {LOSS_TOLERANCE:g}), gradients {diffs[worst]:.2e} (≤ {GRAD_TOLERANCE:g})")
    return loss_diff, diffs[worst]


def measure_depth(trellis, work, length, depth, rounds, steps):
    """The alternating timing of one depth and the memory of both sides."""
    model, math_of_ir = write_model(work, length, depth)
    inputs = trellis.save(f"revtf_d{depth}", initial_arrays(length, depth,
                                                            np.random.default_rng(depth)))
    config = f"{work}/revtf_d{depth}_twin.json"
    with open(config, "w") as f:
        json.dump({"inputs": inputs, "depth": depth, "math": math_of_ir}, f)
    compile_ms, caches, peak = [], set(), 0

    def run_side(side, threads):
        nonlocal peak
        if side == "Trellis":
            stats = trellis.run(model, "step", inputs, steps, threads)
            compile_ms.append(stats["compile_ms"])
            caches.add(stats.get("compile_phases", {}).get("cache", "?"))
            peak = max(peak, stats["peak_tensor_bytes"])
            return stats["run_ms"]
        return perf.run_anchor(
            [os.path.abspath(__file__), "--twin", config, str(threads), str(steps)],
            threads, r"ms/step median ([0-9.]+)")

    ms = perf.alternate_twins(rounds, run_side, label=f"depth {depth}, ")
    twin_peak, twin_rss = run_twin_memory(config)
    print(f"depth {depth}: peak tensor memory Trellis {peak / MiB:.1f} MiB, PyTorch "
          f"{twin_peak / MiB:.1f} MiB (RSS growth {twin_rss / MiB:.1f} MiB)", flush=True)
    return {"ms": ms, "compile_ms": statistics.median(compile_ms),
            "cache": "/".join(sorted(caches)), "peak": peak,
            "twin_peak": twin_peak, "twin_rss": twin_rss}


def measure(trellis, work, depths=DEPTHS, length=LENGTH, rounds=3, steps=3):
    """The twin check, then each depth's timing and memory; returns
    perf.py's rows (name, Trellis, anchor, ratio) and its compile rows
    (name, compile_ms)."""
    twin_check(trellis, work, length)
    rows, compile_rows, found = [], [], {}
    for depth in depths:
        m = found[depth] = measure_depth(trellis, work, length, depth, rounds, steps)
        ms = m["ms"]
        rows += perf.thread_rows(f"revTF d={depth}", ms, "PyTorch", TARGET)
        rows.append((f"revTF d={depth}, peak memory/step",
                     f"{m['peak'] / MiB:.1f} MiB",
                     f"PyTorch {m['twin_peak'] / MiB:.1f} MiB (RSS {m['twin_rss'] / MiB:+.0f})",
                     f"{m['peak'] / m['twin_peak']:.2f} (memory ratio; grads "
                     f"{gradient_bytes(depth) / MiB:.1f} MiB)"))
        compile_rows.append((f"reversible Transformer depth {depth} (L={length})"
                             + (f", cache {m['cache']}" if m["cache"] != "off" else ""),
                             m["compile_ms"]))
    for lo, hi in zip(depths, depths[1:]):
        grads = (gradient_bytes(hi) - gradient_bytes(lo)) / MiB
        grow = {k: (found[hi][k] - found[lo][k]) / MiB for k in ("peak", "twin_peak", "twin_rss")}
        # Flat in depth: the peak grows by the weight gradients (within 5 %
        # and 1 MiB), as storing nothing per layer but the parameters would.
        perf.record_target(f"revTF activation memory flat from d={lo} to d={hi}",
                           f"peak {grow['peak']:+.1f} MiB, gradients {grads:+.1f} MiB",
                           grow["peak"] <= 1.05 * grads + 1.0)
        rows.append((f"revTF peak growth d={lo}→{hi}",
                     f"{grow['peak']:+.1f} MiB",
                     f"PyTorch {grow['twin_peak']:+.1f} MiB (RSS {grow['twin_rss']:+.0f})",
                     f"grads {grads:+.1f} MiB (flat: growth ≈ grads)"))
    return rows, compile_rows


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--twin":
        return twin_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    if len(sys.argv) == 3 and sys.argv[1] == "--twin-memory":
        return twin_memory_main(sys.argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--depths", help=f"comma-separated depths (default "
                   f"{','.join(map(str, DEPTHS))}; --small: {','.join(map(str, SMALL_DEPTHS))})")
    p.add_argument("--length", type=int, help=f"sequence length (default {LENGTH}; --small: "
                   f"{SMALL_LENGTH})")
    p.add_argument("--small", action="store_true", help="the development size")
    perf.add_timing_args(p, rounds=3, steps=3)
    a = perf.parse_timing_args(p)
    try:
        depths = (tuple(int(d) for d in a.depths.split(",")) if a.depths
                  else SMALL_DEPTHS if a.small else DEPTHS)
    except ValueError:
        p.error(f"--depths: not a comma-separated list of integers: {a.depths}")
    length = a.length or (SMALL_LENGTH if a.small else LENGTH)
    if min(depths) < 1 or length < 1:
        p.error("depths and --length must be at least 1")
    work = tempfile.mkdtemp(prefix="trellis_revtf.")
    try:
        print(f"bench/reversible_transformer.py: {describe(length, depths)}; {a.rounds} rounds "
              f"of {a.steps} steps, alternating; medians over rounds (min–max)", flush=True)
        print(f"host: {perf.host_description()}; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        rows, compile_rows = measure(perf.Trellis(a.build, work), work, depths, length,
                                     a.rounds, a.steps)
        perf.print_tables(rows, compile_rows)
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
