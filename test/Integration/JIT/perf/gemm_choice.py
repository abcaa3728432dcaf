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
  gemm_choice.py edit-shape TUNING SHAPE DNNL CBLAS
                                       sets the rates (GFLOP/s) of SHAPE
                                       (MxNxK:ab) in the one table of shapes
                                       in TUNING, under a new id (a table
                                       edited by hand is another table)
  gemm_choice.py id TUNING             prints the id of that table
  gemm_choice.py damage TUNING         overwrites the choice file with text
                                       that is no JSON
"""
import glob
import json
import os
import sys

import numpy as np

SIZES = (8, 64, 256)


def the_file(tuning, kind="choice"):
    (path,) = glob.glob(os.path.join(tuning, f"gemm-{kind}-*.json"))
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
    elif command == "edit-shape":
        path = the_file(args[0], "shapes")
        with open(path) as f:
            table = json.load(f)
        table["gflops"][args[1]] = {"dnnl": float(args[2]), "cblas": float(args[3])}
        table["id"] = "{:016x}".format(int(table["id"], 16) ^ 1)
        with open(path, "w") as f:
            json.dump(table, f)
    elif command == "id":
        with open(the_file(args[0], "shapes")) as f:
            print(json.load(f)["id"])
    elif command == "damage":
        with open(the_file(args[0]), "w") as f:
            f.write("{\"format\": 4, \"choice\": ")
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
