"""examples/EXAMPLE/train.py (reformer, transformer): the Trax-style layers
rebuild the language model of examples/EXAMPLE/model.mlir.

* same_signature: the package's @train_step takes the parameters in
  model.mlir's order and shapes (then Adam's moments, as model.mlir does);
* same_step.<what>: one @train_step of each on the same parameters and
  batch: the losses within 1e-5 relative; the first and second Adam moments
  (0.1·g and 0.02·g², i.e. the gradients) within 1e-4 norm-relative; the
  package's new parameters are PyTorch's Adam step from those moments
  (NumPy, 1e-6; model.mlir's Adam adds eps elsewhere, which moves the
  updates of gradients of size ~eps);
* same_eval: the held-out loss on the same parameters within 1e-5 and the
  same accuracy;
* accuracy: the Python Trainer, STEPS steps, reaches MIN_ACCURACY held-out
  (as test/Examples/EXAMPLE.test asks of trellis-train).

usage: python_twin.py WORKDIR SRC_ROOT EXAMPLE STEPS MIN_ACCURACY"""

import os
import re
import subprocess
import sys

import numpy as np

from trellis_testing.run import Checker, run_entry, write_model

work, src, name = sys.argv[1], sys.argv[2], sys.argv[3]
steps, min_accuracy = int(sys.argv[4]), float(sys.argv[5])
os.makedirs(work, exist_ok=True)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
example = os.path.join(src, "examples", name)
sys.path.insert(0, example)
import train  # noqa: E402  (examples/<name>/train.py)

check = Checker()
with open(os.path.join(example, "model.mlir")) as f:
    reference = f.read()
trainer = train.trainer(n_layers=2)
ours = write_model(work, trainer.text, "python.mlir")
theirs = os.path.join(example, "model.mlir")


def signature(text, fn):
    """The argument types of `func.func @fn`."""
    head = re.search(rf"func\.func @{fn}\((.*?)\)\s*->", text, re.S).group(1)
    return re.findall(r"tensor<[^>]*>", head)


n = len(trainer.param_shapes)
ref_types, our_types = signature(reference, "train_step"), signature(trainer.text, "train_step")
check.expect(f"{name}.same_signature",
             our_types[:3 * n] == ref_types[:3 * n],
             f"{n} parameters, then the two Adam moments, in the same order and shapes")

rng = np.random.default_rng(0)
sys.path.insert(0, os.path.join(src, "bench"))
import perf  # noqa: E402  (draw_parameters: trellis.init's distributions)


class P:
    def __init__(self, shape, init):
        self.shape, self.init = shape, init


inits = re.findall(r'trellis\.init = "([^"]+)"', reference)[:n]
params = perf.draw_parameters([P(s, i) for s, i in zip(trainer.param_shapes, inits)], rng)
zeros = [np.zeros(p.shape, np.float32) for p in params]
data = subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"),
                       os.path.join(work, "data")], capture_output=True, text=True, check=True)
batch = np.load(os.path.join(work, "data", "train.npz"))
eb = np.load(os.path.join(work, "data", "test.npz"))


def both(entry, data, size):
    """`entry` of model.mlir and of the package's module on the parameters,
    zero Adam moments and the first `size` examples of `data`: model.mlir
    takes the powers of beta (ones), the package the step count (zero)."""
    xs = [data[k][:size] for k in ("x", "pos_ids", "y")]
    ref, _ = run_entry(theirs, entry, params + zeros + zeros + [np.ones((), np.float32)] * 2 + xs,
                       work, tag=f"ref_{entry}")
    got, _ = run_entry(ours, entry, params + zeros + zeros + [np.zeros((), np.float32)] + xs,
                       work, tag=f"our_{entry}")
    return ref, got


# Results: params, m, v, then powers of beta / the step, then the loss.
ref, got = both("train_step", batch, train.TRAIN_BATCH)


def norm_rel(a, b):
    num = sum(float(np.sum((x.astype(np.float64) - y) ** 2)) for x, y in zip(a, b))
    den = sum(float(np.sum(y.astype(np.float64) ** 2)) for y in b)
    return (num / den) ** 0.5


loss_err = abs(float(got[-1]) - float(ref[-1])) / abs(float(ref[-1]))
check.expect(f"{name}.same_step.loss", loss_err <= 1e-5,
             f"loss {float(got[-1]):.6f} vs {float(ref[-1]):.6f} (relative {loss_err:.1e})")
for what, lo, tol in (("exp_avg", n, 1e-4), ("exp_avg_sq", 2 * n, 1e-4)):
    err = norm_rel(got[lo:lo + n], ref[lo:lo + n])
    check.expect(f"{name}.same_step.{what}", err <= tol,
                 f"norm-relative difference {err:.2e} (<= {tol:g})")
# The two Adams differ only in where eps enters, which matters for the
# gradients of size ~eps (rows of unused embeddings): the package's step is
# checked against PyTorch's formula in NumPy, from its own moments.
m1, v1 = [a.astype(np.float64) for a in got[n:2 * n]], [a.astype(np.float64) for a in got[2 * n:3 * n]]
want = [p - train.LR * (m / 0.1) / (np.sqrt(v / 0.02) + 1e-9) for p, m, v in zip(params, m1, v1)]
err = norm_rel(got[:n], want)
check.expect(f"{name}.same_step.params", err <= 1e-6,
             f"new parameters vs PyTorch's Adam step in NumPy: norm-relative {err:.2e} (<= 1e-6)")

ref_eval, our_eval = both("eval", eb, train.EVAL_BATCH)
ref_acc, ref_loss = float(ref_eval[0]), float(ref_eval[1])   # model.mlir: accuracy, loss
our_loss, our_acc = float(our_eval[0]), float(our_eval[1])   # the package: loss, accuracy
check.expect(f"{name}.same_eval",
             abs(our_loss - ref_loss) <= 1e-5 * abs(ref_loss) and our_acc == ref_acc,
             f"held-out loss {our_loss:.6f} vs {ref_loss:.6f}, accuracy {our_acc} vs {ref_acc}")

result = trainer.fit(dict(batch), steps=steps, output_dir=os.path.join(work, "run"),
                     eval_data=dict(eb), eval_every=steps)
acc = result.evals[-1]["accuracy"]
check.expect(f"{name}.accuracy", acc >= min_accuracy,
             f"held-out accuracy {acc:.4f} after {steps} steps (>= {min_accuracy})")
check.finish()
