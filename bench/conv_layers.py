#!/usr/bin/python3
"""Trellis's convolution (im2col + one GEMM, col2im for the input gradient;
docs/vision.md) against oneDNN's convolution primitives as PyTorch 1.13
calls them (mkldnn, in the faster of NCHW and channels_last), on the layers
of the Fashion-MNIST CNN (examples/fashion-mnist/cnn.mlir): one training
step of the layer alone, the forward and the gradients of the weights and
bias (and of the input, except for the first layer, whose input is data),
under the loss mean(conv(x) ⊙ c). Issue 22 asks that the lowering of
nn.conv2d be chosen by measurement; this is the measurement.

Each side at 1 and 2 threads, alternating, --rounds rounds of --steps
steps, medians (bench/perf.py's timing), with the host's CPU and NumPy's
1-thread GEMM rate.

Usage: bench/conv_layers.py [--rounds 3] [--steps 20] [--build build]
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
import perf  # noqa: E402

# (name, N, H, W, C, F, input gradient): the CNN's two 3x3 convolutions, pad 1.
LAYERS = [("conv1 100x28x28x1 -> 32", 100, 28, 28, 1, 32, False),
          ("conv2 100x14x14x32 -> 64", 100, 14, 14, 32, 64, True)]


def module(n, h, w, c, f, dx):
    x, k, b, y = (f"tensor<{n}x{h}x{w}x{c}xf32>", f"tensor<3x3x{c}x{f}xf32>",
                  f"tensor<{f}xf32>", f"tensor<{n}x{h}x{w}x{f}xf32>")
    argnums, grads = ("0, 1, 2", f"{x}, {k}, {b}") if dx else ("1, 2", f"{k}, {b}")
    names = "%gx, %gw, %gb" if dx else "%gw, %gb"
    return f"""
func.func private @loss(%x: {x}, %w: {k}, %b: {b}, %c: {y}) -> tensor<f32> {{
  %y = nn.conv2d %x, %w, %b {{padding = array<i64: 1, 1, 1, 1>}} : ({x}, {k}, {b}) -> {y}
  %p = arith.mulf %y, %c : {y}
  %l = nn.mean %p : ({y}) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @step(%x: {x}, %w: {k}, %b: {b}, %c: {y}) -> ({grads}) {{
  {names} = ad.grad @loss(%x, %w, %b, %c) {{argnums = array<i64: {argnums}>}}
      : ({x}, {k}, {b}, {y}) -> ({grads})
  return {names} : {grads}
}}
"""


def twin_main(config, threads, steps):
    """PyTorch's step of the layer: the median ms of `steps` steps after one,
    the faster memory format."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    with open(config) as f:
        c = json.load(f)
    x, w, b, cot = (torch.from_numpy(np.load(p)) for p in c["inputs"])
    best = None
    for fmt in (torch.contiguous_format, torch.channels_last):
        xt = x.permute(0, 3, 1, 2).contiguous(memory_format=fmt).requires_grad_(c["dx"])
        wt = w.permute(3, 2, 0, 1).contiguous(memory_format=fmt).requires_grad_()
        bt = b.clone().requires_grad_()
        ct = cot.permute(0, 3, 1, 2).contiguous(memory_format=fmt)
        wrt = [xt, wt, bt] if c["dx"] else [wt, bt]

        def step():
            torch.autograd.grad((F.conv2d(xt, wt, bt, padding=1) * ct).mean(), wrt)

        ms = perf.twin_step_ms(step, steps)
        best = ms if best is None else min(best, ms)
    print(f"ms/step median {best:.3f}")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--twin":
        return twin_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    perf.add_timing_args(p, rounds=3, steps=20)
    a = perf.parse_timing_args(p)
    work = tempfile.mkdtemp(prefix="trellis_conv.")
    print(f"bench/conv_layers.py: {a.rounds} rounds of {a.steps} steps, alternating; "
          f"medians over rounds (min–max)", flush=True)
    print(f"host: {perf.host_description()}", flush=True)
    perf.print_anchor_health(20)
    trellis = perf.Trellis(a.build, work)
    rng = np.random.default_rng(0)
    rows, compile_rows = [], []
    for name, n, h, w, c, f, dx in LAYERS:
        model = f"{work}/{name.split()[0]}.mlir"
        with open(model, "w") as out:
            out.write(module(n, h, w, c, f, dx))
        arrays = [rng.standard_normal((n, h, w, c)).astype(np.float32),
                  (rng.standard_normal((3, 3, c, f)) * np.sqrt(2 / (9 * c))).astype(np.float32),
                  rng.standard_normal(f).astype(np.float32),
                  rng.standard_normal((n, h, w, f)).astype(np.float32)]
        inputs = trellis.save(name.split()[0], arrays)
        config = f"{work}/{name.split()[0]}.json"
        with open(config, "w") as out:
            json.dump({"inputs": inputs, "dx": dx}, out)
        compile_ms = []

        def run_side(side, threads):
            if side == "Trellis":
                stats = trellis.run(model, "step", inputs, a.steps, threads)
                compile_ms.append(stats["compile_ms"])
                return stats["run_ms"]
            return perf.run_anchor([os.path.abspath(__file__), "--twin", config, str(threads),
                                    str(a.steps)], threads, r"ms/step median ([0-9.]+)")

        ms = perf.alternate_twins(a.rounds, run_side, label=f"{name.split()[0]}: ")
        rows += perf.thread_rows(name, ms, "oneDNN (PyTorch)", 1.0)
        compile_rows.append((name, sorted(compile_ms)[len(compile_ms) // 2]))
    perf.print_tables(rows, compile_rows)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
