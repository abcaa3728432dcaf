#!/usr/bin/python3
"""Reversible vs stored-activation training step of a Reformer-style stack.

The stack of BENCHMARKS.md: x1, x2 of B×S×D; F and G = LayerNorm → Dense
D→H → ReLU → Dense H→D; depth L. Both variants are the depth-scalable loop
form (weights stacked along L): the "stored" one with ordinary residual adds
(its AD tapes the loop's carried values and recomputes each iteration's
body), the reversible one with reversible_half_residual / reversible_swap
(nothing taped: states reconstructed in the backward pass). Each entry computes
the VJP (outputs, input and weight gradients).

For every depth it prints peak_tensor_bytes of both, their growth, compile_ms
and the median step time over --repeat, run alternately, and the time ratio
reversible/stored (PyTorch's manual reversible: 1.33–1.43; ideal 4/3).
Not a test: the numbers depend on the machine.

Usage: bench/rev_stack.py [--depths 2,8,32] [--batch 8 --seq 128 --dim 256 --hidden 1024]
                          [--repeat 3] [--build build]
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np


def model_text(L, B, D, H):
    T, W1, W2 = f"tensor<{B}x{D}xf32>", f"tensor<{D}x{H}xf32>", f"tensor<{H}x{D}xf32>"
    S1, S2, SD, SH = (f"tensor<{L}x{D}x{H}xf32>", f"tensor<{L}x{H}x{D}xf32>",
                      f"tensor<{L}x{D}xf32>", f"tensor<{L}x{H}xf32>")
    VD, VH = f"tensor<{D}xf32>", f"tensor<{H}xf32>"
    params = []
    for half in "fg":
        params += [(f"s{half}", SD, VD), (f"o{half}", SD, VD), (f"w{half}1", S1, W1),
                   (f"b{half}1", SH, VH), (f"w{half}2", S2, W2), (f"b{half}2", SD, VD)]
    sig = ", ".join([f"%x1: {T}", f"%x2: {T}"] + [f"%{n}: {st}" for n, st, _ in params])
    types = ", ".join([T, T] + [st for _, st, _ in params])

    def slices():
        out = []
        for n, st, t in params:
            rank = len(st.split("x")) - 1
            offs = ", ".join(["%l"] + ["0"] * (rank - 1))
            sizes = ", ".join(["1"] + st[len("tensor<"):-len("xf32>")].split("x")[1:])
            out.append(f"    %{n}_l = tensor.extract_slice %{n}[{offs}] [{sizes}] "
                       f"[{', '.join(['1'] * rank)}] : {st} to {t}")
        return "\n".join(out)

    def residual(ind, arg, h, res):
        return (f"{ind}%{res}_n = nn.layer_norm %{arg}, %s{h}_l, %o{h}_l : ({T}, {VD}, {VD}) -> {T}\n"
                f"{ind}%{res}_a = nn.dense %{res}_n, %w{h}1_l, %b{h}1_l : ({T}, {W1}, {VH}) -> "
                f"tensor<{B}x{H}xf32>\n"
                f"{ind}%{res}_r = nn.relu %{res}_a : tensor<{B}x{H}xf32>\n"
                f"{ind}%{res} = nn.dense %{res}_r, %w{h}2_l, %b{h}2_l : (tensor<{B}x{H}xf32>, {W2}, {VD}) -> {T}")

    head = (f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %cL = arith.constant {L} : index\n"
            f"  %y:2 = scf.for %l = %c0 to %cL step %c1 iter_args(%a = %x1, %c = %x2) -> ({T}, {T}) {{\n"
            + slices())
    stored = (f"func.func @stored({sig}) -> ({T}, {T}) {{\n{head}\n"
              f"{residual('    ', 'c', 'f', 'f')}\n    %a2 = arith.addf %a, %f : {T}\n"
              f"{residual('    ', 'a2', 'g', 'g')}\n    %c2 = arith.addf %c, %g : {T}\n"
              f"    scf.yield %a2, %c2 : {T}, {T}\n  }}\n  return %y#0, %y#1 : {T}, {T}\n}}")
    reversible = (f"func.func @reversible({sig}) -> ({T}, {T}) {{\n{head}\n"
                  f"    %r:2 = nn.reversible_serial %a, %c : {T}, {T} {{\n"
                  f"    ^bb0(%i1: {T}, %i2: {T}):\n"
                  f"      %h:2 = nn.reversible_half_residual %i1, %i2 : {T}, {T} {{\n"
                  f"      ^bb0(%u: {T}):\n{residual('        ', 'u', 'f', 'f')}\n"
                  f"        nn.yield %f : {T}\n      }}\n"
                  f"      %s:2 = nn.reversible_swap %h#0, %h#1 : {T}, {T}\n"
                  f"      %k:2 = nn.reversible_half_residual %s#0, %s#1 : {T}, {T} {{\n"
                  f"      ^bb0(%u: {T}):\n{residual('        ', 'u', 'g', 'g')}\n"
                  f"        nn.yield %g : {T}\n      }}\n"
                  f"      %s2:2 = nn.reversible_swap %k#0, %k#1 : {T}, {T}\n"
                  f"      nn.yield %s2#0, %s2#1 : {T}, {T}\n    }}\n"
                  f"    scf.yield %r#0, %r#1 : {T}, {T}\n  }}\n  return %y#0, %y#1 : {T}, {T}\n}}")
    n = 2 + len(params)
    res = ", ".join([T, T] + [T, T] + [st for _, st, _ in params])
    names = ", ".join(["%x1", "%x2"] + [f"%{p}" for p, _, _ in params])
    vjps = [f"func.func @{v}_vjp({sig}, %dy1: {T}, %dy2: {T}) -> ({res}) {{\n"
            f"  %r:{n + 2} = ad.vjp @{v}({names}, %dy1, %dy2) : ({types}, {T}, {T}) -> ({res})\n"
            f"  return {', '.join(f'%r#{i}' for i in range(n + 2))} : {res}\n}}"
            for v in ("stored", "reversible")]
    return "\n".join([stored, reversible] + vjps) + "\n", params


def unrolled_text(L, B, D, H):
    """The same math unrolled, per-layer weights, ordinary residual adds: the
    AD stores every activation (PyTorch autograd's behaviour)."""
    T = f"tensor<{B}x{D}xf32>"
    W1, W2, VD, VH = (f"tensor<{D}x{H}xf32>", f"tensor<{H}x{D}xf32>",
                      f"tensor<{D}xf32>", f"tensor<{H}xf32>")
    names, types = [], []
    for l in range(L):
        for half in "fg":
            for n, t in ((f"s{half}", VD), (f"o{half}", VD), (f"w{half}1", W1),
                         (f"b{half}1", VH), (f"w{half}2", W2), (f"b{half}2", VD)):
                names.append(f"{n}_{l}")
                types.append(t)
    sig = ", ".join([f"%x1: {T}", f"%x2: {T}"] + [f"%{n}: {t}" for n, t in zip(names, types)])
    lines = [f"func.func @unrolled({sig}) -> ({T}, {T}) {{"]
    a, c = "x1", "x2"
    for l in range(L):
        for half, (inp, acc) in (("f", (None, None)), ("g", (None, None))):
            src = c if half == "f" else a
            r = f"{half}{l}"
            lines += [f"  %{r}_n = nn.layer_norm %{src}, %s{half}_{l}, %o{half}_{l} : ({T}, {VD}, {VD}) -> {T}",
                      f"  %{r}_a = nn.dense %{r}_n, %w{half}1_{l}, %b{half}1_{l} : ({T}, {W1}, {VH}) -> tensor<{B}x{H}xf32>",
                      f"  %{r}_r = nn.relu %{r}_a : tensor<{B}x{H}xf32>",
                      f"  %{r} = nn.dense %{r}_r, %w{half}2_{l}, %b{half}2_{l} : (tensor<{B}x{H}xf32>, {W2}, {VD}) -> {T}"]
            if half == "f":
                lines.append(f"  %a{l} = arith.addf %{a}, %{r} : {T}")
                a = f"a{l}"
            else:
                lines.append(f"  %c{l} = arith.addf %{c}, %{r} : {T}")
                c = f"c{l}"
    lines.append(f"  return %{a}, %{c} : {T}, {T}\n}}")
    n = 2 + len(names)
    res = ", ".join([T, T, T, T] + types)
    all_types = ", ".join([T, T] + types)
    call = ", ".join(["%x1", "%x2"] + [f"%{x}" for x in names])
    lines.append(f"func.func @unrolled_vjp({sig}, %dy1: {T}, %dy2: {T}) -> ({res}) {{\n"
                 f"  %r:{n + 2} = ad.vjp @unrolled({call}, %dy1, %dy2) : ({all_types}, {T}, {T}) -> ({res})\n"
                 f"  return {', '.join(f'%r#{i}' for i in range(n + 2))} : {res}\n}}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--depths", default="2,8,32")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    a = p.parse_args()
    run = os.path.join(a.build, "bin", "trellis-run")
    B, D, H = a.batch * a.seq, a.dim, a.hidden
    work = tempfile.mkdtemp(prefix="rev_stack.")
    rows, peaks = [], {}
    for L in [int(d) for d in a.depths.split(",")]:
        text, params = model_text(L, B, D, H)
        model = f"{work}/stack{L}.mlir"
        open(model, "w").write(text)
        rng = np.random.default_rng(L)
        arrays = [rng.normal(size=(B, D)), rng.normal(size=(B, D))]
        for name, st, _ in params:
            shape = [int(s) for s in st[len("tensor<"):-len("xf32>")].split("x")]
            scale = 1.0 if name[0] == "s" else (0.0 if name[0] in "ob" else 1 / np.sqrt(shape[-2]))
            arrays.append(scale * rng.normal(size=shape) if scale else np.zeros(shape))
        arrays += [rng.normal(size=(B, D)), rng.normal(size=(B, D))]
        inputs = []
        for i, arr in enumerate(arrays):
            np.save(f"{work}/L{L}_{i}.npy", arr.astype(np.float32))
            inputs.append(f"--input={work}/L{L}_{i}.npy")
        # Per-layer inputs of the unrolled variant: slices of the stacks.
        unrolled_inputs = inputs[:2]
        for l in range(L):
            for k in range(len(params)):
                path = f"{work}/L{L}_u{l}_{k}.npy"
                np.save(path, arrays[2 + k][l].astype(np.float32))
                unrolled_inputs.append(f"--input={path}")
        unrolled_inputs += inputs[-2:]
        unrolled = f"{work}/unrolled{L}.mlir"
        open(unrolled, "w").write(unrolled_text(L, B, D, H))
        stats = {}
        r = subprocess.run([run, unrolled, "--entry=unrolled_vjp", "--stats", f"--repeat={a.repeat}",
                            f"--output-dir={work}/out"] + unrolled_inputs, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        stats["unrolled"] = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
        for entry in ("stored_vjp", "reversible_vjp"):
            r = subprocess.run([run, model, f"--entry={entry}", "--stats", f"--repeat={a.repeat}",
                                f"--output-dir={work}/out"] + inputs, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(r.stderr)
            stats[entry] = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
            peaks[entry, L] = stats[entry]["peak_tensor_bytes"]
        u, s, v = stats["unrolled"], stats["stored_vjp"], stats["reversible_vjp"]
        rows.append((L, u, s, v))
    print(f"Reformer-style stack, B·S={B}, D={D}, H={H} (medians of {a.repeat} runs)")
    print("stored = unrolled, every activation stored; taped = loop form, carried values "
          "stored and bodies recomputed; reversible = loop form, reconstructed")
    print(f"{'L':>4} {'peak MiB stored/taped/rev':>27} {'compile ms s/t/r':>20} "
          f"{'step ms stored/taped/rev':>28} {'rev/stored':>11} {'rev/taped':>10}")
    for L, u, s, v in rows:
        mib = lambda x: x["peak_tensor_bytes"] / 2**20
        print(f"{L:>4} {mib(u):>9.1f}/{mib(s):>7.1f}/{mib(v):>7.1f} "
              f"{u['compile_ms']:>7.0f}/{s['compile_ms']:>5.0f}/{v['compile_ms']:>5.0f} "
              f"{u['run_ms']:>10.1f}/{s['run_ms']:>8.1f}/{v['run_ms']:>8.1f} "
              f"{v['run_ms'] / u['run_ms']:>11.2f} {v['run_ms'] / s['run_ms']:>10.2f}")


if __name__ == "__main__":
    main()
