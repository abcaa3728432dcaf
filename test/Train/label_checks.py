"""Labels outside the model's classes are rejected when the data is read
(issue 20). Prints one line per case.

The classes are the last dimension of the logits of the nn.cross_entropy
that a batch argument's labels reach (here through ad.value_and_grad and
a private @loss, or a tensor.collapse_shape). A label outside [0, classes)
trained to a wrong loss with exit 0 (cross_entropy takes only the
log-sum-exp of such a row), and the shipped examples' @eval, which reads
tensor.extract at the label's index, crashed (label -1e8: SIGSEGV). Now
each is one line naming the file, the array, the index and the value,
exit 1, before the first step.

usage: label_checks.py WORKDIR SRC
"""

import os
import subprocess
import sys

import numpy as np

work, src = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def classifier(name, labels_shape, collapse):
    """Logistic regression over 4 classes, batch 8; with `collapse`, 3
    labels per example, collapsed to 24 rows of logits."""
    rows = 24 if collapse else 8
    y_t = f"tensor<{labels_shape}xi32>"
    x_t = "tensor<8x3x4xf32>" if collapse else "tensor<8x4xf32>"
    flat = (f"%flat = tensor.collapse_shape %y [[0, 1]] : {y_t} into "
            f"tensor<{rows}xi32>\n  " if collapse else "")
    labels = "%flat" if collapse else "%y"
    rows_x = (f"%xr = tensor.collapse_shape %x [[0, 1], [2]] : {x_t} into "
              f"tensor<{rows}x4xf32>\n  " if collapse else "")
    x_value = "%xr" if collapse else "%x"
    text = f"""
func.func private @loss(%w: tensor<4x4xf32>, %x: {x_t}, %y: {y_t}) -> tensor<f32> {{
  %zb = arith.constant dense<0.0> : tensor<4xf32>
  {rows_x}%z = nn.dense {x_value}, %w, %zb : (tensor<{rows}x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<{rows}x4xf32>
  {flat}%l = nn.cross_entropy %z, {labels} : (tensor<{rows}x4xf32>, tensor<{rows}xi32>) -> tensor<f32>
  return %l : tensor<f32>
}}

func.func @train_step(%w: tensor<4x4xf32>, %x: {x_t} {{trellis.batch = "x"}}, %y: {y_t} {{trellis.batch = "y"}}) -> (tensor<4x4xf32>, tensor<f32>) {{
  %l, %g = ad.value_and_grad @loss(%w, %x, %y) : (tensor<4x4xf32>, {x_t}, {y_t}) -> (tensor<f32>, tensor<4x4xf32>)
  %lr = arith.constant dense<0.1> : tensor<4x4xf32>
  %u = arith.mulf %g, %lr : tensor<4x4xf32>
  %w2 = arith.subf %w, %u : tensor<4x4xf32>
  return %w2, %l : tensor<4x4xf32>, tensor<f32>
}}

func.func @eval(%w: tensor<4x4xf32>, %x: {x_t} {{trellis.batch = "x"}}, %y: {y_t} {{trellis.batch = "y"}}) -> (tensor<f32> {{trellis.name = "loss"}}) {{
  %l = func.call @loss(%w, %x, %y) : (tensor<4x4xf32>, {x_t}, {y_t}) -> tensor<f32>
  return %l : tensor<f32>
}}
"""
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def dataset(name, n, label_shape, bad=None):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n,) + label_shape + (4,)).astype(np.float32)
    y = rng.integers(0, 4, (n,) + label_shape).astype(np.int32)
    if bad is not None:
        index, value = bad
        y[index] = value
    path = os.path.join(work, name)
    np.savez(path, x=x, y=y)
    return path


def train(model, data, out, evaluation=None, steps=10**9):
    cmd = ["trellis-train", model, f"--data={data}",
           f"--output-dir={os.path.join(work, out)}", f"--steps={steps}"]
    if evaluation:
        cmd.append(f"--eval-data={evaluation}")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def report(name, r, out):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    started = os.path.exists(os.path.join(work, out, "metrics.jsonl"))
    print(f"{name}: exit {r.returncode}, "
          f"{'STEPS RAN' if started else 'no step'}, {len(lines)} line(s): "
          f"{lines[-1] if lines else ''}")


flat = classifier("classifier.mlir", "8", collapse=False)
good = dataset("good.npz", 64, ())
r = train(flat, good, "good", evaluation=good, steps=20)
print(f"in range: exit {r.returncode}")
for name, bad in [("negative", (17, -100000000)), ("classes", (63, 4))]:
    data = dataset(f"{name}.npz", 64, (), bad=bad)
    r = train(flat, data, name)
    report(f"train {name}", r, name)
# In the eval data: its own file named.
data = dataset("eval_bad.npz", 40, (), bad=(39, 7))
r = train(flat, good, "eval_bad", evaluation=data)
report("eval 7", r, "eval_bad")

# Three labels per example, collapsed before the cross-entropy.
seq = classifier("sequence.mlir", "8x3", collapse=True)
r = train(seq, dataset("sequence_good.npz", 64, (3,)), "sequence_good",
          steps=20)
print(f"collapsed in range: exit {r.returncode}")
data = dataset("sequence.npz", 64, (3,), bad=((5, 2), -1))
r = train(seq, data, "sequence")
report("collapsed -1", r, "sequence")

# The reversible example's @eval reads tensor.extract at each label's
# index: label -1e8 in its eval data crashed it (SIGSEGV) after training.
model = os.path.join(src, "examples", "reversible", "model.mlir")
rng = np.random.default_rng(0)
train_data = os.path.join(work, "rev_train.npz")
np.savez(train_data, x=rng.standard_normal((64, 16)).astype(np.float32),
         y=rng.integers(0, 4, 64).astype(np.int32))
y = rng.integers(0, 4, 64).astype(np.int32)
y[3] = -100000000
eval_data = os.path.join(work, "rev_test.npz")
np.savez(eval_data, x=rng.standard_normal((64, 16)).astype(np.float32), y=y)
r = train(model, train_data, "reversible", evaluation=eval_data, steps=5)
report("reversible eval -1e8", r, "reversible")
