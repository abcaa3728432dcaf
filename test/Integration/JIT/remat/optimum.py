"""ad-remat's choice against the optimum found by exhaustive search.

Three small chains of 6 layers (the top-level ops of the differentiated
function, the mean that ends it included): a dense/tanh chain whose middle
activations are wide; one with residual branches (values with several
consumers); and an attention layer whose input feeds its query
projection, keys, values and the residual add, followed by a wide and
a narrow dense layer. For each:

* the oracle: `exact-limit=7 print-predictions=true` predicts every
  schedule of nested checkpoints of the chain (394 for 6 layers) and prints
  each one's peak and recomputation cost; the optimum for a budget is the
  least cost among those within it, the smallest feasible budget the
  least peak;
* the candidates (`exact-limit=0`: model DP, uniform segments, nested
  splits, local search) at 30 %, 50 % and 75 % of the store-all peak, the
  smallest feasible budget and the budget midway between it and the
  store-all peak: feasible exactly where the optimum is, and at most
  1.1 × its recomputation cost;
* the lower bound (RematBound.h): its model of every schedule is at most
  the schedule's prediction; its least recomputation for each budget is at
  most the optimum's, and where it proves a budget infeasible, its floor
  is at most the smallest predicted peak;
* the exhaustive planning itself (`exact-limit=7`) at the midway budget:
  it chooses an optimum, whose measured peak_tensor_bytes (`trellis-run
  --stats`) equals the prediction and is within the budget.

usage: optimum.py WORKDIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer import chain_module, peak, write_inputs  # noqa: E402

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
failures = 0


def report(ok, name, detail):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    failures += not ok


def chains():
    """(name, module text, input shapes) of the three chains."""
    # Activations (B x D, B x 8D) dominate the weights, as in a real step.
    B, D = 256, 8
    out = []

    def build(name, T, body):
        params, lines = [], []

        def param(p, shape):
            params.append((f"%{p}", "tensor<" + "x".join(map(str, shape)) + "xf32>", shape))
            return f"%{p}"

        def dense(o, i, k, n_in, n_out, lead=(B,)):
            t_in = "tensor<" + "x".join(map(str, lead + (n_in,))) + "xf32>"
            t_out = "tensor<" + "x".join(map(str, lead + (n_out,))) + "xf32>"
            w, b = param(f"w{k}", (n_in, n_out)), param(f"b{k}", (n_out,))
            lines.append(f"  {o} = nn.dense {i}, {w}, {b} : ({t_in}, tensor<{n_in}x{n_out}xf32>, "
                         f"tensor<{n_out}xf32>) -> {t_out}")
            return t_out

        last = body(dense, lines)
        lead = tuple(int(d) for d in T[7:-5].split("x"))
        out.append((name, chain_module(T, lines, last, params),
                    [("x", lead)] + [(n[1:], s) for n, _, s in params]))

    def plain(dense, lines):
        wide = dense("%d0", "%x", 0, D, 8 * D)
        lines.append(f"  %t0 = nn.tanh %d0 : {wide}")
        narrow = dense("%d1", "%t0", 1, 8 * D, D)
        lines.append(f"  %t1 = nn.tanh %d1 : {narrow}")
        dense("%d2", "%t1", 2, D, D)
        return "%d2"

    def residual(dense, lines):
        T = dense("%d0", "%x", 0, D, D)
        lines.append(f"  %t0 = nn.tanh %d0 : {T}")
        lines.append(f"  %r0 = arith.addf %x, %t0 : {T}")
        dense("%d1", "%r0", 1, D, D)
        lines.append(f"  %r1 = arith.addf %r0, %d1 : {T}")
        return "%r1"

    S = 64  # sequence; B/S sequences of the same tokens' width

    def attention(dense, lines):
        A = dense("%q", "%x", "q", D, D, lead=(1, S))
        lines.append(f"  %o = nn.attention %q, %x, %x {{num_heads = 2 : i64, causal = true}}"
                     f" : ({A}, {A}, {A}) -> {A}")
        lines.append(f"  %r = arith.addf %x, %o : {A}")
        dense("%u", "%r", "u", D, 8 * D, lead=(1, S))
        dense("%v", "%u", "v", 8 * D, D, lead=(1, S))
        return "%v"

    build("plain", f"tensor<{B}x{D}xf32>", plain)
    build("residual", f"tensor<{B}x{D}xf32>", residual)
    build("attention", f"tensor<1x{S}x{D}xf32>", attention)
    return out


def count(n, body=False):
    """The number of schedules of nested checkpoints of n layers: the first
    is stored or starts a checkpoint of 2.. layers (not a body's whole
    length again) with a schedule of its own inside."""
    if n == 0:
        return 1
    return count(n - 1) + sum(count(k, True) * count(n - k)
                              for k in range(2, n + 1) if not (body and k == n))


REMARK = re.compile(r"checkpointing layers (.*) of (\d+); predicted peak (\d+) bytes within "
                    r"the budget of \d+ \(all stored: (\d+)\); recomputes (\d+) layers, cost (\d+)")
STORED = re.compile(r"with every activation stored \((\d+) bytes\) fits")
INFEASIBLE = re.compile(r"smallest predicted peak of any checkpointing schedule is (\d+) bytes")
PREDICTION = re.compile(r"ad-remat: schedule (.*): predicted peak (\d+) bytes, recomputation cost (\d+)"
                        r", lower-bound model (\d+) bytes")
LEAST = re.compile(r"recomputes at least (\d+) \(this one|the lower bound is (0) \(its model")
FLOOR = re.compile(r"no schedule of nested checkpoints goes below (\d+) bytes")


def remat(model, options, path):
    r = subprocess.run(["trellis-opt", model, f"--ad-remat=policy=budget {options}", "-o", path],
                       capture_output=True, text=True)
    return r.returncode, r.stderr


def plan(model, budget, limit, path):
    """(feasible, schedule, predicted peak, cost, smallest peak if not)."""
    code, err = remat(model, f"budget={budget} exact-limit={limit}", path)
    if (m := INFEASIBLE.search(err)) and code != 0:
        floor = FLOOR.search(err)
        return dict(feasible=False, smallest=int(m.group(1)),
                    floor=int(floor.group(1)) if floor else None)
    if (m := STORED.search(err)) and code == 0:
        return dict(feasible=True, schedule="none", peak=int(m.group(1)), cost=0,
                    optimal="all stored")
    m = REMARK.search(err)
    if code != 0 or not m:
        sys.exit(f"unexpected ad-remat output for budget {budget}, exact-limit {limit}:\n{err}")
    least = LEAST.search(err)
    return dict(feasible=True, schedule=m.group(1), peak=int(m.group(3)),
                cost=int(m.group(6)), optimal="optimal:" in err,
                least=int(least.group(1) or least.group(2)) if least else None)


for name, text, shapes in chains():
    model = f"{work}/{name}.mlir"
    with open(model, "w") as f:
        f.write(text)
    inputs = write_inputs(work, shapes)
    _, err = remat(model, "budget=1 exact-limit=7 print-predictions=true", f"{work}/probe.mlir")
    table = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in PREDICTION.finditer(err)}
    model_peaks = {m.group(1): int(m.group(4)) for m in PREDICTION.finditer(err)}
    all_stored = table["none"][0]
    measured_all = peak(model, inputs, 128, work)
    smallest = min(p for p, _ in table.values())
    report(len(table) == count(6) and measured_all == all_stored, f"{name}.oracle",
           f"{len(table)} schedules predicted; store-all peak {all_stored} bytes "
           f"(measured {measured_all}), smallest {smallest}")
    # The lower bound's model of every schedule is at most its prediction.
    over = [s for s, p in model_peaks.items() if p > table[s][0]]
    report(len(model_peaks) == len(table) and not over, f"{name}.bound-model",
           f"the lower bound's model within the prediction for {len(model_peaks) - len(over)} "
           f"of {len(table)} schedules" + (f"; above it for {over[0]}" if over else ""))

    def optimum(budget):
        fits = [(c, p, s) for s, (p, c) in table.items() if p <= budget]
        return min(fits) if fits else None

    budgets = [("30%", int(0.3 * all_stored)), ("50%", int(0.5 * all_stored)),
               ("75%", int(0.75 * all_stored)), ("smallest", smallest),
               ("midway", (smallest + all_stored) // 2)]
    for label, budget in budgets:
        tag = f"{name}.{label}"
        best = optimum(budget)
        cand = plan(model, budget, 0, f"{work}/{name}_cand.mlir")
        if best is None:
            report(not cand["feasible"] and cand["smallest"] >= smallest, f"{tag}.infeasible",
                   f"budget {budget}: no schedule fits (smallest peak {smallest}); the "
                   f"candidates' smallest {cand.get('smallest')}")
            # The bound's floor, where it proves the budget infeasible, is
            # at most the true smallest peak.
            if cand.get("floor") is not None:
                report(budget < cand["floor"] <= smallest, f"{tag}.bound-floor",
                       f"budget {budget}: no schedule below {cand['floor']} by the lower bound "
                       f"(the smallest peak {smallest})")
            continue
        if not cand["feasible"]:
            report(False, f"{tag}.candidates", f"budget {budget}: infeasible (smallest "
                   f"{cand['smallest']}) where the optimum {best[2]} fits")
            continue
        # The lower bound on every fitting schedule's recomputation is at
        # most the optimum's.
        if cand.get("least") is not None:
            report(cand["least"] <= best[0], f"{tag}.bound",
                   f"budget {budget}: the lower bound {cand['least']} <= the optimum's cost {best[0]}")
        ratio = cand["cost"] / best[0] if best[0] else (1.0 if cand["cost"] == 0 else float("inf"))
        report(cand["cost"] <= 1.1 * best[0] and cand["peak"] <= budget, f"{tag}.candidates",
               f"budget {budget}: {cand['schedule']}, cost {cand['cost']} = {ratio:.3f} x the "
               f"optimum {best[2]} (cost {best[0]}, peak {best[1]})")
    budget = (smallest + all_stored) // 2
    exact = plan(model, budget, 7, f"{work}/{name}_exact.mlir")
    measured = peak(f"{work}/{name}_exact.mlir", inputs, 128, work)
    report(exact["cost"] == optimum(budget)[0] and exact["optimal"] and
           measured == exact["peak"] <= budget, f"{name}.exhaustive",
           f"budget {budget}: {exact['schedule']}, cost {exact['cost']}, measured peak "
           f"{measured} (predicted {exact['peak']})")
print("ALL CHECKS PASSED" if failures == 0 else f"FAILED: {failures} check(s)")
sys.exit(1 if failures else 0)
