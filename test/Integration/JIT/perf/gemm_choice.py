"""Helpers of gemm-choice.mlir.

  gemm_choice.py inputs DIR            writes DIR/a{8,64,256}.npy (seeded)
  gemm_choice.py check DIR OUT...      each OUT's result{0,1,2}.npy is the
                                       square of its input, against float64
                                       NumPy (relative 1e-5 of the largest)
  gemm_choice.py edit TUNING S M L T SH N
                                       sets the choice of the one choice file
                                       in TUNING to these libraries (dnnl or
                                       cblas) per class, short products in
                                       their direct form
  gemm_choice.py damage TUNING         overwrites it with text that is no JSON
"""
import glob
import json
import os
import sys

import numpy as np

SIZES = (8, 64, 256)


def the_file(tuning):
    (path,) = glob.glob(os.path.join(tuning, "gemm-choice-*.json"))
    return path


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "inputs":
        rng = np.random.default_rng(3)
        for n in SIZES:
            np.save(os.path.join(args[0], f"a{n}.npy"),
                    rng.standard_normal((n, n)).astype(np.float32))
    elif command == "check":
        for out in args[1:]:
            for i, n in enumerate(SIZES):
                a = np.load(os.path.join(args[0], f"a{n}.npy")).astype(np.float64)
                got = np.load(os.path.join(out, f"result{i}.npy"))
                want = a @ a
                err = np.max(np.abs(got - want)) / np.max(np.abs(want))
                if not err <= 1e-5:
                    sys.exit(f"FAIL {out}/result{i}.npy: relative error {err:.2e}")
    elif command == "edit":
        path = the_file(args[0])
        with open(path) as f:
            kept = json.load(f)
        kept["choice"] = dict(zip(("small", "medium", "large", "thin", "short", "narrow"),
                                  args[1:7]))
        kept["choice"]["transpose_short"] = False
        with open(path, "w") as f:
            json.dump(kept, f)
    elif command == "damage":
        with open(the_file(args[0]), "w") as f:
            f.write("{\"format\": 4, \"choice\": ")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
