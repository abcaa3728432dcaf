"""Outputs never write through a symbolic link planted in the output
directory (issue 20): result0.npy of trellis-run and curve.svg and
checkpoint.npz of trellis-train are written to a temporary file created
exclusively and renamed over the link (which is replaced, its target left
alone); metrics.jsonl, appended to, is opened without following links and
a link there is one error line. Prints one line per case.

usage: symlinks.py WORKDIR SRC
"""
import os
import subprocess
import sys

import numpy as np

work, src = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
victim = os.path.join(work, "victim.txt")
example = os.path.join(src, "examples", "digits")
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)


def plant(out, name):
    os.makedirs(out, exist_ok=True)
    with open(victim, "w") as f:
        f.write("precious\n")
    link = os.path.join(out, name)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(victim, link)
    return link


def report(case, r, link):
    intact = open(victim).read() == "precious\n"
    kind = "link" if os.path.islink(link) else ("file" if os.path.exists(link) else "none")
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    print(f"{case}: exit {r.returncode}, victim {'intact' if intact else 'OVERWRITTEN'}, "
          f"{os.path.basename(link)} is a {kind}" + (f": {lines[-1]}" if r.returncode else ""))


# trellis-run's result.
model = os.path.join(work, "noop.mlir")
with open(model, "w") as f:
    f.write("func.func @noop(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n")
np.save(os.path.join(work, "x.npy"), np.float32(3))
out = os.path.join(work, "run")
link = plant(out, "result0.npy")
r = subprocess.run(["trellis-run", model, "--entry=noop", f"--input={work}/x.npy",
                    f"--output-dir={out}"], capture_output=True, text=True)
report("result0.npy", r, link)


def train(out, *extra):
    return subprocess.run(["trellis-train", os.path.join(example, "model.mlir"),
                           f"--data={data}/train.npz", f"--output-dir={out}", "--steps=4",
                           "--checkpoint-every=2", *extra], capture_output=True, text=True)


for name in ("curve.svg", "checkpoint.npz"):
    out = os.path.join(work, name.replace(".", "_"))
    link = plant(out, name)
    report(name, train(out), link)

out = os.path.join(work, "metrics")
link = plant(out, "metrics.jsonl")
report("metrics.jsonl", train(out), link)
