"""A 32-block reversible stack (loop form, stacked weights) trains.

The stack of make_loop_stack.py regresses a fixed target: loss =
mean((y1 − t)²). One JIT call runs 30 SGD steps (value_and_grad inside an
scf.for) and returns the losses; the first must equal a NumPy f64 forward
pass (rel. 1e-4) and the last must be below 40 % of the first. Peak tensor
memory of the whole training run is reported.
Usage: reversible_sgd.py WORKDIR
"""
import json
import os
import subprocess
import sys

import numpy as np

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
L, B, D, STEPS = 32, 8, 16, 30
model = f"{work}/stack.mlir"
subprocess.run([sys.executable, f"{here}/../reversible/make_loop_stack.py", str(L), model, str(B), str(D)],
               check=True)
T = f"tensor<{B}x{D}xf32>"
SW, SV = f"tensor<{L}x{D}x{D}xf32>", f"tensor<{L}x{D}xf32>"
P = f"{SW}, {SV}, {SW}, {SV}"
text = open(model).read() + f"""
func.func @loss(%wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}, %x1: {T}, %x2: {T}, %t: {T}) -> tensor<f32> {{
  %y:2 = func.call @reversible(%x1, %x2, %wf, %bf, %wg, %bg) : ({T}, {T}, {P}) -> ({T}, {T})
  %d = arith.subf %y#0, %t : {T}
  %sq = arith.mulf %d, %d : {T}
  %m = nn.mean %sq : ({T}) -> tensor<f32>
  return %m : tensor<f32>
}}
func.func @train(%wf: {SW}, %bf: {SV}, %wg: {SW}, %bg: {SV}, %x1: {T}, %x2: {T}, %t: {T})
    -> tensor<{STEPS}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cN = arith.constant {STEPS} : index
  %lr = arith.constant 0.05 : f32
  %l0 = tensor.empty() : tensor<{STEPS}xf32>
  %r:5 = scf.for %i = %c0 to %cN step %c1 iter_args(%a = %wf, %b = %bf, %c = %wg, %d = %bg, %ls = %l0)
      -> ({P}, tensor<{STEPS}xf32>) {{
    %l, %ga, %gb, %gc, %gd = ad.value_and_grad @loss(%a, %b, %c, %d, %x1, %x2, %t)
        {{argnums = array<i64: 0, 1, 2, 3>}} : ({P}, {T}, {T}, {T}) -> (tensor<f32>, {P})
    %sa = tensor.splat %lr : {SW}
    %sb = tensor.splat %lr : {SV}
    %ua = arith.mulf %sa, %ga : {SW}
    %a2 = arith.subf %a, %ua : {SW}
    %ub = arith.mulf %sb, %gb : {SV}
    %b2 = arith.subf %b, %ub : {SV}
    %uc = arith.mulf %sa, %gc : {SW}
    %c2 = arith.subf %c, %uc : {SW}
    %ud = arith.mulf %sb, %gd : {SV}
    %d2 = arith.subf %d, %ud : {SV}
    %lv = tensor.extract %l[] : tensor<f32>
    %ls2 = tensor.insert %lv into %ls[%i] : tensor<{STEPS}xf32>
    scf.yield %a2, %b2, %c2, %d2, %ls2 : {P}, tensor<{STEPS}xf32>
  }}
  return %r#4 : tensor<{STEPS}xf32>
}}
"""
open(model, "w").write(text)
rng = np.random.default_rng(5)
scale = 1.0 / (4.0 * np.sqrt(L))
arrays = [scale * rng.normal(size=(L, D, D)), 0.1 * rng.normal(size=(L, D)),
          scale * rng.normal(size=(L, D, D)), 0.1 * rng.normal(size=(L, D)),
          rng.normal(size=(B, D)), rng.normal(size=(B, D)), rng.normal(size=(B, D))]
paths = []
for i, a in enumerate(arrays):
    paths.append(f"{work}/in{i}.npy")
    np.save(paths[-1], a.astype(np.float32))
r = subprocess.run(["trellis-run", model, "--entry=train", "--stats", f"--output-dir={work}/out"]
                   + [f"--input={p}" for p in paths], capture_output=True, text=True)
if r.returncode != 0:
    sys.exit(r.stderr)
stats = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][-1])
losses = np.load(f"{work}/out/result0.npy")

wf, bf, wg, bg, x1, x2, t = (a.astype(np.float32).astype(np.float64) for a in arrays)
a, c = x1, x2
for l in range(L):
    a = a + np.tanh(c @ wf[l] + bf[l])
    c = c + np.tanh(a @ wg[l] + bg[l])
ref = np.mean((a - t) ** 2)
rel = abs(losses[0] - ref) / ref
print(f"depth {L}: first loss {losses[0]:.6f} (NumPy {ref:.6f}, rel {rel:.1e}), "
      f"last loss {losses[-1]:.6f} after {STEPS} steps")
print(f"compile_ms {stats['compile_ms']:.0f}, peak_tensor_bytes {stats['peak_tensor_bytes']}")
ok = rel <= 1e-4 and losses[-1] < 0.4 * losses[0]
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
