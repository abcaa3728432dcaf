"""IDX data sources of trellis-train (lib/Runtime/Idx.cpp): crafted files.

usage: idx_data.py WORKDIR MODEL.mlir

A valid dataset (raw and gzipped) must reach @eval with the values NumPy
computes from the same bytes (images / 255 as float32, labels as int32);
every malformed file must end the run with exit 1 and one line on stderr.
Prints one line per case for FileCheck."""

import gzip
import json
import os
import struct
import subprocess
import sys

import numpy as np

work, model = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(22)
images = rng.integers(0, 256, (12, 2, 3), dtype=np.uint8)
labels = rng.integers(0, 10, 12, dtype=np.uint8)


def idx(array, type_code=0x08, dims=None):
    dims = array.shape if dims is None else dims
    header = bytes([0, 0, type_code, len(dims)])
    return header + b"".join(struct.pack(">I", d) for d in dims) + array.tobytes()


def write(name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def train(data, out):
    return subprocess.run(
        ["trellis-train", model, "--data=" + data, "--eval-data=" + data,
         "--steps=2", "--eval-every=2", "--output-dir=" + os.path.join(work, out)],
        capture_output=True, text=True)


x_raw, y_raw = write("x.idx", idx(images)), write("y.idx", idx(labels))
x_gz = write("x.idx.gz", gzip.compress(idx(images)))
y_gz = write("y.idx.gz", gzip.compress(idx(labels)))

# The reference, in f64 from the bytes themselves.
x = images.astype(np.float64) / 255
expected = {"mean_x": x.mean(), "mean_y": labels.astype(np.float64).mean(),
            "x_5_1_2": x[5, 1, 2], "y_7": float(labels[7])}
# metrics.jsonl holds 6 significant digits.
TOL = 1e-5
for name, (xs, ys) in {"raw": (x_raw, y_raw), "gzip": (x_gz, y_gz),
                       "mixed": (x_raw, y_gz)}.items():
    run = train(f"idx:{xs},{ys}", "out-" + name)
    if run.returncode != 0:
        print(f"FAIL {name}: exit {run.returncode}: {run.stderr.strip()}")
        continue
    with open(os.path.join(work, "out-" + name, "metrics.jsonl")) as f:
        got = [json.loads(line)["eval"] for line in f if "eval" in line][-1]
    bad = [k for k in expected
           if abs(got[k] - expected[k]) > TOL * max(1.0, abs(expected[k]))]
    print(f"{'FAIL' if bad else 'PASS'} {name}: " +
          ", ".join(f"{k} {got[k]:.6g} (numpy {expected[k]:.6g})" for k in expected))

good_x = idx(images)
cases = {
    "wrong-magic": (write("magic", b"\x01\x02" + good_x[2:]), y_raw),
    "unknown-type": (write("type", idx(images, type_code=0x07)), y_raw),
    "float-type": (write("float", idx(images.astype(">f4"), type_code=0x0D)), y_raw),
    "no-dims": (write("nodims", bytes([0, 0, 8, 0])), y_raw),
    "short-magic": (write("short", b"\x00\x00"), y_raw),
    "short-dims": (write("shortdims", good_x[:8]), y_raw),
    "truncated-data": (write("trunc", good_x[:-5]), y_raw),
    "trailing-bytes": (write("trailing", good_x + b"\x00"), y_raw),
    "truncated-gzip": (write("trunc.gz", gzip.compress(good_x)[:40]), y_raw),
    "corrupt-gzip": (write("corrupt.gz", gzip.compress(good_x)[:-8] + b"\xff" * 8), y_raw),
    "dims-overflow": (write("overflow", idx(images[:0], dims=(0xFFFFFFFF,) * 3)), y_raw),
    "too-large": (write("huge", idx(images[:0], dims=(60000, 65535, 65535))), y_raw),
    "counts-disagree": (x_raw, write("y11", idx(labels[:11]))),
    "labels-rank-2": (x_raw, write("y2d", idx(labels.reshape(12, 1)))),
    "images-rank-1": (write("x1d", idx(images.reshape(-1)[:12])), y_raw),
    "directory": (work, y_raw),
}
for name, (xs, ys) in cases.items():
    run = train(f"idx:{xs},{ys}", "out-bad")
    lines = run.stderr.strip().splitlines()
    print(f"{name}: exit {run.returncode}, {len(lines)} line(s): " +
          " | ".join(lines).replace(work, "WORK"))
run = train(f"idx:{x_raw}", "out-bad")
print(f"one-file: exit {run.returncode}: " + run.stderr.strip().replace(work, "WORK"))
