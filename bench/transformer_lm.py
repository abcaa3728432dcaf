#!/usr/bin/python3
"""A Transformer LM training step, Trellis against a PyTorch twin (issue 17).

The model is examples/transformer/gen_model.py's at the issue's size:
vocabulary = sequence length = width = 256, 4 pre-layer-norm blocks of
causal self-attention (4 heads) and a gelu feed-forward (1024), batch 8, the
next-token softmax cross-entropy, Adam written in IR (@train_step). The twin
is the same step in plain PyTorch ops: the same layers in the IR's order,
autograd, and the IR's Adam (its β1, β2, ε and learning rate, read from the
generated IR; ε added to sqrt(v) with the bias corrections folded into the
step size, as modelgen.py writes it, not torch.optim.Adam's form). Both
sides start from the same parameters and see the same batch (.npy files).

Twin check first: two steps on each side, the second from the first's
parameters and moments; both losses must agree within a relative 1e-4
(f32), or the script stops. Then the timing, as bench/perf.py's: each side
at 1 and 2 threads (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
TRELLIS_NUM_THREADS; torch.set_num_threads in the twin), the sides
alternating, --rounds rounds, each round's figure the median of --steps
steps; medians over rounds (min–max). It prints Trellis's compile_ms, the
ratio of the two sides' best-thread times (target <= 0.6) and Trellis's
2-thread speedup (target >= 1.6). bench/perf.py runs it as `--only lm`.

At the issue's size, one trellis-run compiles the module for tens of
seconds, and each round runs four of them; --small (V = L = D = 32, 2
layers, FF 64, batch 2) runs in seconds, for development.

Usage: bench/transformer_lm.py [--small] [--rounds 3] [--steps 5] [--build build]
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import types

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples", "transformer"))
import gen_model  # noqa: E402  (the model's IR generator)
import perf  # noqa: E402  (Trellis, run_anchor, thread_env, fmt, host_description)


def sizes(vocab, seq, width, heads, ff, layers, batch):
    """gen_model's sizes (its sizes_parser() namespace)."""
    return types.SimpleNamespace(vocab=vocab, seq=seq, width=width, heads=heads, ff=ff,
                                 layers=layers, train_batch=batch, eval_batch=batch)


ISSUE = sizes(vocab=256, seq=256, width=256, heads=4, ff=1024, layers=4, batch=8)
SMALL = sizes(vocab=32, seq=32, width=32, heads=4, ff=64, layers=2, batch=2)
TOLERANCE = 1e-4  # relative, between the two sides' losses


def describe(s):
    return (f"V={s.vocab} L={s.seq} D={s.width}, {s.layers} layers, {s.heads} heads, "
            f"FF {s.ff}, batch {s.train_batch}")


def adam_constants(text):
    """The constants of the IR's Adam (modelgen.module's @train_step)."""
    found = dict(re.findall(r"%(b1|b2|c1|c2|eps|lr) = arith.constant (\S+) : f32", text))
    return {k: float(v) for k, v in found.items()}


def initial_arrays(s, rng):
    """The arguments of @train_step: the parameters (drawn as their
    trellis.init says, like trellis-train), Adam's zero moments and unit
    powers of β, and one batch of random token sequences whose labels are
    the next tokens of positions 1..L-1."""
    params = perf.draw_parameters(gen_model.parameters(s), rng)
    moments = [np.zeros_like(a) for a in params + params]
    powers = [np.ones((), np.float32), np.ones((), np.float32)]
    tokens = rng.integers(0, s.vocab, (s.train_batch, s.seq + 1)).astype(np.int32)
    batch = [np.ascontiguousarray(tokens[:, :s.seq]),
             np.tile(np.arange(s.seq, dtype=np.int32), (s.train_batch, 1)),
             np.ascontiguousarray(tokens[:, 2:])]
    return params + moments + powers + batch


# -- the PyTorch twin -----------------------------------------------------------

class Twin:
    """@train_step in PyTorch: gen_model's forward op by op, autograd for the
    gradients, then the IR's Adam update in place."""

    def __init__(self, arrays, heads, adam):
        import torch
        self.torch, self.heads, self.adam = torch, heads, adam
        n = (len(arrays) - 5) // 3
        self.layers = (n - 6) // 16
        self.p = [torch.tensor(a, requires_grad=True) for a in arrays[:n]]
        self.m = [torch.tensor(a) for a in arrays[n:2 * n]]
        self.v = [torch.tensor(a) for a in arrays[2 * n:3 * n]]
        self.b1p, self.b2p = np.float32(arrays[3 * n]), np.float32(arrays[3 * n + 1])
        self.x, self.pos_ids, self.y = (torch.from_numpy(a).long() for a in arrays[3 * n + 2:])
        seq = self.x.shape[1]
        self.future = torch.ones(seq, seq, dtype=torch.bool).triu(1)

    def dense(self, x, w, b):
        return self.torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[1])

    def attention(self, q, k, v):
        B, L, D = q.shape
        dh = D // self.heads

        def split(t):
            return t.view(B, L, self.heads, dh).transpose(1, 2)

        scores = self.torch.matmul(split(q), split(k).transpose(-1, -2)) / math.sqrt(dh)
        probs = scores.masked_fill(self.future, float("-inf")).softmax(-1)
        return self.torch.matmul(probs, split(v)).transpose(1, 2).reshape(B, L, D)

    def loss(self):
        F = self.torch.nn.functional
        p = iter(self.p)
        tok, pos = next(p), next(p)

        def norm(h):
            scale, offset = next(p), next(p)
            return F.layer_norm(h, (h.shape[-1],), scale, offset, eps=1e-6)

        h = F.embedding(self.x, tok) + F.embedding(self.pos_ids, pos)
        for _ in range(self.layers):
            n = norm(h)
            q, k, v = (self.dense(n, next(p), next(p)) for _ in "qkv")
            h = h + self.dense(self.attention(q, k, v), next(p), next(p))
            n = norm(h)
            h = h + self.dense(F.gelu(self.dense(n, next(p), next(p))), next(p), next(p))
        n = norm(h)[:, 1:, :]
        logits = self.dense(n.reshape(-1, n.shape[-1]), next(p), next(p))
        return F.cross_entropy(logits, self.y.reshape(-1))

    def step(self):
        """One training step; returns the loss before the update."""
        loss = self.loss()
        grads = self.torch.autograd.grad(loss, self.p)
        self.b1p, self.b2p = perf.ir_adam_step(self.torch, self.p, grads, self.m, self.v,
                                               self.b1p, self.b2p, self.adam)
        return float(loss)


def twin_main(config, threads, steps):
    """The twin's timing process: the median ms of `steps` steps after one."""
    import torch
    torch.set_num_threads(threads)
    with open(config) as f:
        c = json.load(f)
    twin = Twin([np.load(path) for path in c["inputs"]], c["heads"], c["adam"])
    perf.print_twin_step_time(twin.step, steps)


# -- the comparison --------------------------------------------------------------

def twin_check(trellis, work, model, inputs, arrays, heads, adam):
    """Two steps on both sides (the second from the first's state); exits
    unless both losses agree within TOLERANCE."""
    n_state = len(arrays) - 3
    trellis.run(model, "train_step", inputs, 1, 1)
    first = f"{work}/step1"
    shutil.rmtree(first, ignore_errors=True)
    shutil.move(f"{work}/out", first)
    trellis.run(model, "train_step", [f"{first}/result{i}.npy" for i in range(n_state)]
                + inputs[n_state:], 1, 1)
    ours = [float(np.load(f"{d}/result{n_state}.npy")) for d in (first, f"{work}/out")]
    twin = Twin(arrays, heads, adam)
    theirs = [twin.step(), twin.step()]
    worst = 0.0
    for k, (o, t) in enumerate(zip(ours, theirs)):
        rel = abs(o - t) / abs(t)
        worst = max(worst, rel)
        print(f"twin check, loss of step {k + 1}: Trellis {o:.7g}, PyTorch {t:.7g}, "
              f"relative difference {rel:.2e}", flush=True)
    if not worst <= TOLERANCE:
        sys.exit(f"transformer_lm.py: the twin is not a twin: relative loss difference "
                 f"{worst:.2e} > {TOLERANCE:g}")
    return worst


def cached_compile_ms(trellis, work, model, inputs):
    """The compile time of `model` when a second process finds it in the
    compile cache (a resumed or repeated run): two runs with one
    --cache-dir, the second's compile_ms."""
    cache = ["--cache-dir=" + os.path.join(work, "compile-cache")]
    trellis.run(model, "train_step", inputs, 1, 1, cache)
    stats = trellis.run(model, "train_step", inputs, 1, 1, cache)
    if stats["compile_phases"]["cache"] != "hit":
        sys.exit("transformer_lm.py: the second run did not hit the compile cache")
    return stats["compile_ms"]


def measure(trellis, work, s, rounds, steps):
    """The twin check, then the alternating timing; returns perf.py's rows
    (name, Trellis, anchor, ratio), the median compile_ms and the compile_ms
    of a second run from the compile cache."""
    text = gen_model.model_text(s)
    model = f"{work}/lm.mlir"
    with open(model, "w") as f:
        f.write(text)
    adam = adam_constants(text)
    arrays = initial_arrays(s, np.random.default_rng(0))
    inputs = trellis.save("lm", arrays)
    twin_check(trellis, work, model, inputs, arrays, s.heads, adam)
    config = f"{work}/lm_twin.json"
    with open(config, "w") as f:
        json.dump({"inputs": inputs, "heads": s.heads, "adam": adam}, f)
    compile_ms = []

    def run_side(side, threads):
        if side == "Trellis":
            stats = trellis.run(model, "train_step", inputs, steps, threads)
            compile_ms.append(stats["compile_ms"])
            return stats["run_ms"]
        return perf.run_anchor(
            [os.path.abspath(__file__), "--twin", config, str(threads), str(steps)],
            threads, r"ms/step median ([0-9.]+)")

    ms = perf.alternate_twins(rounds, run_side)
    rows = perf.thread_rows("LM step", ms, "PyTorch", 0.6)
    speedup = {side: statistics.median(ms[side, 1]) / statistics.median(ms[side, 2])
               for side in ("Trellis", "PyTorch")}
    perf.record_target("LM step: 2-thread speedup ≥ 1.6", f"{speedup['Trellis']:.2f}×",
                       speedup["Trellis"] >= 1.6)
    rows.append(("LM step, 2-thread speedup", f"{speedup['Trellis']:.2f}×",
                 f"PyTorch {speedup['PyTorch']:.2f}×",
                 f"Trellis ≥ 1.6: {'met' if speedup['Trellis'] >= 1.6 else 'not met'}"))
    return rows, statistics.median(compile_ms), cached_compile_ms(trellis, work, model, inputs)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--twin":
        return twin_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--small", action="store_true", help=f"the development size ({describe(SMALL)})")
    perf.add_timing_args(p, rounds=3, steps=5)
    a = perf.parse_timing_args(p)
    s = SMALL if a.small else ISSUE
    work = tempfile.mkdtemp(prefix="trellis_lm.")
    print(f"bench/transformer_lm.py: {describe(s)}; {a.rounds} rounds of {a.steps} steps, "
          f"alternating; medians over rounds (min–max)", flush=True)
    print(f"host: {perf.host_description()}", flush=True)
    rows, compile_ms, cached_ms = measure(perf.Trellis(a.build, work), work, s, a.rounds,
                                          a.steps)
    perf.print_tables(rows, [(f"Transformer LM step ({describe(s)})", compile_ms),
                             ("the same, second run from the compile cache", cached_ms)])
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
