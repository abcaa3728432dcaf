#!/usr/bin/python3
"""Runs a command that must fail the trellis-run way: exit code exactly 1 and
a last stderr line `trellis-run: error: ...`. Prints that line as
`LAST: <line>` for FileCheck; exits non-zero (saying why) otherwise.

  expect_error.py COMMAND [ARGS...]
"""
import subprocess
import sys

p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
lines = [l for l in p.stderr.splitlines() if l.strip()]
last = lines[-1] if lines else ""
print(f"LAST: {last}")
if p.returncode != 1:
    sys.exit(f"expected exit code 1, got {p.returncode}; stderr:\n{p.stderr}")
if not last.startswith("trellis-run: error: "):
    sys.exit(f"the last stderr line is not the one-line summary; stderr:\n"
             f"{p.stderr}")
