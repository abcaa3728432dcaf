"""ad-remat with memory budgets on a chain of pre-LN Transformer blocks.

Usage: transformer.py WORKDIR BLOCKS SEQ WIDTH CHUNK FRACTION...

Each block is x + dense(attention(dense_q(h), dense_k(h), dense_v(h))) with
h = layer_norm(x), then y + dense(gelu(dense(layer_norm(y)))) (4 heads, FF
twice the width, batch 1); the loss is the mean of the last block's output,
differentiated with respect to every weight. Attention's inputs have
several consumers and the residual adds reach back across the block, so
the chain is not a simple one. CHUNK is the lowering's attention chunk
(trellis-run --attention-chunk, ad-remat's attention-chunk).

For every FRACTION of the measured peak_tensor_bytes of storing everything,
the budget is that many bytes; checks that ad-remat{policy=budget} accepts
it, that the measured peak is within it and equal to the one the pass
predicted, and that the gradients are unchanged (trellis-equiv, rtol 1e-5,
atol 1e-6). A fraction the pass rejects must be below the smallest peak its
error names, which is then accepted and met.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np


def model_text(blocks, seq, width):
    """The module (@chain, @grads) and its parameters' shapes."""
    T = f"tensor<1x{seq}x{width}xf32>"
    F = f"tensor<1x{seq}x{2 * width}xf32>"
    params, lines, x = [], [], "%x"

    def param(name, shape):
        params.append((f"%{name}", "tensor<" + "x".join(map(str, shape)) + "xf32>", shape))
        return f"%{name}"

    def dense(out, inp, tin, n_in, n_out, tout, name):
        w, b = param(f"w{name}", (n_in, n_out)), param(f"b{name}", (n_out,))
        lines.append(f"  {out} = nn.dense {inp}, {w}, {b} : ({tin}, tensor<{n_in}x{n_out}xf32>, "
                     f"tensor<{n_out}xf32>) -> {tout}")

    def norm(out, inp, name):
        s, b = param(f"s{name}", (width,)), param(f"n{name}", (width,))
        lines.append(f"  {out} = nn.layer_norm {inp}, {s}, {b} : ({T}, tensor<{width}xf32>, "
                     f"tensor<{width}xf32>) -> {T}")

    for i in range(blocks):
        norm(f"%h{i}", x, f"a{i}")
        for p in "qkv":
            dense(f"%{p}{i}", f"%h{i}", T, width, width, T, f"{p}{i}")
        lines.append(f"  %o{i} = nn.attention %q{i}, %k{i}, %v{i} {{num_heads = 4 : i64, causal = true}}"
                     f" : ({T}, {T}, {T}) -> {T}")
        dense(f"%p{i}", f"%o{i}", T, width, width, T, f"o{i}")
        lines.append(f"  %y{i} = arith.addf {x}, %p{i} : {T}")
        norm(f"%g{i}", f"%y{i}", f"f{i}")
        dense(f"%u{i}", f"%g{i}", T, width, 2 * width, F, f"u{i}")
        lines.append(f"  %a{i} = nn.gelu %u{i} : {F}")
        dense(f"%d{i}", f"%a{i}", F, 2 * width, width, T, f"d{i}")
        lines.append(f"  %r{i} = arith.addf %y{i}, %d{i} : {T}")
        x = f"%r{i}"
    return (chain_module(T, lines, x, params),
            [("x", (1, seq, width))] + [(n[1:], s) for n, _, s in params])


def chain_module(T, lines, last, params):
    """@chain(%x: T, params...): `lines`, then the mean of `last`; and
    @grads, the gradients of @chain with respect to every parameter.
    `params`: (name, type, shape) of each parameter."""
    args = ", ".join([f"%x: {T}"] + [f"{n}: {t}" for n, t, _ in params])
    names = ", ".join(["%x"] + [n for n, _, _ in params])
    types = ", ".join([T] + [t for _, t, _ in params])
    grads = ", ".join(t for _, t, _ in params)
    rets = ", ".join(f"%g#{i}" for i in range(len(params)))
    argnums = ", ".join(str(1 + i) for i in range(len(params)))
    return (f"func.func @chain({args}) -> tensor<f32> {{\n" + "\n".join(lines) +
            f"\n  %l = nn.mean {last} : ({T}) -> tensor<f32>\n  return %l : tensor<f32>\n}}\n"
            f"func.func @grads({args}) -> ({grads}) {{\n"
            f"  %g:{len(params)} = ad.grad @chain({names}) {{argnums = array<i64: {argnums}>}}"
            f" : ({types}) -> ({grads})\n  return {rets} : {grads}\n}}\n")


def write_inputs(work, shapes):
    """Seeded inputs as .npy files; returns trellis-run's --input flags."""
    rng = np.random.default_rng(0)
    flags = []
    for name, shape in shapes:
        if name.startswith("s"):
            value = np.ones(shape)
        elif len(shape) == 2:
            value = rng.normal(size=shape) / np.sqrt(shape[0])
        else:
            value = 0.1 * rng.normal(size=shape)
        np.save(f"{work}/{name}.npy", value.astype(np.float32))
        flags.append(f"--input={work}/{name}.npy")
    return flags


def remat(model, budget, chunk, path):
    """ad-remat's (remark or error, exit code)."""
    r = subprocess.run(["trellis-opt", model, f"--ad-remat=policy=budget budget={budget} attention-chunk={chunk}",
                        "-o", path], capture_output=True, text=True)
    return (r.stderr.splitlines() or [""])[0], r.returncode


def peak(path, inputs, chunk, work):
    r = subprocess.run(["trellis-run", path, "--entry=grads", "--stats", f"--attention-chunk={chunk}",
                        f"--output-dir={work}/out"] + inputs, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])["peak_tensor_bytes"]


def main():
    work, blocks, seq, width, chunk = sys.argv[1], *map(int, sys.argv[2:6])
    fractions = [float(f) for f in sys.argv[6:]]
    os.makedirs(work, exist_ok=True)
    text, shapes = model_text(blocks, seq, width)
    model = f"{work}/chain.mlir"
    with open(model, "w") as f:
        f.write(text)
    inputs = write_inputs(work, shapes)
    stored, ok = peak(model, inputs, chunk, work), True
    print(f"all stored: peak_tensor_bytes {stored}")
    for fraction in fractions:
        budget = int(fraction * stored)
        path = f"{work}/chain.{budget}.mlir"
        message, code = remat(model, budget, chunk, path)
        if code != 0:
            m = re.search(r"smallest predicted peak of any checkpointing schedule is (\d+) bytes", message)
            if not m or int(m[1]) <= budget:
                sys.exit(message)
            print(f"budget {budget} ({fraction:.2f}): rejected, smallest predicted peak {m[1]}")
            budget = int(m[1])
            path = f"{work}/chain.{budget}.mlir"
            message, code = remat(model, budget, chunk, path)
            if code != 0:
                sys.exit(message)
        print(message[message.index("remark:"):])
        measured = peak(path, inputs, chunk, work)
        predicted = re.search(r"predicted peak (\d+) bytes", message)
        r = subprocess.run(["trellis-equiv", model, "--entry=grads", f"--test-file={path}", "--test-entry=grads",
                            f"--attention-chunk={chunk}", "--rtol=1e-5", "--atol=1e-6"] + inputs,
                           capture_output=True, text=True)
        fits = measured <= budget and predicted and int(predicted[1]) == measured and r.returncode == 0
        print(f"budget {budget}: measured {measured}" + (" as predicted, within" if fits else " FAILS"))
        print((r.stdout + r.stderr).strip().splitlines()[-1])
        ok = ok and fits
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
