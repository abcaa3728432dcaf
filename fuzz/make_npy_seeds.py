#!/usr/bin/env python3
"""Writes the seed corpus of npy_fuzzer into the directory given as argument.

Small .npy files of every dtype the runtime reads, in the header versions
NumPy writes, plus the cases the reader rejects (Fortran order, big-endian,
an unsupported dtype), and .npz archives both stored and deflated.
"""

import io
import os
import sys

import numpy as np


def npy_bytes(array, version=None):
    out = io.BytesIO()
    np.lib.format.write_array(out, array, version=version, allow_pickle=False)
    return out.getvalue()


def main(directory):
    os.makedirs(directory, exist_ok=True)
    arrays = {
        "f32_2x3": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64_scalar": np.array(2.5, dtype=np.float64),
        "i32_empty": np.zeros((0,), dtype=np.int32),
        "i64_4": np.arange(4, dtype=np.int64),
        "u32_1x1x2": np.array([[[1, 2]]], dtype=np.uint32),
        "f32_0x3": np.zeros((0, 3), dtype=np.float32),
        "fortran": np.asfortranarray(np.ones((2, 2), dtype=np.float32)),
        "big_endian": np.ones(3, dtype=">f4"),
        "int16": np.ones(3, dtype=np.int16),
    }
    for name, array in arrays.items():
        with open(os.path.join(directory, name + ".npy"), "wb") as f:
            f.write(npy_bytes(array))
    with open(os.path.join(directory, "v2.npy"), "wb") as f:
        f.write(npy_bytes(arrays["f32_2x3"], version=(2, 0)))
    with open(os.path.join(directory, "v3.npy"), "wb") as f:
        f.write(npy_bytes(arrays["i64_4"], version=(3, 0)))
    members = {k: v for k, v in arrays.items() if k.startswith(("f", "i", "u"))
               and k not in ("fortran", "int16")}
    np.savez(os.path.join(directory, "stored.npz"), **members)
    np.savez_compressed(os.path.join(directory, "deflated.npz"), **members)
    np.savez(os.path.join(directory, "one.npz"), x=arrays["f32_2x3"])


if __name__ == "__main__":
    main(sys.argv[1])
