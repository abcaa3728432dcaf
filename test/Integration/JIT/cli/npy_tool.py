#!/usr/bin/python3
"""Helpers of the trellis-run CLI tests (NumPy references, malformed files).

  npy_tool.py save PATH EXPR       np.save(PATH, eval(EXPR)); `np` is numpy
  npy_tool.py check PATH EXPR      PATH holds exactly eval(EXPR): same dtype,
                                   shape and bytes (bit-exact); prints OK
  npy_tool.py corrupt KIND PATH    writes a malformed .npy file of KIND
  npy_tool.py stats [--peak-min N] [--peak-max N] < STDOUT
                                   the last line of STDOUT is the --stats JSON
                                   object with exactly the contract's keys and
                                   compile_phases
"""
import json
import struct
import sys

import numpy as np


def evaluate(expr):
    return np.asarray(eval(expr, {"np": np}))


def save(path, expr):
    np.save(path, evaluate(expr))


def check(path, expr):
    got, want = np.load(path), evaluate(expr)
    if got.dtype != want.dtype or got.shape != want.shape:
        sys.exit(f"MISMATCH {path}: got {got.dtype}{got.shape}, "
                 f"want {want.dtype}{want.shape}")
    if got.tobytes() != want.tobytes():
        sys.exit(f"MISMATCH {path}: got {got!r}, want {want!r}")
    print(f"OK {got.dtype} {got.shape}")


def header(dict_text, version=1):
    """Magic, version and `dict_text` padded to a multiple of 64 bytes."""
    prefix = 10 if version == 1 else 12
    text = dict_text + " " * (-(prefix + len(dict_text) + 1) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + size + text.encode()


def good(descr="<f4", shape=(2, 3), fortran=False, version=1):
    return header(f"{{'descr': '{descr}', 'fortran_order': {fortran}, "
                  f"'shape': {shape}, }}", version)


CORRUPTIONS = {
    "empty": lambda: b"",
    "bad-magic": lambda: b"PK\x03\x04 this is a zip file" + bytes(60),
    "magic-only": lambda: b"\x93NUMPY",
    "bad-version": lambda: b"\x93NUMPY\x07\x00" + bytes(60),
    "truncated-header": lambda: good()[:40],
    "huge-header-length": lambda: b"\x93NUMPY\x02\x00\xff\xff\xff\xff{",
    "truncated-data": lambda: good() + bytes(20),
    "extra-data": lambda: good() + bytes(28),
    "fortran": lambda: good(fortran=True) + bytes(24),
    "big-endian": lambda: good(descr=">f4") + bytes(24),
    "unknown-dtype": lambda: good(descr="<c8") + bytes(48),
    "structured": lambda: header("{'descr': [('a', '<f4')], "
                                 "'fortran_order': False, 'shape': (2,), }"),
    "bad-dict": lambda: header("{'descr': '<f4', 'fortran_order': False}"),
    "bad-shape": lambda: header("{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (2, -3), }"),
    "overflow-shape": lambda: good(shape=(2**62, 2**62)),
}


def stats(argv):
    bounds = dict(zip(argv[::2], map(int, argv[1::2])))
    line = sys.stdin.read().strip().splitlines()[-1]
    s = json.loads(line)
    keys = {"compile_ms", "run_ms", "peak_tensor_bytes"}
    if set(s) != keys | {"compile_phases"}:
        sys.exit(f"BAD KEYS {sorted(s)}")
    if not (isinstance(s["peak_tensor_bytes"], int) and
            all(isinstance(s[k], (int, float)) and s[k] >= 0 for k in keys)):
        sys.exit(f"BAD VALUES {s}")
    phases = s["compile_phases"]
    times = {"mlir_ms", "llvm_ms", "cache_ms", "tuning_ms"}
    if set(phases) != times | {"cache"} or \
            phases["cache"] not in ("hit", "miss", "off") or \
            not all(isinstance(phases[k], (int, float)) and phases[k] >= 0
                    for k in times):
        sys.exit(f"BAD COMPILE PHASES {phases}")
    peak = s["peak_tensor_bytes"]
    if peak < bounds.get("--peak-min", 0) or \
       peak > bounds.get("--peak-max", 2**63):
        sys.exit(f"PEAK OUT OF BOUNDS {peak} {bounds}")
    print("STATS OK")


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "save":
        save(*args)
    elif command == "check":
        check(*args)
    elif command == "corrupt":
        with open(args[1], "wb") as f:
            f.write(CORRUPTIONS[args[0]]())
    elif command == "stats":
        stats(args)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
