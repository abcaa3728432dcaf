"""ad-remat's budget policy at 30 %, 50 % and 75 % of the store-all peak.

Usage (holding the build lock, briefly):
  flock /tmp/trellis-build.lock /usr/bin/python3 bench/remat_budget.py [--build DIR]
      [--only mlp,tf] [--mlp-batch 256,2048] [--seq 128,512]

Two models, each at two sizes: a 16-layer MLP (16 x (dense 128, tanh), then
the mean) at batch 256, where the weight gradients are 46 % of the store-all
peak, and at batch 2048, where the activations dominate; and a chain of 4
pre-LN Transformer blocks (width 64, 4 heads, attention chunk 32;
test/Integration/JIT/remat/transformer.py's model) at sequence 128 and 512.
For
each fraction, the budget is that fraction of the measured peak_tensor_bytes
of storing everything; the table gives the schedule's measured peak (or, if
the budget is below every schedule the pass compares, the smallest feasible
budget it names and that schedule's measured peak), the predicted peak, and
the recomputation in forward passes of the chain (the pass's cost model).
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "transformer", os.path.join(ROOT, "test/Integration/JIT/remat/transformer.py"))
transformer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(transformer)


def mlp_text(layers=16, batch=256, width=128):
    T = f"tensor<{batch}x{width}xf32>"
    W = f"tensor<{width}x{width}xf32>"
    B = f"tensor<{width}xf32>"
    lines, prev, params = [], "%x", []
    for i in range(layers):
        params += [(f"%w{i}", W, (width, width)), (f"%b{i}", B, (width,))]
        lines.append(f"  %d{i} = nn.dense {prev}, %w{i}, %b{i} : ({T}, {W}, {B}) -> {T}")
        lines.append(f"  %h{i} = nn.tanh %d{i} : {T}")
        prev = f"%h{i}"
    return (transformer.chain_module(T, lines, prev, params),
            [("x", (batch, width))] + [(n[1:], s) for n, _, s in params])


def run_model(name, text, shapes, chunk, work):
    os.makedirs(work, exist_ok=True)
    model = f"{work}/chain.mlir"
    with open(model, "w") as f:
        f.write(text)
    inputs = transformer.write_inputs(work, shapes)
    stored = transformer.peak(model, inputs, chunk, work)
    rows = []
    for fraction in (0.30, 0.50, 0.75):
        budget = int(fraction * stored)
        path = f"{work}/chain.{budget}.mlir"
        message, code = transformer.remat(model, budget, chunk, path)
        met = budget
        floor = None
        if code != 0:
            m = re.search(r"smallest predicted peak of any checkpointing schedule is (\d+) bytes", message)
            if not m:
                sys.exit(message)
            met = int(m[1])
            f = re.search(r"no schedule (?:of nested checkpoints )?goes below (\d+) bytes", message)
            floor = int(f[1]) if f else None
            message, code = transformer.remat(model, met, chunk, path)
            if code != 0:
                sys.exit(message)
        measured = transformer.peak(path, inputs, chunk, work)
        predicted = int(re.search(r"predicted peak (?:at most )?(\d+) bytes", message)[1])
        passes = re.search(r"\(([0-9.]+) forward passes\)", message)
        cost = re.search(r", cost (\d+) \(", message)
        least = re.search(r"recomputes at least (\d+)", message)
        # The lower bound on every fitting schedule's recomputation, in
        # forward passes, and the schedule's cost over it.
        if least and cost and int(cost[1]):
            bound = float(passes[1]) * int(least[1]) / int(cost[1])
            ratio = f"{int(cost[1]) / int(least[1]):.3f}" if int(least[1]) else "—"
            versus = f"{bound:.2f} ({ratio} x)"
        else:
            versus = "—" if not least else "0.00"
        rows.append((fraction, budget, met, floor, measured, predicted, passes[1] if passes else "0.00",
                     versus, re.search(r"checkpointing layers (.*) of \d+;", message)[1]))
    print(f"\n{name}: store-all peak {stored} bytes")
    print("| budget | accepted budget (no schedule below) | measured peak | predicted |"
          " recomputation (forward passes) | lower bound (schedule / bound) | schedule |")
    print("|---|---|---|---|---|---|---|")
    for fraction, budget, met, floor, measured, predicted, passes, versus, schedule in rows:
        accepted = f"{met} ({met / stored:.1%})" if met != budget else "as asked"
        if floor:
            accepted += f" (≥ {floor}, {floor / stored:.1%})"
        print(f"| {fraction:.0%} = {budget} | {accepted} | {measured} ({measured / stored:.0%}) | {predicted} |"
              f" {passes} | {versus} | `{schedule}` |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--mlp-batch", default="256,2048",
                        help="the MLP's batch sizes, one table each")
    parser.add_argument("--seq", default="128,512", help="the Transformer chain's sequence lengths")
    parser.add_argument("--only", default="mlp,tf")
    args = parser.parse_args()
    os.environ["PATH"] = os.path.join(args.build, "bin") + os.pathsep + os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="trellis_remat.") as work:
        for batch in (int(b) for b in args.mlp_batch.split(",") if "mlp" in args.only):
            text, shapes = mlp_text(batch=batch)
            run_model(f"16-layer MLP (dense 128 + tanh, batch {batch})", text, shapes, 128,
                      f"{work}/mlp{batch}")
        for seq in (int(L) for L in args.seq.split(",") if "tf" in args.only):
            text, shapes = transformer.model_text(4, seq, 64)
            run_model(f"4 Transformer blocks (L={seq}, d=64, 4 heads, chunk 32)", text, shapes, 32,
                      f"{work}/tf{seq}")


if __name__ == "__main__":
    main()
