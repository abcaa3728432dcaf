"""trellis-run --profile on profile.mlir's step; see there.

Usage: profile.py MODEL.mlir WORKDIR. Runs the step 2 + 3 times with --profile
(--warmup=2: the first two are left out of the profile) and once without,
parses the profile's two tables and prints HEADER, then PASS|FAIL lines for
the checks the .mlir file names.
"""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "lib"))
from trellis_testing.run import Session, run_entry  # noqa: E402

s = Session.from_argv(seed=3)
inputs = [s.randn(256, 512), s.randn(512, 256, scale=0.05), s.randn(256)]
profiled, proc = run_entry(s.model, "step", inputs, s.workdir, tag="profiled",
                           extra=["--profile", "--warmup=2", "--repeat=3"])
plain, _ = run_entry(s.model, "step", inputs, s.workdir, tag="plain")
lines = proc.stdout.splitlines()
header = [l for l in lines if l.startswith("profile of @")]
if len(header) != 1:
    sys.exit(f"FAIL: no profile header in:\n{proc.stdout}")
print("HEADER", header[0])
wall = float(re.search(r", ([0-9.]+) ms per call", header[0]).group(1))

classes, between, kinds, sources = {}, None, {}, []
section = None
for line in lines:
    if line.startswith("class "):
        section = "classes"
    elif line.startswith("source op kind "):
        section = "kinds"
    elif line.startswith("source op "):
        section = "sources"
    elif section == "classes" and line.startswith("(between sites)"):
        between = float(line.split()[2])
    elif section == "classes" and line.strip():
        name, ms, pct, runs = line.split()
        classes[name] = (float(ms), float(runs))
    elif section == "kinds" and line.strip():
        kinds[line.split()[0]] = float(line.split()[1])
    elif section == "sources" and line.strip() and not line.startswith("("):
        sources.append(line.split()[:3])

gemm_runs = classes.get("gemm", (0, 0))[1]
s.expect("classes", gemm_runs == 2.0, f"gemm runs {gemm_runs} per call")
total = sum(ms for ms, _ in classes.values()) + (between or 0.0)
s.expect("sum", between is not None and abs(total - wall) <= 0.01 * wall +
         0.01, "classes + between sites = call time "
         f"({total:.3f} ms of {wall:.3f})")
named = {f"{op} at {loc}" for op, loc, _ in sources}
# Where the two ops are in the model: "nn.dense at profile.mlir:LINE:COL".
with open(s.model) as f:
    model_lines = f.read().splitlines()
want = [f"{op} at {os.path.basename(s.model)}:{i + 1}:{line.index(op) + 1}"
        for op in ("nn.dense", "nn.gelu")
        for i, line in enumerate(model_lines)
        if f"= {op} " in line and not line.lstrip().startswith("//")]
s.expect("sources", all(w in named for w in want), ", ".join(
    w if w in named else f"MISSING {w}" for w in want))
s.expect("kinds", {"nn.dense", "nn.gelu", "nn.mean"} <= set(kinds) and
         abs(sum(kinds.values()) + (between or 0.0) - wall) <= 0.01 * wall + 0.01,
         "nn.dense, nn.gelu, nn.mean; the kinds add up to the call")
s.expect("results", len(profiled) == len(plain) and all(
    np.array_equal(a, b) for a, b in zip(profiled, plain)), "bit for bit")
s.finish()
