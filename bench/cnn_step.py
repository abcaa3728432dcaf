#!/usr/bin/python3
"""The Fashion-MNIST CNN's training step, Trellis against a PyTorch twin
(issue 22: step time <= 0.8 x the twin's at each side's best thread count).

The model is examples/fashion-mnist/gen_cnn.py's (cnn.mlir): two blocks of
conv 3x3 (pad 1) -> batch norm (training) -> relu -> max pool 2 with 32 and
64 channels, dense 3136 -> 128 -> relu -> dense 10, softmax cross-entropy,
Adam written in IR, batch 100. The twin is the same step in PyTorch ops:
F.conv2d with the IR's HWCF kernels as OIHW, in both of PyTorch's memory
formats (NCHW and channels_last; the faster one counts), F.batch_norm with the
running statistics, the activations turned to NHWC before the flatten (the
IR's dense weights expect that order), autograd, and the IR's Adam update
(modelgen.py's form). Both sides start from the same parameters and see the
same batch (.npy files).

Twin check first: two steps on each side, the second from the first's
results; the losses must agree within a relative 1e-4 and the running
statistics after the first step within 1e-4 of their RMS (f32), or the script stops.
Then bench/perf.py's timing: each side at 1 and 2 threads, alternating,
--rounds rounds of --steps steps, medians over rounds (min–max), with the
host's CPU and NumPy's 1-thread GEMM rate (the anchor's health).

Usage: bench/cnn_step.py [--rounds 3] [--steps 10] [--build build] [--isa avx2]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples", "fashion-mnist"))
import perf  # noqa: E402  (Trellis, run_anchor, alternate_twins, thread_rows, ...)
import transformer_lm  # noqa: E402  (adam_constants: the IR's Adam)

MODEL = os.path.join(HERE, "..", "examples", "fashion-mnist", "cnn.mlir")
BATCH = 100
TOLERANCE = 1e-4  # relative, between the two sides' losses and statistics
# @train_step's arguments: 12 parameters, 4 running statistics, Adam's 24
# moments and 2 powers of beta, then x and y (gen_cnn.py's order).
N_PARAMS, N_STATE = 12, 4
# The twin's memory formats: NCHW (PyTorch's default) and channels_last
# (NHWC, oneDNN's preferred one; 1.2-1.3x faster on an AMD EPYC Zen 4);
# the timing takes the faster per round.
LAYOUTS = ("nchw", "nhwc")


def initial_arrays(rng):
    """The arguments of @train_step: parameters drawn as gen_cnn.py's
    trellis.init says, PyTorch's initial running statistics, zero moments,
    unit powers of beta, and one batch of images in [0, 1] with labels."""
    import gen_cnn
    arrays = perf.draw_parameters(gen_cnn.params + gen_cnn.state, rng)
    params = arrays[:N_PARAMS]
    moments = [np.zeros_like(a) for a in params + params]
    powers = [np.ones((), np.float32), np.ones((), np.float32)]
    x = rng.uniform(0, 1, (BATCH, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int32)
    return arrays + moments + powers + [x, y]


class Twin:
    """@train_step in PyTorch (see the module's docstring)."""

    def __init__(self, arrays, adam, layout="nchw"):
        import torch
        self.torch, self.adam = torch, adam
        n, s = N_PARAMS, N_STATE
        fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format

        def param(a):
            t = torch.tensor(a)
            if t.dim() == 4:  # HWCF -> OIHW, stored in the layout's order
                t = t.permute(3, 2, 0, 1).contiguous(memory_format=fmt)
            return t

        self.p = [param(a).requires_grad_() for a in arrays[:n]]
        self.state = [torch.tensor(a) for a in arrays[n:n + s]]
        self.m = [param(a) for a in arrays[n + s:2 * n + s]]
        self.v = [param(a) for a in arrays[2 * n + s:3 * n + s]]
        self.b1p, self.b2p = (np.float32(a) for a in arrays[3 * n + s:3 * n + s + 2])
        self.x = torch.from_numpy(arrays[-2]).unsqueeze(1).contiguous(memory_format=fmt)
        self.y = torch.from_numpy(arrays[-1]).long()

    def loss(self):
        F = self.torch.nn.functional
        w1, b1, g1, be1, w2, b2, g2, be2, w3, b3, w4, b4 = self.p
        m1, v1, m2, v2 = self.state
        h = self.x
        for w, b, g, be, m, v in ((w1, b1, g1, be1, m1, v1), (w2, b2, g2, be2, m2, v2)):
            h = F.conv2d(h, w, b, padding=1)
            h = F.batch_norm(h, m, v, g, be, training=True, momentum=0.1, eps=1e-5)
            h = F.max_pool2d(F.relu(h), 2)
        h = h.permute(0, 2, 3, 1).reshape(h.shape[0], -1)
        h = F.relu(self.torch.addmm(b3, h, w3))
        return F.cross_entropy(self.torch.addmm(b4, h, w4), self.y)

    def step(self):
        """One training step; returns the loss before the update."""
        loss = self.loss()
        grads = self.torch.autograd.grad(loss, self.p)
        self.b1p, self.b2p = perf.ir_adam_step(self.torch, self.p, grads, self.m, self.v,
                                               self.b1p, self.b2p, self.adam)
        return float(loss)


def twin_main(config, threads, steps, layout):
    """The twin's timing process: the median ms of `steps` steps after one."""
    import torch
    torch.set_num_threads(threads)
    with open(config) as f:
        c = json.load(f)
    twin = Twin([np.load(path) for path in c["inputs"]], c["adam"], layout)
    perf.print_twin_step_time(twin.step, steps)


def relative(a, b):
    """The largest difference relative to b's root mean square (a channel's
    batch mean can be near 0, where an elementwise ratio says nothing)."""
    return float(np.max(np.abs(a - b)) / np.sqrt(np.mean(b.astype(np.float64) ** 2)))


def twin_check(trellis, work, inputs, arrays, adam):
    """Two steps on both sides (the second from the first's results); exits
    unless the losses and the first step's running statistics agree."""
    n_carried = len(arrays) - 2
    trellis.run(MODEL, "train_step", inputs, 1, 1)
    first = f"{work}/step1"
    shutil.rmtree(first, ignore_errors=True)
    shutil.move(f"{work}/out", first)
    ours_state = [np.load(f"{first}/result{N_PARAMS + i}.npy") for i in range(N_STATE)]
    trellis.run(MODEL, "train_step", [f"{first}/result{i}.npy" for i in range(n_carried)]
                + inputs[n_carried:], 1, 1)
    ours = [float(np.load(f"{d}/result{n_carried}.npy")) for d in (first, f"{work}/out")]
    worst = state_rel = 0.0
    for layout in LAYOUTS:
        twin = Twin(arrays, adam, layout)
        theirs = [twin.step()]
        theirs_state = [t.numpy().copy() for t in twin.state]
        theirs.append(twin.step())
        for k, (o, t) in enumerate(zip(ours, theirs)):
            rel = abs(o - t) / abs(t)
            worst = max(worst, rel)
            print(f"twin check ({layout}), loss of step {k + 1}: Trellis {o:.7g}, "
                  f"PyTorch {t:.7g}, relative difference {rel:.2e}", flush=True)
        rel = max(relative(o, t) for o, t in zip(ours_state, theirs_state))
        state_rel = max(state_rel, rel)
        print(f"twin check ({layout}), running statistics after step 1: largest relative "
              f"difference {rel:.2e}", flush=True)
    if not (worst <= TOLERANCE and state_rel <= TOLERANCE):
        sys.exit(f"cnn_step.py: the twin is not a twin: relative differences {worst:.2e} "
                 f"(losses), {state_rel:.2e} (running statistics) > {TOLERANCE:g}")


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--twin":
        return twin_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    perf.add_timing_args(p, rounds=3, steps=10)
    a = perf.parse_timing_args(p)
    work = tempfile.mkdtemp(prefix="trellis_cnn.")
    print(f"bench/cnn_step.py: the Fashion-MNIST CNN (cnn.mlir), batch {BATCH}; "
          f"{a.rounds} rounds of {a.steps} steps, alternating; medians over rounds (min–max)",
          flush=True)
    print(f"host: {perf.host_description()}", flush=True)
    perf.print_anchor_health(20)
    trellis = perf.Trellis(a.build, work)
    with open(MODEL) as f:
        adam = transformer_lm.adam_constants(f.read())
    arrays = initial_arrays(np.random.default_rng(0))
    inputs = trellis.save("cnn", arrays)
    twin_check(trellis, work, inputs, arrays, adam)
    config = f"{work}/cnn_twin.json"
    with open(config, "w") as f:
        json.dump({"inputs": inputs, "adam": adam}, f)
    compile_ms = []

    def run_side(side, threads):
        if side == "Trellis":
            stats = trellis.run(MODEL, "train_step", inputs, a.steps, threads)
            compile_ms.append(stats["compile_ms"])
            return stats["run_ms"]
        # PyTorch at its best: the faster of its two layouts in this round.
        times = {layout: perf.run_anchor(
            [os.path.abspath(__file__), "--twin", config, str(threads), str(a.steps), layout],
            threads, r"ms/step median ([0-9.]+)") for layout in LAYOUTS}
        print(f"  PyTorch, {threads} thread(s): " +
              ", ".join(f"{k} {v:.1f} ms/step" for k, v in times.items()), flush=True)
        return min(times.values())

    ms = perf.alternate_twins(a.rounds, run_side)
    rows = perf.thread_rows("CNN step", ms, "PyTorch", 0.8)
    perf.print_tables(rows, [("Fashion-MNIST CNN (cnn.mlir)", sorted(compile_ms)[len(compile_ms) // 2])])
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
