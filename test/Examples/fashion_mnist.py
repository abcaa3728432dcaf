"""examples/fashion-mnist on a slice of the real data: the first SLICE
training examples of Debian's dataset-fashion-mnist, written back as raw
(uncompressed) IDX files, train the example's MLP for STEPS steps; the
evaluation runs on the whole 10,000-image test set, read gzipped as the
package ships it. Both IDX paths of the reader (raw, gzip) thereby see real
files.

* generated: the model (model.mlir, or MODEL) is what its generator
  (gen_model.py, or GENERATOR) writes;
* examples: trellis-train reports SLICE training examples;
* accuracy: the test-set accuracy of the last evaluation reaches MIN_ACCURACY;
* with STATE (comma-separated NAME=INITIAL, checkpoint names and initial
  values: the CNN's batch-norm running statistics, param12=0 for a mean,
  param13=1 for a variance): state: each is in the checkpoint and moved
  away from its initial value — the state was threaded through
  @train_step, not left where it started.

usage: fashion_mnist.py WORKDIR EXAMPLE_DIR SLICE STEPS MIN_ACCURACY [MODEL GENERATOR [STATE]]"""

import gzip
import json
import os
import subprocess
import sys

import numpy as np

from trellis_testing.run import Checker

work, example = sys.argv[1], sys.argv[2]
n, steps, min_acc = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
model_name, generator = (sys.argv[6], sys.argv[7]) if len(sys.argv) > 7 else ("model.mlir", "gen_model.py")
state = dict(item.split("=") for item in sys.argv[8].split(",")) if len(sys.argv) > 8 else {}
data = "/usr/share/datasets/fashion-mnist"
os.makedirs(work, exist_ok=True)
check = Checker()
python = "/usr/bin/python3"


def write_slice(name, header_bytes, row_bytes):
    """The first n examples of an IDX file, with its count set to n."""
    with gzip.open(os.path.join(data, name)) as f:
        raw = f.read()
    header = bytearray(raw[:header_bytes])
    header[4:8] = n.to_bytes(4, "big")
    path = os.path.join(work, name[:-3])
    with open(path, "wb") as f:
        f.write(bytes(header) + raw[header_bytes:header_bytes + n * row_bytes])
    return path


images = write_slice("train-images-idx3-ubyte.gz", 16, 28 * 28)
labels = write_slice("train-labels-idx1-ubyte.gz", 8, 1)

model = os.path.join(example, model_name)
generated = subprocess.run([python, os.path.join(example, generator)],
                           capture_output=True, text=True, check=True).stdout
with open(model) as f:
    check.expect("fashion-mnist.generated", f.read() == generated,
                 f"{model_name} equals the output of {generator}")

out = os.path.join(work, "run")
test = f"idx:{data}/t10k-images-idx3-ubyte.gz,{data}/t10k-labels-idx1-ubyte.gz"
cmd = ["trellis-train", model, f"--data=idx:{images},{labels}", f"--eval-data={test}",
       f"--steps={steps}", f"--eval-every={steps}", f"--output-dir={out}"]
proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
if proc.returncode != 0:
    print(f"FAIL fashion-mnist.train: {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
    sys.exit(1)
check.expect("fashion-mnist.examples", f"{n} examples" in proc.stdout,
             f"trellis-train read {n} training examples")
with open(os.path.join(out, "metrics.jsonl")) as f:
    records = [json.loads(line) for line in f]
evals = [(r["step"], r["eval"]) for r in records if "eval" in r]
step, metrics = evals[-1] if evals else (None, {})
acc = metrics.get("accuracy")
check.expect("fashion-mnist.accuracy", acc is not None and step == steps and acc >= min_acc,
             f"test-set accuracy {acc} at step {step} (>= {min_acc})")
if state:
    saved = np.load(os.path.join(out, "checkpoint.npz"))
    moved = {}
    for name, initial in state.items():
        if name in saved.files:
            moved[name] = float(np.max(np.abs(saved[name] - float(initial))))
    check.expect("fashion-mnist.state", len(moved) == len(state) and min(moved.values()) > 1e-3,
                 "largest change of each running statistic from its initial value: "
                 + ", ".join(f"{k} {v:.3g}" for k, v in moved.items())
                 + (f"; missing from the checkpoint: {sorted(set(state) - set(moved))}"
                    if len(moved) < len(state) else ""))
check.finish()
