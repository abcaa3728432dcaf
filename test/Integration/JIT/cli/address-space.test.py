"""address-space.test: runs trellis-run on DIR/big.npy under `ulimit -v KB`
and prints "exit N: <the last line of stderr>", or "exit 0: <the first result
element>"."""
import os
import subprocess
import sys

import numpy as np

directory, limit = sys.argv[1], sys.argv[2]
model = os.path.join(directory, "twice.mlir")
with open(model, "w") as f:
    f.write("func.func @twice(%x: tensor<100000000xf32>) -> tensor<100000000xf32> {\n"
            "  %y = arith.addf %x, %x : tensor<100000000xf32>\n"
            "  return %y : tensor<100000000xf32>\n}\n")
out = os.path.join(directory, f"out{limit}")
r = subprocess.run(["bash", "-c", f"ulimit -v {limit} && exec trellis-run {model} --entry=twice "
                    f"--input={directory}/big.npy --output-dir={out}"],
                   capture_output=True, text=True)
if r.returncode == 0:
    print(f"exit 0: {np.load(os.path.join(out, 'result0.npy'))[0]}")
else:
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    print(f"exit {r.returncode}: {lines[-1] if lines else ''}")
