#!/usr/bin/python3
"""Trellis against the PyTorch / NumPy anchors, side by side: one command,
one table of ratios (issue 6; the numbers are recorded in
docs/performance.md).

Rows (BENCHMARKS.md's shapes):
  gemm      fp32 1024² GEMM: a Trellis linalg.matmul (a BLAS call) against
            NumPy's `a @ b` (Debian's OpenBLAS), at 1 and 2 threads;
            ratio = Trellis GFLOP/s / NumPy GFLOP/s (target >= 0.9).
  mlp       training step, batch 64, 784→1024×4→10, ReLU, softmax
            cross-entropy, SGD 1e-4, 1 thread: value_and_grad + the update,
            against /work/shared/anchors/train_mlp.py; ratio = Trellis time /
            PyTorch time (target <= 0.7, issue 17), and GFLOP/s of the 1.52
            GFLOP (matmul count) against the host's measured 1-thread 1024²
            GEMM rate, the better of NumPy's and Trellis's, measured in the
            same round as the step (a shared host's speed moves within
            minutes); the median of the rounds' shares (target >= 70 %).
  rev L=8   reversible residual stack (x1, x2 of 8×128×256, F, G = LayerNorm →
            Dense 256→1024 → ReLU → Dense → 256), MSE loss, SGD: the loop
            form of bench/rev_stack.py (reconstructed, not stored) against
            anchors/rev_stack.py's manual reversible backprop, each side at
            1 and 2 threads, alternating; ratio of the best-thread times
            Trellis / PyTorch (target <= 0.8).
  compile   compile_ms (parse → lower → LLVM → runnable) of each model, and of
            the 32-block reversible stack (target <= 2000 ms).
  lm        bench/transformer_lm.py's Transformer LM step
            (V = L = D = 256, 4 pre-LN layers, 4 heads, FF 1024, batch 8, Adam)
            against its PyTorch twin, after the twin check, at 1 and 2
            threads; ratio of the best-thread times (target <= 0.6) and
            Trellis's 2-thread speedup (target >= 1.6). Steps per round:
            --steps / 4, at least 2.
  revtf     bench/reversible_transformer.py's reversible
            Transformer step (batch 1, L = 1024, d = 256, 4 heads, FF 1024,
            depth 4 and 12; loss and every weight's gradient) against its
            PyTorch manual-reversible twin, after the twin check, at 1 and 2
            threads; ratio of the best-thread times (target <= 0.8), the
            peak tensor memory of a step on both sides and its growth from
            depth 4 to 12 beside the weight gradients' (flat in depth: the
            same). Steps per round: --steps / 4, at least 2.

The first lines name the host (CPU model, family/model, vector ISA,
OPENBLAS_CORETYPE if set) and NumPy's 1-thread 1024² GEMM rate, so that a
sick anchor is visible before any ratio is read.

Every comparison runs the two sides alternately for --rounds rounds; each
round's figure is the median of --steps timed steps (trellis-run --repeat, the
anchor's own step loop), each side after an untimed first step
(trellis-run --warmup=1; the anchors' loops warm up likewise), and the table
shows the median over rounds (min–max of the round medians beside it). Thread counts are set through the
environment of each process (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
TRELLIS_NUM_THREADS), the same for both sides. Not a test: the numbers
depend on the machine and its load.

Usage: bench/perf.py [--rounds 5] [--steps 20] [--build build] [--only gemm,mlp,rev,compile,lm,revtf]
                     [--isa avx2]
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The row scripts (transformer_lm, reversible_transformer) `import perf`: run
# as a script, this file is that module, one copy with one ISA_CAP.
if __name__ == "__main__":
    sys.modules.setdefault("perf", sys.modules["__main__"])
import rev_stack  # noqa: E402  (the IR generator of the Reformer stack)

ANCHORS = "/work/shared/anchors"
PYTHON = "/usr/bin/python3"
MLP_SIZES = (784, 1024, 1024, 1024, 1024, 10)
MLP_BATCH = 64
MLP_GFLOP = 3 * 2 * MLP_BATCH * sum(a * b for a, b in zip(MLP_SIZES, MLP_SIZES[1:])) / 1e9


def host_description():
    """The CPU model, its vector ISA and the OpenBLAS kernel override, if
    any: every figure of the table belongs to this host (BENCHMARKS.md)."""
    model, family, number, flags = "unknown CPU", "?", "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "model name":
                model = value
            elif key == "cpu family":
                family = value
            elif key == "model":
                number = value
            elif key == "flags":
                flags = set(value.split())
    isa = [name for name in ("avx2", "fma", "avx512f", "avx512_bf16",
                             "avx512_vnni", "amx_tile") if name in flags]
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    cap = ""
    if ISA_CAP:
        coretype = ISA_CAP["env"]["OPENBLAS_CORETYPE"]
        cap = (f"; both sides CAPPED to {ISA_CAP['target_cpu']} (Trellis --target-cpu, "
               + ", ".join(f"{k}={v}" for k, v in ISA_CAP["env"].items()) + ")")
    return (f"{model} (family {family} model {number}), {os.cpu_count()} "
            f"CPUs, ISA {' '.join(isa) or 'baseline x86-64'}"
            + (f", OPENBLAS_CORETYPE={coretype}" if coretype else "") + cap)


# --isa avx2: both sides run as on an AVX2 host without AVX-512 (an x86-64-v3
# CPU, e.g. AMD Zen 3): Trellis's JIT generates x86-64-v3 code
# (--target-cpu), OpenBLAS runs its Haswell kernels, oneDNN (Trellis's and
# PyTorch's) stops at AVX2 and PyTorch's own kernels take their AVX2 variant.
# The caches, clock and memory stay this host's: it shows that the targets do
# not rest on AVX-512, not what a Zen 3 measures.
ISA_CAPS = {
    "avx2": {"target_cpu": "x86-64-v3",
             "env": {"OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2",
                     "DNNL_MAX_CPU_ISA": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"}},
}
ISA_CAP = None  # the entry of ISA_CAPS in force (set by parse_timing_args)


def draw_parameters(params, rng):
    """float32 arrays for `params` (objects with .shape and .init, e.g.
    examples/modelgen.Param) drawn as their trellis.init says, from the
    same distributions trellis-train uses (docs/training.md)."""
    arrays = []
    for p in params:
        if p.init == "ones":
            a = np.ones(p.shape)
        elif p.init == "zeros":
            a = np.zeros(p.shape)
        elif p.init == "he_normal":
            a = np.sqrt(2 / np.prod(p.shape[:-1])) * rng.standard_normal(p.shape)
        elif p.init.startswith("normal:"):
            a = float(p.init[len("normal:"):]) * rng.standard_normal(p.shape)
        elif p.init == "glorot_uniform":
            limit = np.sqrt(6 / (p.shape[-2] + p.shape[-1]))
            a = rng.uniform(-limit, limit, p.shape)
        else:
            sys.exit(f"perf.py: unknown trellis.init {p.init!r}")
        arrays.append(np.asarray(a, np.float32))
    return arrays


def ir_adam_step(torch, params, grads, m, v, b1p, b2p, adam):
    """A twin's update as modelgen.py's @train_step writes Adam (not
    torch.optim.Adam's form): ε added to sqrt(v), the bias corrections
    folded into the step size; `adam` holds the IR's constants
    (transformer_lm.adam_constants). Updates params, m and v in place;
    returns the new powers (β1^t, β2^t)."""
    f32 = np.float32
    b1p, b2p = b1p * f32(adam["b1"]), b2p * f32(adam["b2"])
    lrt = f32(adam["lr"]) * (np.sqrt(f32(1) - b2p) / (f32(1) - b1p))
    with torch.no_grad():
        for p, g, mi, vi in zip(params, grads, m, v):
            mi.mul_(adam["b1"]).add_(g, alpha=adam["c1"])
            vi.mul_(adam["b2"]).addcmul_(g, g, value=adam["c2"])
            p.addcdiv_(mi, vi.sqrt().add_(adam["eps"]), value=-float(lrt))
    return b1p, b2p


# glibc's malloc returns a freed block of 128 KiB or more to the kernel (mmap
# threshold, heap trimming), so a step that frees and allocates its tensors
# again page-faults them in anew every step. On a host where page faults are
# slow that is most of a step: on the Zen 5 VM of 7 December, PyTorch's MLP
# step measured 27-47 ms median and 12 ms min in one process, 15-16 ms with
# freed memory kept (Trellis's own block cache already keeps it). Both sides
# run with it kept, so that neither is timed in the kernel's page-fault path.
KEEP_FREED_MEMORY = ("glibc.malloc.mmap_threshold=33554432:"
                     "glibc.malloc.trim_threshold=2147483647")


def thread_env(threads, keep_freed_memory=True):
    """The environment of a timed process on `threads` threads (both sides
    alike): the ISA cap, the thread counts, and glibc's malloc keeping freed
    memory (KEEP_FREED_MEMORY; off for a memory measurement)."""
    env = dict(os.environ)
    if ISA_CAP:
        env.update(ISA_CAP["env"])
    if keep_freed_memory:
        tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]
        env["GLIBC_TUNABLES"] = ":".join(tunables + [KEEP_FREED_MEMORY])
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TRELLIS_NUM_THREADS",
                "MKL_NUM_THREADS"):
        env[var] = str(threads)
    return env


# -- models -------------------------------------------------------------------

def tensor(shape, dtype="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{dtype}>"


def gemm_text(n):
    t = tensor((n, n))
    return (f"func.func @gemm(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %z = arith.constant 0.0 : f32\n"
            f"  %e = tensor.empty() : {t}\n"
            f"  %c = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}\n"
            f"  %r = linalg.matmul ins(%a, %b : {t}, {t}) outs(%c : {t}) -> {t}\n"
            f"  return %r : {t}\n}}\n")


def sgd_lines(params, grads, lr, out_prefix):
    """w - lr·g for each (name, type), one linalg.generic each, written over
    the gradient (which dies there: no new buffer; examples/modelgen.py does
    the same); returns the lines and the new names."""
    lines = [f"  %lr = arith.constant {lr:e} : f32"]
    names = []
    for i, ((name, t), g) in enumerate(zip(params, grads)):
        rank = t.count("x")
        dims = ", ".join(f"d{k}" for k in range(rank))
        ident = f"affine_map<({dims}) -> ({dims})>"
        its = ", ".join(['"parallel"'] * rank)
        lines += [f"  %{out_prefix}n{i} = linalg.generic {{indexing_maps = [{ident}, {ident}], "
                  f"iterator_types = [{its}]}} ins(%{name} : {t}) outs({g} : {t}) {{",
                  "  ^bb0(%p: f32, %g: f32):",
                  "    %s = arith.mulf %g, %lr : f32",
                  "    %n = arith.subf %p, %s : f32",
                  "    linalg.yield %n : f32",
                  f"  }} -> {t}"]
        names.append(f"%{out_prefix}n{i}")
    return lines, names


def mlp_text(batch=MLP_BATCH, sizes=MLP_SIZES, lr=1e-4):
    """@loss (dense/ReLU chain, cross-entropy) and @train_step (value_and_grad
    of every weight and bias, then SGD); returns the text and the params."""
    params = []
    for i in range(len(sizes) - 1):
        params += [(f"w{i}", tensor((sizes[i], sizes[i + 1]))), (f"b{i}", tensor((sizes[i + 1],)))]
    xt, yt, lt = tensor((batch, sizes[0])), f"tensor<{batch}xi32>", "tensor<f32>"
    sig = ", ".join([f"%{n}: {t}" for n, t in params] + [f"%x: {xt}", f"%y: {yt}"])
    body, h = [], "%x"
    for i in range(len(sizes) - 1):
        tin, tout = tensor((batch, sizes[i])), tensor((batch, sizes[i + 1]))
        body.append(f"  %h{i} = nn.dense {h}, %w{i}, %b{i} : ({tin}, {params[2 * i][1]}, "
                    f"{params[2 * i + 1][1]}) -> {tout}")
        h = f"%h{i}"
        if i < len(sizes) - 2:
            body.append(f"  %a{i} = nn.relu {h} : {tout}")
            h = f"%a{i}"
    body.append(f"  %l = nn.cross_entropy {h}, %y : ({tensor((batch, sizes[-1]))}, {yt}) -> {lt}")
    ptypes = ", ".join(t for _, t in params)
    grads = [f"%g{i}" for i in range(len(params))]
    update, new = sgd_lines(params, grads, lr, "u")
    text = (f"func.func private @loss({sig}) -> {lt} {{\n" + "\n".join(body) + f"\n  return %l : {lt}\n}}\n"
            f"func.func @train_step({sig}) -> ({lt}, {ptypes}) {{\n"
            f"  %l, {', '.join(grads)} = ad.value_and_grad @loss("
            f"{', '.join('%' + n for n, _ in params)}, %x, %y) "
            f"{{argnums = array<i64: {', '.join(str(i) for i in range(len(params)))}>}} : "
            f"({ptypes}, {xt}, {yt}) -> ({lt}, {ptypes})\n"
            + "\n".join(update) +
            f"\n  return %l, {', '.join(new)} : {lt}, {ptypes}\n}}\n")
    return text, params


def rev_text(L, B, D, H, lr=1e-4):
    """rev_stack.py's loop-form @reversible, an MSE loss of its outputs, and
    @train_step: value_and_grad of the stacked weights, then SGD."""
    text, params = rev_stack.model_text(L, B, D, H)
    # The body of the loop-form @reversible (not the stored variant or the
    # VJPs) becomes the head of the loss, so that the module holds one
    # function besides the step: the JIT compiles every public function.
    start = text.index("func.func @reversible(")
    body = text[text.index("{\n", start) + 2:text.index("  return %y#0, %y#1", start)]
    T = tensor((B, D))
    psig = [(n, st) for n, st, _ in params]
    sig = ", ".join([f"%x1: {T}", f"%x2: {T}"] + [f"%{n}: {st}" for n, st in psig]
                    + [f"%t1: {T}", f"%t2: {T}"])
    args = ", ".join(["%x1", "%x2"] + [f"%{n}" for n, _ in psig])
    types = ", ".join([T, T] + [st for _, st in psig])
    loss = (f"func.func private @rev_loss({sig}) -> tensor<f32> {{\n" + body +
            f"  %d1 = arith.subf %y#0, %t1 : {T}\n  %q1 = arith.mulf %d1, %d1 : {T}\n"
            f"  %m1 = nn.mean %q1 : ({T}) -> tensor<f32>\n"
            f"  %d2 = arith.subf %y#1, %t2 : {T}\n  %q2 = arith.mulf %d2, %d2 : {T}\n"
            f"  %m2 = nn.mean %q2 : ({T}) -> tensor<f32>\n"
            f"  %l = arith.addf %m1, %m2 : tensor<f32>\n  return %l : tensor<f32>\n}}\n")
    ptypes = ", ".join(st for _, st in psig)
    grads = [f"%g{i}" for i in range(len(psig))]
    update, new = sgd_lines(psig, grads, lr, "u")
    step = (f"func.func @train_step({sig}) -> (tensor<f32>, {ptypes}) {{\n"
            f"  %l, {', '.join(grads)} = ad.value_and_grad @rev_loss({args}, %t1, %t2) "
            f"{{argnums = array<i64: {', '.join(str(i + 2) for i in range(len(psig)))}>}} : "
            f"({types}, {T}, {T}) -> (tensor<f32>, {ptypes})\n"
            + "\n".join(update) +
            f"\n  return %l, {', '.join(new)} : tensor<f32>, {ptypes}\n}}\n")
    return loss + step, params


# -- running ------------------------------------------------------------------

class Trellis:
    def __init__(self, build, work):
        self.run_path = os.path.join(build, "bin", "trellis-run")
        if not os.path.exists(self.run_path):
            sys.exit(f"perf.py: {self.run_path} not found (--build)")
        self.work = work

    def save(self, tag, arrays):
        paths = []
        for i, a in enumerate(arrays):
            paths.append(f"{self.work}/{tag}_{i}.npy")
            np.save(paths[-1], a)
        return paths

    def run(self, model, entry, inputs, repeat, threads, extra=(), warmup=None):
        """trellis-run --stats of `entry`, `repeat` timed calls after `warmup`
        untimed ones; returns the JSON line. By default a timed run (repeat >
        1) starts with one untimed call, as every anchor's step loop does: the
        first call pays for page faults and the libraries' kernel generation
        (on Zen 5, the LM step's first call took 872 ms, the next ones 337)."""
        cap = [f"--target-cpu={ISA_CAP['target_cpu']}"] if ISA_CAP else []
        if warmup is None:
            warmup = 1 if repeat > 1 else 0
        r = subprocess.run([self.run_path, model, f"--entry={entry}", "--stats",
                            f"--repeat={repeat}", f"--warmup={warmup}",
                            f"--output-dir={self.work}/out"]
                           + cap + list(extra) + [f"--input={p}" for p in inputs],
                           capture_output=True, text=True, env=thread_env(threads))
        if r.returncode != 0:
            sys.exit(f"perf.py: trellis-run {model} @{entry} failed:\n{r.stderr}")
        return json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])


def anchor_output(args, threads):
    """The standard output of the anchor script `args` on `threads`."""
    r = subprocess.run([PYTHON] + args, capture_output=True, text=True, env=thread_env(threads))
    if r.returncode != 0:
        hint = ("\n(the anchors need Debian's PyTorch: apt-get install python3-torch)"
                if "No module named 'torch'" in r.stderr else "")
        sys.exit(f"perf.py: {' '.join(args)} failed:\n{r.stderr}{hint}")
    return r.stdout


def number_in(output, pattern, what):
    """The number `pattern`'s group captures in `output` (of `what`)."""
    m = re.search(pattern, output)
    if not m:
        sys.exit(f"perf.py: unexpected output of {what}:\n{output}")
    return float(m.group(1))


def run_anchor(args, threads, pattern):
    """The number `pattern`'s group captures in the anchor's output."""
    return number_in(anchor_output(args, threads), pattern, " ".join(args))


NUMPY_GEMM = """
import sys, time, statistics, numpy as np
n, steps = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
a = rng.standard_normal((n, n), dtype=np.float32); b = rng.standard_normal((n, n), dtype=np.float32)
for _ in range(steps):  # untimed, as many as timed (main: gemm_rates)
    c = a @ b
ts = []
for _ in range(steps):
    t = time.perf_counter(); c = a @ b; ts.append(time.perf_counter() - t)
print(f"ms {1e3 * statistics.median(ts):.4f}")
try:  # the kernel OpenBLAS chose (or was told to take by OPENBLAS_CORETYPE)
    import threadpoolctl
    print("kernels", ", ".join(f"{i['internal_api']} {i.get('architecture', '?')}"
                               for i in threadpoolctl.threadpool_info()
                               if i["user_api"] == "blas"))
except ImportError:
    pass
"""


def print_anchor_health(steps):
    """Prints and returns NumPy's 1-thread 1024² fp32 GEMM rate (GFLOP/s):
    a Debian OpenBLAS that does not know the CPU runs 2-4x slow, and every
    PyTorch figure of the run with it (BENCHMARKS.md)."""
    output = anchor_output(["-c", NUMPY_GEMM, "1024", str(steps)], 1)
    rate = 2 * 1024 ** 3 / (number_in(output, r"ms ([0-9.]+)", "the NumPy GEMM") * 1e-3) / 1e9
    kernels = re.search(r"kernels (.*)", output)
    print(f"anchor: NumPy 1-thread 1024² fp32 GEMM {rate:.1f} GFLOP/s"
          + (f" ({kernels.group(1)})" if kernels else ""), flush=True)
    return rate


def twin_step_ms(step, steps):
    """Runs `step` once untimed, then `steps` times; returns the median ms."""
    step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def print_twin_step_time(step, steps):
    """A twin's timing process: prints twin_step_ms as "ms/step median X"
    (what run_anchor parses)."""
    print(f"ms/step median {twin_step_ms(step, steps):.3f}")


def alternate_twins(rounds, run_side, label=""):
    """The timing loop of a Trellis-against-twin benchmark: for each round,
    at 1 and then 2 threads, both sides one after the other, in alternating
    order. `run_side(side, threads)` runs one side ("Trellis" or "PyTorch")
    and returns its ms/step. Returns {(side, threads): [ms per round]}."""
    ms = {(side, t): [] for side in ("Trellis", "PyTorch") for t in (1, 2)}
    for r in range(rounds):
        for threads in (1, 2):
            for side in (("Trellis", "PyTorch") if (r + threads) % 2 else ("PyTorch", "Trellis")):
                start = time.perf_counter()
                ms[side, threads].append(run_side(side, threads))
                print(f"{label}round {r + 1}, {threads} thread(s), {side}: "
                      f"{ms[side, threads][-1]:.1f} ms/step ({time.perf_counter() - start:.1f} s)",
                      flush=True)
    return ms


# The issue's targets measured in this run: (what, value, met), printed
# together at the end (print_tables).
TARGETS = []


def record_target(what, value, met):
    """Records a target of issue 17 and whether this run met it."""
    TARGETS.append((what, value, bool(met)))


def thread_rows(name, ms, anchor, target):
    """The rows of a benchmark timed by alternate_twins: each thread count's
    times and per-round ratios, then the ratio of the two sides' best-thread
    times against `target` (a time ratio). `anchor` names the other side
    ("PyTorch", ...)."""
    rows = []
    for threads in (1, 2):
        ratio = [o / t for o, t in zip(ms["Trellis", threads], ms["PyTorch", threads])]
        rows.append((f"{name}, {threads} thread{'s' if threads > 1 else ''}",
                     f"{fmt(ms['Trellis', threads])} ms", f"{anchor} {fmt(ms['PyTorch', threads])} ms",
                     f"{fmt(ratio)} (time ratio)"))
    best = {side: min((statistics.median(ms[side, t]), t) for t in (1, 2))
            for side in ("Trellis", "PyTorch")}
    ratio = best["Trellis"][0] / best["PyTorch"][0]
    record_target(f"{name}: best-thread time ratio ≤ {target}", f"{ratio:.2f}", ratio <= target)
    rows.append((f"{name}, best thread count",
                 f"{best['Trellis'][0]:.2f} ms ({best['Trellis'][1]} thr)",
                 f"{anchor} {best['PyTorch'][0]:.2f} ms ({best['PyTorch'][1]} thr)",
                 f"{ratio:.2f} (≤ {target}: {'met' if ratio <= target else 'not met'})"))
    return rows


# The libraries' variables that choose their kernels, as the runtime reads
# them (lib/Runtime/RuntimeConfig.cpp): one GEMM choice per setting.
GEMM_KERNEL_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "ONEDNN_MAX_CPU_ISA",
                         "DNNL_MAX_CPU_ISA", "ONEDNN_CPU_ISA_HINTS", "DNNL_CPU_ISA_HINTS")


def shape_table_description(path):
    """The table of GEMM shapes kept beside a choice file: how many shapes
    it has and those one library ran at least 10 % faster (a shape leaves
    its class's library for such a one, lib/Runtime/GemmChoice.cpp)."""
    try:
        with open(path) as f:
            table = json.load(f)["gflops"]
    except (OSError, ValueError, KeyError):
        return "no table of shapes"
    faster = {"dnnl": [], "cblas": []}
    for shape, rates in sorted(table.items()):
        for lib, other in (("dnnl", "cblas"), ("cblas", "dnnl")):
            if rates[lib] > 1.1 * rates[other]:
                faster[lib].append(f"{shape} {rates['dnnl']:.0f}/{rates['cblas']:.0f}")
    return (f"{len(table)} shapes measured, oneDNN/OpenBLAS GFLOP/s where one leads by 10 %: "
            f"oneDNN {', '.join(faster['dnnl']) or 'none'}; "
            f"OpenBLAS {', '.join(faster['cblas']) or 'none'}")


def gemm_choice_description():
    """The f32 GEMM libraries Trellis measured on this host and chose per
    size class (lib/Runtime/GemmChoice.cpp): the choice files of the tuning
    directory made under this run's kernel variables (one per setting, e.g.
    one for --isa avx2 and one without, and per thread count), or a note
    that there is none."""
    tuning = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                          "trellis")
    env = thread_env(1)
    ours = {name: env[name] for name in GEMM_KERNEL_VARIABLES if env.get(name)}
    files = sorted(glob.glob(os.path.join(tuning, "gemm-choice-*.json")), key=os.path.getmtime)
    lines = []
    for path in files:
        with open(path) as f:
            kept = json.load(f)
        if kept.get("format") != 9 or kept.get("variables") != ours:
            continue  # an earlier build's, or another setting's
        threads = kept["threads"]["openmp"]
        rates = "; ".join(
            f"{name} " + "/".join(f"{kept['gflops'][lib][c]:.0f}"
                                  for c in ("small", "medium", "large", "thin", "short",
                                            "narrow"))
            for lib, name in (("dnnl", "oneDNN"), ("cblas", "OpenBLAS")))
        sick = ", ".join(kept["sick"]) or "none"
        choice = ", ".join(f"{c} {kept['choice'][c]}"
                           for c in ("small", "medium", "large", "thin", "short", "narrow"))
        forms = kept["orientation_gflops"]
        orientation = (f"short A·Bᵀ {'transposed' if kept['choice']['transpose_short'] else 'direct'}"
                       f" (direct {forms['direct'][kept['choice']['short']]:.0f}, transposed "
                       f"{forms['transposed'][kept['choice']['large']]:.0f} GFLOP/s)")
        shapes = shape_table_description(path.replace("gemm-choice-", "gemm-shapes-"))
        setting = " ".join(f"{k}={v}" for k, v in ours.items()) or "no kernel variables set"
        lines.append(f"{threads}-thread GFLOP/s small/medium/large/thin/short/narrow: {rates}; "
                     f"sick: {sick}; "
                     f"chosen: {choice}, {orientation}; {shapes} "
                     f"({setting}; {os.path.basename(path)})")
    if not lines:
        return f"no choice measured under this run's kernel variables in {tuning}"
    return "\n  ".join(lines)


def print_tables(rows, compile_rows):
    """The closing tables of a benchmark script: (name, Trellis, anchor,
    ratio) rows, then (model, compile_ms) rows, and the GEMM libraries
    Trellis chose."""
    print()
    print(f"GEMM libraries: {gemm_choice_description()}")
    print()
    print(f"{'benchmark':<34} {'Trellis':<28} {'anchor':<40} ratio")
    for r in rows:
        print(f"{r[0]:<34} {r[1]:<28} {r[2]:<40} {r[3]}")
    print()
    print(f"{'model':<48} compile_ms (parse → runnable, median)")
    for name, ms in compile_rows:
        print(f"{name:<48} {ms:.0f}")
    if TARGETS:
        met = sum(ok for _, _, ok in TARGETS)
        print()
        print(f"targets on this host: {met} of {len(TARGETS)} met")
        for what, value, ok in TARGETS:
            print(f"  {'met    ' if ok else 'NOT MET'} {what}: {value}")


def summary(values):
    return statistics.median(values), min(values), max(values)


def fmt(values, unit=""):
    med, lo, hi = summary(values)
    return f"{med:.2f}{unit} ({lo:.2f}–{hi:.2f})"


def add_timing_args(p, rounds, steps):
    """--rounds, --steps (both at least 1) and --build of a benchmark script."""
    p.add_argument("--rounds", type=int, default=rounds)
    p.add_argument("--steps", type=int, default=steps)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    p.add_argument("--isa", choices=sorted(ISA_CAPS),
                   help="cap both sides' vector ISA (avx2: no AVX-512), see ISA_CAPS")


def parse_timing_args(p):
    global ISA_CAP
    a = p.parse_args()
    if a.rounds < 1 or a.steps < 1:
        p.error("--rounds and --steps must be at least 1")
    ISA_CAP = ISA_CAPS[a.isa] if a.isa else None
    return a


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_timing_args(p, rounds=5, steps=20)
    p.add_argument("--only", default="gemm,mlp,rev,compile,lm,revtf")
    a = parse_timing_args(p)
    only = set(a.only.split(","))
    work = tempfile.mkdtemp(prefix="trellis_perf.")
    trellis = Trellis(a.build, work)
    rng = np.random.default_rng(0)
    rows, compile_rows = [], []
    print(f"bench/perf.py: {a.rounds} rounds of {a.steps} steps, alternating; "
          f"medians over rounds (min–max)", flush=True)
    print(f"host: {host_description()}", flush=True)
    # The anchor's health first (a Debian OpenBLAS that does not know the CPU
    # runs 2-4x slow): NumPy's 1-thread 1024² GEMM rate.
    print_anchor_health(a.steps)

    n = 1024
    gemm_model = f"{work}/gemm.mlir"
    open(gemm_model, "w").write(gemm_text(n))
    gemm_inputs = trellis.save("gemm", [rng.standard_normal((n, n), dtype=np.float32)
                                        for _ in range(2)])
    flop = 2 * n ** 3

    def gemm_rates(threads):
        """Trellis's and NumPy's 1024² GEMM GFLOP/s, one run each, after as
        many untimed calls as timed ones on either side: a second core that
        was idle runs the first 30-40 ms of a 2-thread GEMM loop at half speed
        (oneDNN's 1024² on Zen 5: ~180-290 GFLOP/s for 7 calls, then ~390;
        with one untimed call the median of 12 fell in either phase)."""
        s = trellis.run(gemm_model, "gemm", gemm_inputs, a.steps, threads, warmup=a.steps)
        ms = run_anchor(["-c", NUMPY_GEMM, str(n), str(a.steps)], threads, r"ms ([0-9.]+)")
        return flop / (s["run_ms"] * 1e-3) / 1e9, flop / (ms * 1e-3) / 1e9, s

    if "gemm" in only:
        for threads in (1, 2):
            ours, theirs = [], []
            for _ in range(a.rounds):
                o, t, s = gemm_rates(threads)
                ours.append(o)
                theirs.append(t)
            ratio = [o / t for o, t in zip(ours, theirs)]
            record_target(f"GEMM 1024², {threads} thread{'s' if threads > 1 else ''}: "
                          "GFLOP/s ratio ≥ 0.9", f"{statistics.median(ratio):.2f}",
                          statistics.median(ratio) >= 0.9)
            rows.append((f"GEMM 1024² fp32, {threads} thread{'s' if threads > 1 else ''}",
                         f"{fmt(ours)} GFLOP/s", f"NumPy {fmt(theirs)} GFLOP/s",
                         f"{fmt(ratio)} (GFLOP/s ratio, ≥ 0.9)"))
            if threads == 1:
                compile_rows.append(("GEMM 1024²", s["compile_ms"]))
            print(rows[-1], flush=True)

    if "mlp" in only:
        text, params = mlp_text()
        model = f"{work}/mlp.mlir"
        open(model, "w").write(text)
        arrays = []
        for name, t in params:
            shape = [int(d) for d in re.findall(r"(\d+)x", t)]
            fan_in = MLP_SIZES[int(name[1:])]
            arrays.append(rng.uniform(-1, 1, size=shape).astype(np.float32) / np.float32(np.sqrt(fan_in)))
        arrays.append(rng.standard_normal((MLP_BATCH, MLP_SIZES[0]), dtype=np.float32))
        arrays.append(rng.integers(0, MLP_SIZES[-1], size=MLP_BATCH).astype(np.int32))
        inputs = trellis.save("mlp", arrays)
        ours, theirs, compile_ms, references = [], [], [], []
        for _ in range(a.rounds):
            s = trellis.run(model, "train_step", inputs, a.steps, 1)
            ours.append(s["run_ms"])
            compile_ms.append(s["compile_ms"])
            theirs.append(run_anchor([f"{ANCHORS}/train_mlp.py", "1", "3", str(a.steps)], 1,
                                     r"ms/step median ([0-9.]+)"))
            # The host's GEMM rate in the same round: a shared host's speed
            # moves within minutes, and the share is read against it.
            references.append(max(gemm_rates(1)[:2]))
        ratio = [o / t for o, t in zip(ours, theirs)]
        gflops = [MLP_GFLOP / (o * 1e-3) for o in ours]
        shares = [100 * g / r for g, r in zip(gflops, references)]
        record_target("MLP step, 1 thread: time ratio ≤ 0.7", f"{statistics.median(ratio):.2f}",
                      statistics.median(ratio) <= 0.7)
        record_target("MLP step: ≥ 70 % of the host's 1-thread GEMM rate",
                      f"{statistics.median(shares):.0f} %", statistics.median(shares) >= 70)
        rows.append(("MLP train step, 1 thread", f"{fmt(ours)} ms",
                     f"PyTorch {fmt(theirs)} ms", f"{fmt(ratio)} (time ratio, ≤ 0.7)"))
        rows.append(("MLP GFLOP/s (1.52 GFLOP/step)", f"{fmt(gflops)}",
                     f"host 1-thread GEMM {fmt(references)}",
                     f"{statistics.median(shares):.0f} % of it, per round (≥ 70 %)"))
        compile_rows.append(("MLP train step", statistics.median(compile_ms)))
        print(rows[-2], rows[-1], flush=True)

    if "rev" in only or "compile" in only:
        B, D, H = 8 * 128, 256, 1024

        def rev_inputs(L, tag):
            text, params = rev_text(L, B, D, H)
            model = f"{work}/rev{L}.mlir"
            open(model, "w").write(text)
            r = np.random.default_rng(L)
            arrays = [r.standard_normal((B, D), dtype=np.float32) for _ in range(2)]
            for name, st, _ in params:
                shape = [int(d) for d in re.findall(r"(\d+)x", st)]
                if name[0] == "s":
                    arrays.append(np.ones(shape, np.float32))
                elif name[0] in "ob":
                    arrays.append(np.zeros(shape, np.float32))
                else:
                    arrays.append(r.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(shape[-2])))
            arrays += [r.standard_normal((B, D), dtype=np.float32) for _ in range(2)]
            return model, trellis.save(tag, arrays)

    if "rev" in only:
        L = 8
        model, inputs = rev_inputs(L, "rev8")
        compile_ms = []
        steps = max(3, a.steps // 4)  # ~0.3 s per step

        def run_rev(side, threads):
            if side == "Trellis":
                s = trellis.run(model, "train_step", inputs, steps, threads)
                compile_ms.append(s["compile_ms"])
                return s["run_ms"]
            return 1e3 * run_anchor([f"{ANCHORS}/rev_stack.py", "reversible", str(L), str(threads),
                                     "1", str(steps)], threads, r"s/step median ([0-9.]+)")

        # Each side at 1 and 2 threads, alternating; the target is on the
        # best of each (as for the LM and the reversible Transformer).
        ms = alternate_twins(a.rounds, run_rev, label=f"reversible stack L={L}, ")
        rows += thread_rows(f"reversible stack L={L}", ms, "PyTorch reversible", 0.8)
        compile_rows.append((f"reversible stack L={L}", statistics.median(compile_ms)))
        print(*rows[-3:], flush=True)

    if "compile" in only:
        model, inputs = rev_inputs(32, "rev32")
        compile_ms = [trellis.run(model, "train_step", inputs, 1, 1)["compile_ms"]
                      for _ in range(max(1, a.rounds // 2))]
        compile_rows.append(("reversible stack L=32 (target ≤ 2000)", statistics.median(compile_ms)))
        record_target("compile, reversible stack L=32 ≤ 2000 ms",
                      f"{statistics.median(compile_ms):.0f} ms", statistics.median(compile_ms) <= 2000)

    if "lm" in only:
        import transformer_lm  # noqa: E402  (imports this file as `perf`)
        lm_rows, lm_compile_ms, cached = transformer_lm.measure(
            trellis, work, transformer_lm.ISSUE, a.rounds, max(2, a.steps // 4))
        rows += lm_rows
        compile_rows.append(("Transformer LM step", lm_compile_ms))
        record_target("compile, Transformer LM step ≤ 3000 ms", f"{lm_compile_ms:.0f} ms",
                      lm_compile_ms <= 3000)
        compile_rows.append(("Transformer LM step, second run from the compile cache", cached))
        record_target("compile, LM step from the compile cache ≤ 500 ms", f"{cached:.0f} ms",
                      cached <= 500)
        print(*lm_rows, flush=True)

    if "revtf" in only:
        import reversible_transformer  # noqa: E402  (imports this file as `perf`)
        revtf_rows, revtf_compile_rows = reversible_transformer.measure(
            trellis, work, reversible_transformer.DEPTHS, reversible_transformer.LENGTH,
            a.rounds, max(2, a.steps // 4))
        rows += revtf_rows
        compile_rows += revtf_compile_rows
        print(*revtf_rows, flush=True)

    print_tables(rows, compile_rows)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
