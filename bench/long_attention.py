#!/usr/bin/python3
"""Long-sequence reversible Transformer: chunked vs whole attention lowering.

The stack of issue 9: batch 1, d = 256, 4 heads, depth 4; each layer is two
nn.reversible_half_residual blocks with swaps, as in Trax's ReformerLM:

    x1 += Attention(x2)    layer_norm → q, k, v dense → causal attention → dense
    x1 += FeedForward(x2)  layer_norm → dense 256→1024 → gelu → dense → 256

The entry computes the loss mean((y1 + y2) ⊙ c) and its gradient for every
weight (ad.value_and_grad): one training step without the update. For each
sequence length it runs the same module with `--attention-chunk=CHUNK` and
with `--attention-chunk=0` (the whole L×L score matrix), alternately in one
script, and prints peak_tensor_bytes, the median step time, the growth of
the peak per doubling of L (linear memory: ×2; quadratic: ×4) and the time
ratio chunked/whole. It also compares the two variants' loss and gradients
(the largest norm-relative difference over the 65 results, norms floored
at 1e-3 of the largest): the chunked
step must compute what the whole one does. Not a test: the timings depend
on the machine.

usage: bench/long_attention.py [--lengths 512,1024,2048,4096] [--chunk 128]
                               [--repeat 3] [--rounds 1] [--build build]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

D, HEADS, FF, DEPTH = 256, 4, 1024, 4


def ty(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def params_of(depth):
    """(name, shape) of every weight, in argument order."""
    params = []
    for i in range(depth):
        params += [(f"a{i}_lns", (D,)), (f"a{i}_lno", (D,))]
        for n in "qkvo":
            params += [(f"a{i}_w{n}", (D, D)), (f"a{i}_b{n}", (D,))]
        params += [(f"f{i}_lns", (D,)), (f"f{i}_lno", (D,)),
                   (f"f{i}_w1", (D, FF)), (f"f{i}_b1", (FF,)),
                   (f"f{i}_w2", (FF, D)), (f"f{i}_b2", (D,))]
    return params


def model_text(length, depth, serial=False):
    """The @loss and @step of the stack. With `serial`, the chain of
    half-residuals is one nn.reversible_serial, whose backward pass
    reconstructs each block's inputs instead of keeping them (activation
    memory flat in depth); without, the blocks are ordinary residuals whose
    inputs the backward pass keeps (issue 9's memory comparison of the
    attention lowerings)."""
    x = ty((1, length, D))
    h = ty((1, length, FF))
    params = params_of(depth)
    lines = []
    n = [0]

    def fresh(hint):
        n[0] += 1
        return f"%{hint}{n[0]}"

    def dense(src, w, b, out_type, in_type):
        r = fresh("d")
        lines.append(f"    {r} = nn.dense {src}, %{w}, %{b} : ({in_type}, "
                     f"{ty(dict(params)[w])}, {ty(dict(params)[b])}) -> {out_type}")
        return r

    def half(a, c, body):
        r = fresh("h")
        lines.append(f"  {r}:2 = nn.reversible_half_residual {a}, {c} : {x}, {x} {{")
        u = fresh("u")
        lines.append(f"  ^bb0({u}: {x}):")
        y = body(u)
        lines.append(f"    nn.yield {y} : {x}")
        lines.append("  }")
        s = fresh("s")
        lines.append(f"  {s}:2 = nn.reversible_swap {r}#0, {r}#1 : {x}, {x}")
        return f"{s}#0", f"{s}#1"

    def attention(i):
        def body(u):
            ln = fresh("ln")
            lines.append(f"    {ln} = nn.layer_norm {u}, %a{i}_lns, %a{i}_lno : "
                         f"({x}, {ty((D,))}, {ty((D,))}) -> {x}")
            q, k, v = (dense(ln, f"a{i}_w{t}", f"a{i}_b{t}", x, x) for t in "qkv")
            att = fresh("att")
            lines.append(f"    {att} = nn.attention {q}, {k}, {v} {{num_heads = {HEADS} "
                         f": i64, causal = true}} : ({x}, {x}, {x}) -> {x}")
            return dense(att, f"a{i}_wo", f"a{i}_bo", x, x)
        return body

    def feed_forward(i):
        def body(u):
            ln = fresh("ln")
            lines.append(f"    {ln} = nn.layer_norm {u}, %f{i}_lns, %f{i}_lno : "
                         f"({x}, {ty((D,))}, {ty((D,))}) -> {x}")
            hid = dense(ln, f"f{i}_w1", f"f{i}_b1", h, x)
            g = fresh("g")
            lines.append(f"    {g} = nn.gelu {hid} : {h}")
            return dense(g, f"f{i}_w2", f"f{i}_b2", x, h)
        return body

    a, c = "%x1", "%x2"
    if serial:
        lines.append(f"  %y:2 = nn.reversible_serial %x1, %x2 : {x}, {x} {{")
        lines.append(f"  ^bb0(%z1: {x}, %z2: {x}):")
        a, c = "%z1", "%z2"
    for i in range(depth):
        a, c = half(a, c, attention(i))
        a, c = half(a, c, feed_forward(i))
    if serial:
        lines.append(f"    nn.yield {a}, {c} : {x}, {x}")
        lines.append("  }")
        a, c = "%y#0", "%y#1"
    sig = ", ".join(f"%{name}: {ty(shape)}" for name, shape in params)
    names = ", ".join(f"%{name}" for name, _ in params)
    types = ", ".join(ty(shape) for _, shape in params)
    argnums = ", ".join(str(i) for i in range(len(params)))
    body = "\n".join(lines)
    return f"""
func.func @loss({sig}, %x1: {x}, %x2: {x}, %c: {x}) -> tensor<f32> {{
{body}
  %sum = arith.addf {a}, {c} : {x}
  %w = arith.mulf %sum, %c : {x}
  %l = nn.mean %w : ({x}) -> tensor<f32>
  return %l : tensor<f32>
}}
func.func @step({sig}, %x1: {x}, %x2: {x}, %c: {x}) -> (tensor<f32>, {types}) {{
  %l, %g:{len(params)} = ad.value_and_grad @loss({names}, %x1, %x2, %c)
      {{argnums = array<i64: {argnums}>}}
      : ({types}, {x}, {x}, {x}) -> (tensor<f32>, {types})
  return %l, {", ".join(f"%g#{i}" for i in range(len(params)))} : tensor<f32>, {types}
}}
"""


def max_norm_relative_difference(dir_a, dir_b, count):
    """max over results i of ‖a_i − b_i‖ / max(‖b_i‖, 1e-3·max_j ‖b_j‖).
    The floor is for the key biases' gradients, which are zero up to
    rounding (softmax ignores a shift of a whole row of scores)."""
    pairs = [(np.load(f"{dir_a}/result{i}.npy").astype(np.float64),
              np.load(f"{dir_b}/result{i}.npy").astype(np.float64))
             for i in range(count)]
    floor = 1e-3 * max(np.linalg.norm(b) for _, b in pairs)
    return max(np.linalg.norm(a - b) / max(np.linalg.norm(b), floor)
               for a, b in pairs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lengths", default="512,1024,2048,4096")
    p.add_argument("--chunk", type=int, default=128)
    p.add_argument("--depth", type=int, default=DEPTH)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rounds", type=int, default=1,
                   help="alternating rounds of (chunked, whole) per length")
    p.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    a = p.parse_args()
    run = os.path.join(a.build, "bin", "trellis-run")
    work = tempfile.mkdtemp(prefix="long_attention.")
    variants = {"chunked": a.chunk, "whole": 0}
    results, diffs = {}, {}
    try:
        for length in [int(s) for s in a.lengths.split(",")]:
            model = f"{work}/stack{length}.mlir"
            with open(model, "w") as f:
                f.write(model_text(length, a.depth))
            rng = np.random.default_rng(length)
            inputs = []
            arrays = []
            for name, shape in params_of(a.depth):
                if name.endswith("lns"):
                    arr = np.ones(shape)
                elif len(shape) == 1:
                    arr = np.zeros(shape)
                else:
                    arr = rng.normal(size=shape) / np.sqrt(shape[0])
                arrays.append(arr)
            arrays += [rng.normal(size=(1, length, D)) for _ in range(3)]
            for i, arr in enumerate(arrays):
                path = f"{work}/L{length}_{i}.npy"
                np.save(path, arr.astype(np.float32))
                inputs.append(f"--input={path}")
            for _ in range(a.rounds):
                for variant, chunk in variants.items():
                    out = f"{work}/out_{variant}"
                    cmd = [run, model, "--entry=step", "--stats", f"--repeat={a.repeat}",
                           f"--attention-chunk={chunk}", f"--output-dir={out}"] + inputs
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode != 0:
                        raise SystemExit(f"{variant} L={length}: {r.stderr.strip()}")
                    stats = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
                    results.setdefault((variant, length), []).append(stats)
            diffs[length] = max_norm_relative_difference(
                f"{work}/out_chunked", f"{work}/out_whole", 1 + len(params_of(a.depth)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def med(variant, length, key):
        return float(np.median([s[key] for s in results[variant, length]]))

    lengths = sorted({length for _, length in results})
    print(f"Reversible Transformer stack: batch 1, d={D}, {HEADS} heads, depth {a.depth}, "
          f"causal; chunk {a.chunk} vs whole (medians of {a.repeat} steps x {a.rounds} rounds)")
    print(f"{'L':>5} {'peak MiB chunked':>17} {'x/prev':>7} {'peak MiB whole':>15} {'x/prev':>7}"
          f" {'step ms chunked':>16} {'step ms whole':>14} {'time c/w':>9} {'compile ms c/w':>15}"
          f" {'grad diff':>10}")
    prev = {}
    for length in lengths:
        row = []
        for variant in variants:
            peak = med(variant, length, "peak_tensor_bytes") / 2**20
            growth = f"{peak / prev[variant]:.2f}" if variant in prev else "-"
            prev[variant] = peak
            row.append((peak, growth))
        tc, tw = med("chunked", length, "run_ms"), med("whole", length, "run_ms")
        cc, cw = med("chunked", length, "compile_ms"), med("whole", length, "compile_ms")
        print(f"{length:>5} {row[0][0]:>17.1f} {row[0][1]:>7} {row[1][0]:>15.1f} {row[1][1]:>7}"
              f" {tc:>16.1f} {tw:>14.1f} {tc / tw:>9.2f} {cc:>7.0f}/{cw:<7.0f}"
              f" {diffs[length]:>10.2e}")


if __name__ == "__main__":
    main()
