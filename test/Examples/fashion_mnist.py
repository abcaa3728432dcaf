"""examples/fashion-mnist on a slice of the real data: the first SLICE
training examples of Debian's dataset-fashion-mnist, written back as raw
(uncompressed) IDX files, train the example's MLP for STEPS steps; the
evaluation runs on the whole 10,000-image test set, read gzipped as the
package ships it. Both IDX paths of the reader (raw, gzip) thereby see real
files.

* generated: model.mlir is what gen_model.py writes;
* examples: trellis-train reports SLICE training examples;
* accuracy: the test-set accuracy of the last evaluation reaches MIN_ACCURACY.

usage: fashion_mnist.py WORKDIR EXAMPLE_DIR SLICE STEPS MIN_ACCURACY"""

import gzip
import json
import os
import subprocess
import sys

from trellis_testing.run import Checker

work, example = sys.argv[1], sys.argv[2]
n, steps, min_acc = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
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

model = os.path.join(example, "model.mlir")
generated = subprocess.run([python, os.path.join(example, "gen_model.py")],
                           capture_output=True, text=True, check=True).stdout
with open(model) as f:
    check.expect("fashion-mnist.generated", f.read() == generated,
                 "model.mlir equals the output of gen_model.py")

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
check.finish()
