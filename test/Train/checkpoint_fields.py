"""Hand-edited checkpoints (issue 20): trellis-train --resume rejects each
with one line naming the file and the field, exit 1, and leaves the
checkpoint as it was; the unedited checkpoint resumes.

usage: checkpoint_fields.py WORKDIR SRC
"""
import os
import shutil
import subprocess
import sys

import numpy as np

work, src = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
example = os.path.join(src, "examples", "digits")
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)


def train(out, *extra):
    return subprocess.run(["trellis-train", os.path.join(example, "model.mlir"),
                           f"--data={data}/train.npz", f"--output-dir={out}", *extra],
                          capture_output=True, text=True, timeout=600)


first = os.path.join(work, "first")
r = train(first, "--steps=4", "--checkpoint-every=2")
if r.returncode != 0:
    sys.exit(f"FAIL first run: {r.stderr}")
saved = dict(np.load(os.path.join(first, "checkpoint.npz")))

EDITS = {
    "negative": lambda c: c.update(step=np.int64(-3)),
    "huge": lambda c: c.update(step=np.int64(2 ** 62)),
    "empty": lambda c: c.update(step=np.zeros(0, np.int64)),
    "vector": lambda c: c.update(step=np.array([2, 2], np.int64)),
    "float": lambda c: c.update(step=np.float64(2)),
    "no-seed": lambda c: c.pop("seed"),
}
for name, edit in EDITS.items():
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    edited = dict(saved)
    edit(edited)
    path = os.path.join(out, "checkpoint.npz")
    np.savez(path, **edited)
    before = open(path, "rb").read()
    r = train(out, "--steps=8", "--resume")
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    same = open(path, "rb").read() == before
    print(f"{name}: exit {r.returncode}, {'unchanged' if same else 'CHANGED'}: "
          f"{lines[-1] if lines else ''}")

out = os.path.join(work, "intact")
shutil.copytree(first, out, dirs_exist_ok=True)
r = train(out, "--steps=6", "--resume")
print(f"intact: exit {r.returncode}")
