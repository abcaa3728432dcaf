"""Identical layers share their compiled loops; see merged-layers.test.

Usage: merged_layers.py TRELLIS_SRC WORKDIR. Generates the Transformer LM of
examples/transformer/gen_model.py with 2 and with 3 blocks, at sizes whose
element-wise ops fork OpenMP teams (8 x 64 x 64 activations), runs one
@train_step of each with trellis-run and reads the optimized LLVM IR. Prints

* "PARALLEL depth <n>: forks": the step does run parallel regions (else the
  checks below would not see any);
* "THUNKS depth <n>: <k> parallel regions that only call another": an OpenMP
  region's outlined body (`..omp_par`) that MergeFunctions found equal to
  another and could only turn into a call to it, because its address is
  handed to __kmpc_fork_call (then every loop that forks it stays a function
  of its own per layer);
* "FUNCTIONS: depth 3 defines <k> more than depth 2": a third identical block
  adds no compiled function (its loops are the first two blocks');
* "PASS|FAIL depth <n>.loss": the step's loss is finite.
"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "lib"))
from trellis_testing.gradcheck import function_signature  # noqa: E402
from trellis_testing.run import run_entry  # noqa: E402

SIZES = ["--vocab", "64", "--seq", "64", "--width", "64", "--heads", "2",
         "--ff", "256", "--train-batch", "8", "--eval-batch", "8"]

src, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
rng = np.random.default_rng(5)


def array(type_text):
    """A small random array of an MLIR tensor type (integers: zeros)."""
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", type_text.strip())
    if not m:
        sys.exit(f"FAIL: unexpected argument type {type_text}")
    shape = [int(d) for d in m.group(1).split("x") if d]
    if m.group(2).startswith("i"):
        return np.zeros(shape, dtype=np.dtype(f"int{m.group(2)[1:]}"))
    dtype = {"f32": np.float32, "f64": np.float64}[m.group(2)]
    return (0.1 * rng.standard_normal(shape)).astype(dtype)


def compile_step(depth):
    """(the functions the optimized LLVM IR defines, its text, the loss: the
    step's last result)."""
    model = os.path.join(workdir, f"lm{depth}.mlir")
    with open(model, "w") as f:
        subprocess.run([sys.executable,
                        os.path.join(src, "examples", "transformer", "gen_model.py"),
                        *SIZES, str(depth)], stdout=f, check=True)
    with open(model) as f:
        args, _ = function_signature(f.read(), "train_step")
    ll = os.path.join(workdir, f"lm{depth}.ll")
    results, _ = run_entry(model, "train_step", [array(a) for a in args],
                           workdir, tag=f"lm{depth}",
                           extra=[f"--dump-llvm-ir={ll}"])
    with open(ll) as f:
        text = f.read()
    defined = re.findall(r"^define [^\n]*@([\w.$]+)\(", text, re.M)
    return defined, text, results[-1]


counts = {}
for depth in (2, 3):
    defined, text, loss = compile_step(depth)
    counts[depth] = len(defined)
    print(f"PARALLEL depth {depth}: "
          f"{'forks' if '@__kmpc_fork_call(' in text else 'NO forks'}")
    bodies = re.findall(r"^define [^\n]*@[\w.$]+\.\.omp_par\([^\n]*\n(.*?)^\}",
                        text, re.M | re.S)
    thunks = sum(1 for body in bodies
                 if re.fullmatch(r"\s*(tail )?call void @[\w.$]+\.\.omp_par\("
                                 r"[^\n]*\n\s*ret void\s*", body))
    print(f"THUNKS depth {depth}: {thunks} parallel regions that only call "
          f"another")
    finite = bool(np.all(np.isfinite(loss)))
    print(f"{'PASS' if finite else 'FAIL'} depth {depth}.loss: {float(loss)}")
    if not finite:
        sys.exit(1)
print(f"FUNCTIONS: depth 3 defines {counts[3] - counts[2]} more than depth 2 "
      f"({counts[2]} -> {counts[3]})")
