#!/usr/bin/python3
"""Two Trellis builds side by side on training steps (issue 6): the same
inputs, `trellis-run --stats --repeat` of each build in turn for --rounds
rounds, medians over the rounds of each round's median step time, peak
tensor bytes, and the allocations one call makes (counted with
TRELLIS_TRACE_ALLOC=1). For before/after comparisons of a compiler change:
build the two variants, keep one's `bin/` aside, and pass both. The models
come from each side's source tree (--a-src, --b-src; default: this one), so
that a change of the generated IR (examples/modelgen.py, bench/perf.py)
is compared too.

Models (--only):
  normsoftmax  a layer_norm/softmax-heavy step: value_and_grad of
               cross_entropy(softmax(layer_norm(x)) + layer_norm(x)) over
               x: 4096x512 (row reductions forward and in the VJPs)
  transformer  examples/transformer/model.mlir @train_step (Adam)
  digits       examples/digits/model.mlir @train_step (SGD)
  mlp          bench/perf.py's MLP step (784→1024×4→10, batch 64, SGD)
  rev8         bench/perf.py's reversible stack step, L = 8 (loop form, SGD)
  attn4        bench/long_attention.py's reversible Transformer stack, depth 4,
               512 tokens (chunked attention): loss and 64 gradients; its
               step function has ~450 loops (compile time)

Usage: bench/step_ab.py --a BIN_DIR_A --b BIN_DIR_B [--a-src DIR] [--b-src DIR]
                        [--a-flags "--vector-math=false"] [--b-flags ...]
                        [--rounds 7] [--steps 20]
                        [--only normsoftmax,transformer,digits,mlp]
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import perf  # noqa: E402  (thread_env, fmt)

NORMSOFTMAX = """
func.func private @loss(%s: tensor<512xf32>, %o: tensor<512xf32>,
                        %x: tensor<4096x512xf32>, %y: tensor<4096xi32>) -> tensor<f32> {
  %n = nn.layer_norm %x, %s, %o
      : (tensor<4096x512xf32>, tensor<512xf32>, tensor<512xf32>) -> tensor<4096x512xf32>
  %p = nn.softmax %n : tensor<4096x512xf32>
  %h = arith.addf %p, %n : tensor<4096x512xf32>
  %l = nn.cross_entropy %h, %y : (tensor<4096x512xf32>, tensor<4096xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @step(%s: tensor<512xf32>, %o: tensor<512xf32>,
                %x: tensor<4096x512xf32>, %y: tensor<4096xi32>)
    -> (tensor<f32>, tensor<512xf32>, tensor<512xf32>, tensor<4096x512xf32>) {
  %l, %gs, %go, %gx = ad.value_and_grad @loss(%s, %o, %x, %y) {argnums = array<i64: 0, 1, 2>}
      : (tensor<512xf32>, tensor<512xf32>, tensor<4096x512xf32>, tensor<4096xi32>)
      -> (tensor<f32>, tensor<512xf32>, tensor<512xf32>, tensor<4096x512xf32>)
  return %l, %gs, %go, %gx : tensor<f32>, tensor<512xf32>, tensor<512xf32>, tensor<4096x512xf32>
}
"""

ARG = re.compile(r"%(\w+): tensor<([0-9x]*)(f32|f64|i32)>(\s*\{[^}]*\})?")


def signature_inputs(text, entry, rng):
    """Arrays for the arguments of `entry`: parameters and float data
    ~N(0, 0.1) (ones where trellis.init says so), integers in [0, 10)."""
    start = text.index(f"func.func @{entry}(")
    header = text[start:text.index("->", start)]
    arrays = []
    for name, dims, dtype, attrs in ARG.findall(header):
        shape = [int(d) for d in dims.split("x") if d]
        dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32}[dtype]
        if dtype == np.int32:
            arrays.append(rng.integers(0, 10, size=shape).astype(np.int32))
        elif "ones" in (attrs or ""):
            arrays.append(np.ones(shape, dtype=dtype))
        else:
            arrays.append((0.1 * rng.standard_normal(shape)).astype(dtype))
    return arrays


def bench_module(src, name):
    """bench/<name>.py of source tree `src`, loaded as a module of its own
    (the two sides of a comparison may have different versions)."""
    spec = importlib.util.spec_from_file_location(
        f"{name}_{abs(hash(src))}", os.path.join(src, "bench", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.join(src, "bench"))
    spec.loader.exec_module(module)
    sys.path.pop(0)
    return module


def model_text(name, src):
    """The module and entry of model `name` in source tree `src`."""
    if name == "normsoftmax":
        return NORMSOFTMAX, "step"
    if name in ("transformer", "digits"):
        return open(os.path.join(src, "examples", name, "model.mlir")).read(), "train_step"
    if name in ("mlp", "rev8"):
        module = bench_module(src, "perf")
        if name == "mlp":
            return module.mlp_text()[0], "train_step"
        return module.rev_text(8, 8 * 128, 256, 1024)[0], "train_step"
    if name == "attn4":
        return bench_module(src, "long_attention").model_text(512, 4), "step"
    sys.exit(f"step_ab.py: unknown model '{name}'")


def models(work, only, srcs):
    """(name, entry, {side: module path}, inputs) per model; the inputs follow
    side A's signature (both sides must agree)."""
    out = []
    for name in only:
        paths, entry, text = {}, None, None
        for tag, src in srcs.items():
            text, entry = model_text(name, src)
            paths[tag] = os.path.join(work, f"{name}_{tag}.mlir")
            open(paths[tag], "w").write(text)
        rng = np.random.default_rng(0)
        inputs = []
        for i, a in enumerate(signature_inputs(open(paths["A"]).read(), entry, rng)):
            inputs.append(os.path.join(work, f"{name}_{i}.npy"))
            np.save(inputs[-1], a)
        out.append((name, entry, paths, inputs))
    return out


def run(bin_dir, model, entry, inputs, repeat, flags=(), trace=False):
    env = perf.thread_env(1)
    if trace:
        env["TRELLIS_TRACE_ALLOC"] = "1"
    r = subprocess.run([os.path.join(bin_dir, "trellis-run"), model, f"--entry={entry}",
                        "--stats", f"--repeat={repeat}"] + list(flags)
                       + [f"--input={p}" for p in inputs],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"step_ab.py: {bin_dir}/trellis-run {model} failed:\n{r.stderr}")
    stats = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
    if trace:
        stats["allocs"] = sum(1 for l in r.stderr.splitlines() if l.startswith("alloc "))
    return stats


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", required=True, help="bin directory of build A (before)")
    p.add_argument("--b", required=True, help="bin directory of build B (after)")
    p.add_argument("--a-src", default=ROOT, help="source tree of A's models")
    p.add_argument("--b-src", default=ROOT, help="source tree of B's models")
    p.add_argument("--a-flags", default="", help="extra trellis-run flags of A "
                   "(e.g. --vector-math=false: A/B of a flag with one build)")
    p.add_argument("--b-flags", default="", help="extra trellis-run flags of B")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--only", default="normsoftmax,transformer,digits,mlp")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="trellis_ab.")
    print(f"step_ab.py: A = {a.a} {a.a_flags} ({a.a_src}), B = {a.b} {a.b_flags} "
          f"({a.b_src}); {a.rounds} "
          f"alternating rounds of {a.steps} steps, 1 thread; medians over rounds "
          f"(min–max)", flush=True)
    rows = []
    bins = {"A": a.a, "B": a.b}
    srcs = {"A": a.a_src, "B": a.b_src}
    flags = {"A": a.a_flags.split(), "B": a.b_flags.split()}
    for name, entry, paths, inputs in models(work, a.only.split(","), srcs):
        ms = {"A": [], "B": []}
        compile_ms = {"A": [], "B": []}
        for k in range(a.rounds):
            for tag in (("A", "B") if k % 2 == 0 else ("B", "A")):
                stats = run(bins[tag], paths[tag], entry, inputs, a.steps, flags[tag])
                ms[tag].append(stats["run_ms"])
                compile_ms[tag].append(stats["compile_ms"])
        traced = {tag: run(bins[tag], paths[tag], entry, inputs, 1, flags[tag], trace=True)
                  for tag in ("A", "B")}
        ratio = [b / x for x, b in zip(ms["A"], ms["B"])]
        compiled = {tag: statistics.median(compile_ms[tag]) for tag in ("A", "B")}
        rows.append((name, ms, traced, ratio, compiled))
        print(f"{name}: A {perf.fmt(ms['A'])} ms, B {perf.fmt(ms['B'])} ms, "
              f"B/A {perf.fmt(ratio)}; peak MiB A {traced['A']['peak_tensor_bytes'] / 2**20:.2f} "
              f"B {traced['B']['peak_tensor_bytes'] / 2**20:.2f}; allocations/call "
              f"A {traced['A']['allocs']} B {traced['B']['allocs']}; compile ms "
              f"A {compiled['A']:.0f} B {compiled['B']:.0f}", flush=True)
    print()
    print(f"{'step':<12} {'A ms':<22} {'B ms':<22} {'B/A (per round)':<22} "
          f"{'peak MiB A→B':<16} {'allocs/call A→B':<16} compile ms A→B")
    for name, ms, traced, ratio, compiled in rows:
        peak = (f"{traced['A']['peak_tensor_bytes'] / 2**20:.1f}→"
                f"{traced['B']['peak_tensor_bytes'] / 2**20:.1f}")
        print(f"{name:<12} {perf.fmt(ms['A']):<22} {perf.fmt(ms['B']):<22} "
              f"{perf.fmt(ratio):<22} {peak:<16} "
              f"{traced['A']['allocs']}→{traced['B']['allocs']:<10} "
              f"{compiled['A']:.0f}→{compiled['B']:.0f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
