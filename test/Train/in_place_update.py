"""The update rules of examples/modelgen.py write the new parameters over the
gradients' buffers (docs/performance.md):

* digits (SGD): the same step with the update written out of place (into
  a new tensor) allocates no more than the in-place one — the lowering's
  trellis-choose-destinations writes an element-wise op over an operand
  that dies there, the gradient — and returns bit-identical parameters and
  loss;
* digits (SGD) and transformer (Adam): trellis-train --resume still
  reproduces the losses of an uninterrupted run bit for bit.

usage: in_place_update.py WORKDIR TRELLIS_SRC
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

from trellis_testing.run import Checker, run_entry

work, src = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()
python = "/usr/bin/python3"

# -- allocations and results of one SGD step ----------------------------------

model = os.path.join(src, "examples", "digits", "model.mlir")
text = open(model).read()
# The same update with the gradient as an input and the parameter as the
# (unread) init, which canonicalization turns into a new empty tensor:
# without trellis-choose-destinations, bufferization gives it a buffer of its
# own (one allocation per parameter more).
update = re.compile(r"\{indexing_maps = \[(affine_map<\([^)]*\) -> \([^)]*\)>), \1\], "
                    r"iterator_types = \[([^\]]*)\]\}\n(\s*)ins\((%\w+) : ([^)]*)\) "
                    r"outs\((%\w+) : \5\) \{\n(\s*)\^bb0\(%_p: f32, %_g: f32\):")
out_of_place, n = update.subn(
    lambda m: (f"{{indexing_maps = [{m[1]}, {m[1]}, {m[1]}], iterator_types = [{m[2]}]}}\n"
               f"{m[3]}ins({m[4]}, {m[6]} : {m[5]}, {m[5]}) outs({m[4]} : {m[5]}) {{\n"
               f"{m[7]}^bb0(%_p: f32, %_g: f32, %_o: f32):"), text)
params = len(re.findall(r'trellis\.init = ', text[text.index("@train_step"):]))
check.expect("digits.variant", n == params == 4,
             f"{n} SGD updates rewritten out of place, {params} parameters")
variant = os.path.join(work, "out_of_place.mlir")
open(variant, "w").write(out_of_place)

rng = np.random.default_rng(0)
inputs = [(0.1 * rng.standard_normal(shape)).astype(np.float32)
          for shape in [(64, 128), (128,), (128, 10), (10,), (32, 64)]]
inputs.append(rng.integers(0, 10, size=32).astype(np.int32))


def step(module, tag):
    env = dict(os.environ, TRELLIS_TRACE_ALLOC="1")
    results, proc = run_entry(module, "train_step", inputs, work, tag=tag,
                              env=env)
    allocs = sum(1 for line in proc.stderr.splitlines() if line.startswith("alloc "))
    return allocs, results


in_place, got = step(model, "in_place")
separate, want = step(variant, "out_of_place")
check.expect("digits.allocations", in_place == separate,
             f"{in_place} allocations per step in place, {separate} out of place")
check.expect("digits.same_results",
             all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want)),
             "new parameters and loss bit-identical to the out-of-place update")

# -- resume ---------------------------------------------------------------------


def losses(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return {r["step"]: r["loss"] for r in map(json.loads, f) if "loss" in r}


for name, steps in (("digits", 30), ("transformer", 12)):
    example = os.path.join(src, "examples", name)
    data = os.path.join(work, name + "_data")
    subprocess.run([python, os.path.join(example, "make_data.py"), data],
                   check=True, capture_output=True)

    def train(out, *extra):
        cmd = ["trellis-train", os.path.join(example, "model.mlir"),
               f"--data={data}/train.npz", f"--output-dir={out}", *extra]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print(f"FAIL {name}.train: {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
            sys.exit(1)
        return proc.stdout

    straight = os.path.join(work, name + "_straight")
    train(straight, f"--steps={steps}")
    resumed = os.path.join(work, name + "_resumed")
    half = steps // 2
    train(resumed, f"--steps={half}", f"--checkpoint-every={half}")
    stdout = train(resumed, f"--steps={steps}", "--resume")
    want, got = losses(straight), losses(resumed)
    check.expect(f"{name}.resume_bit_identical",
                 "resuming from" in stdout and
                 all(got.get(s) == want[s] for s in range(half + 1, steps + 1)),
                 f"steps {half + 1}..{steps} after --resume equal the uninterrupted run")
check.finish()
