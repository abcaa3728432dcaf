"""The resident memory of a very long `trellis-run --repeat`; see
repeat-memory.test. Usage: repeat_memory.py NOOP.mlir WORKDIR"""
import os
import shutil
import subprocess
import sys
import time

import numpy as np

FIRST, SECOND, MAX_GROWTH_KB = 10.0, 16.0, 12 * 1024


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main():
    run = shutil.which("trellis-run")
    if not run:
        sys.exit("FAIL: trellis-run not on PATH")
    os.makedirs(sys.argv[2], exist_ok=True)
    x = os.path.join(sys.argv[2], "x.npy")
    np.save(x, np.float32(1.0))
    proc = subprocess.Popen([run, sys.argv[1], "--entry=noop", f"--input={x}",
                             "--repeat=4294967295", "--stats"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        start = time.monotonic()
        samples = []
        for at in (FIRST, SECOND):
            time.sleep(max(0.0, start + at - time.monotonic()))
            if proc.poll() is not None:
                sys.exit(f"FAIL: trellis-run ended early (exit {proc.returncode}): "
                         f"{proc.stderr.read().decode().strip()}")
            samples.append(rss_kb(proc.pid))
    finally:
        proc.kill()
        proc.wait()
    growth = samples[1] - samples[0]
    verdict = "PASS" if growth <= MAX_GROWTH_KB else "FAIL"
    print(f"{verdict} repeat.flat: VmRSS {samples[0]} kB at {FIRST:.0f} s, {samples[1]} kB "
          f"at {SECOND:.0f} s (growth {growth} kB, at most {MAX_GROWTH_KB})")


if __name__ == "__main__":
    main()
