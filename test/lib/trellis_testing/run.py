"""Run a model with trellis-run and compare its results with references.

A test script does

    s = Session.from_argv()                # argv: MODEL.mlir WORKDIR [--dtype]
    x = s.randn(16, 32)                    # seeded, in the session's dtype
    logits, = s.run("main", x, results=1)  # writes .npy, runs, loads results
    s.close("main.logits", logits, ref.dense(x, w, b))
    s.finish()                             # prints OK, or exits 1

Each check prints one line, `PASS <name>: ...` or `FAIL <name>: ...`, which
the .mlir file's CHECK lines match; `finish()` exits non-zero if any check
failed, so a test fails even without FileCheck.

Tolerance (`close`): elementwise relative error
    err_i = |got_i - want_i| / max(|want_i|, floor)
must be <= rtol for every element, with rtol 1e-5 for float32 models and
1e-12 for float64 models. The floor keeps elements whose true value is
(near) zero from demanding a relative accuracy that no floating-point
implementation has (a dot product's rounding error scales with Σ|terms|, not
with its possibly cancelling result); by default it is the root-mean-square
magnitude of the reference, so every element at least that large is held to
the full elementwise relative tolerance and smaller ones to an absolute error
of rtol·RMS (like numpy.allclose with atol = rtol·RMS). It implies the
norm-relative bound max|error| <= rtol·max|want|. A test may state another
floor where the RMS is not the natural scale (e.g. probabilities). The
references are float64 (see reference.py), and the model's results must have
exactly the expected dtype and shape.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64}
RTOL = {np.float32: 1e-5, np.float64: 1e-12}
DEFAULT_FLOOR_FRACTION = 1.0  # of the reference RMS; see the docstring


def trellis_run_path():
    """$TRELLIS_RUN, else trellis-run on PATH (lit puts the build's there)."""
    path = os.environ.get("TRELLIS_RUN") or shutil.which("trellis-run")
    if not path:
        sys.exit("FAIL: trellis-run not found on PATH (set TRELLIS_RUN)")
    return path


def write_model(workdir, text, name="model.mlir"):
    """Writes the .mlir `text` of a test's own model to `workdir`/`name`;
    returns the path."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def load_results(out_dir):
    """The arrays result0.npy, result1.npy, ... that trellis-run wrote to
    `out_dir`, in order."""
    results = []
    while os.path.exists(os.path.join(out_dir, f"result{len(results)}.npy")):
        results.append(np.load(
            os.path.join(out_dir, f"result{len(results)}.npy")))
    return results


def run_entry(model, entry, inputs, workdir, tag=None, extra=(), env=None):
    """Runs `entry` of `model` with trellis-run on `inputs` (saved as
    `workdir`/<tag>_in<i>.npy and bound in order; `tag` defaults to the
    entry), with the further command-line arguments `extra` and the
    environment `env` (default: this process's). Returns (results, the
    CompletedProcess). A failing run prints one FAIL line with the command
    and its output, and exits 1."""
    tag = tag or entry
    out_dir = os.path.join(workdir, tag + "_out")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    cmd = [trellis_run_path(), model, f"--entry={entry}",
           f"--output-dir={out_dir}"]
    for i, a in enumerate(inputs):
        path = os.path.join(workdir, f"{tag}_in{i}.npy")
        np.save(path, np.array(a, order="C"))  # keeps 0-d arrays 0-d
        cmd.append(f"--input={path}")
    cmd += list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          env=env)
    if proc.returncode != 0:
        print(f"FAIL {tag}: trellis-run exited {proc.returncode}\n"
              f"  command: {' '.join(cmd)}\n"
              f"  stdout: {proc.stdout.strip()}\n"
              f"  stderr: {proc.stderr.strip()}")
        sys.stdout.flush()
        sys.exit(1)
    return load_results(out_dir), proc


def worst_relative_error(got, want, floor):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.size == 0:
        return 0.0, None
    finite = np.isfinite(want)
    # Non-finite references (e.g. -inf) must be matched exactly.
    if not np.array_equal(finite, np.isfinite(got)) or np.any(
            got[~finite] != want[~finite]):
        return np.inf, None
    diff = np.where(finite, np.abs(got - want), 0.0)
    err = diff / np.maximum(np.abs(np.where(finite, want, 0.0)), floor)
    idx = np.unravel_index(int(np.argmax(err)), err.shape)
    return float(err[idx]), idx


class Checker:
    """Prints one PASS/FAIL line per check; `finish` exits 1 on a failure."""

    def __init__(self, dtype=np.float32):
        self.dtype = dtype
        self.rtol = RTOL[dtype]
        self.failures = 0

    # -- checks -------------------------------------------------------------

    def _report(self, ok, name, detail):
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        sys.stdout.flush()
        if not ok:
            self.failures += 1
        return ok

    def _check_type(self, name, got, dtype, shape):
        got = np.asarray(got)
        if got.dtype != np.dtype(dtype) or got.shape != tuple(shape):
            return self._report(False, name, f"expected {np.dtype(dtype)} "
                                f"{tuple(shape)}, got {got.dtype} {got.shape}")
        return True

    def close(self, name, got, want, rtol=None, floor=None, dtype=None):
        """Elementwise relative error <= rtol (denominators floored)."""
        rtol = self.rtol if rtol is None else rtol
        want = np.asarray(want, dtype=np.float64)
        if not self._check_type(name, got, dtype or self.dtype, want.shape):
            return False
        if floor is None:
            finite = want[np.isfinite(want)]
            rms = float(np.sqrt(np.mean(finite ** 2))) if finite.size else 0.0
            floor = DEFAULT_FLOOR_FRACTION * rms
        floor = max(floor, np.finfo(np.float64).tiny)
        err, idx = worst_relative_error(got, want, floor)
        detail = f"max rel err {err:.3g} (rtol {rtol:g}, floor {floor:.3g})"
        if idx is not None and err > rtol:
            detail += (f" at {tuple(int(i) for i in idx)}: got "
                       f"{np.asarray(got)[idx]!r}, want {want[idx]!r}")
        elif idx is None and err > rtol:
            detail += " (non-finite values differ)"
        return self._report(err <= rtol, name, detail)

    def equal(self, name, got, want):
        """Bit-exact equality (dtype, shape and every element)."""
        want = np.asarray(want)
        if not self._check_type(name, got, want.dtype, want.shape):
            return False
        bad = np.flatnonzero(np.asarray(got).ravel() != want.ravel())
        detail = f"{bad.size} of {want.size} elements differ"
        if bad.size:
            i = np.unravel_index(int(bad[0]), want.shape)
            detail += (f"; first at {tuple(int(j) for j in i)}: got "
                       f"{np.asarray(got)[i]!r}, want {want[i]!r}")
        return self._report(bad.size == 0, name, detail)

    def norm_close(self, name, got, want, rtol):
        """Norm-relative error ‖got − want‖₂ / ‖want‖₂ <= rtol, in float64
        (shapes must agree; the dtype is not checked)."""
        got = np.asarray(got, dtype=np.float64)
        want = np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            return self._report(False, name, f"expected shape {want.shape}, "
                                f"got {got.shape}")
        err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
        return self._report(err <= rtol, name, f"norm-relative error "
                            f"{err:.2e} (tolerance {rtol:g})")

    def expect(self, name, ok, detail):
        return self._report(bool(ok), name, detail)

    def finish(self):
        if self.failures:
            print(f"FAILED: {self.failures} check(s)")
            sys.stdout.flush()
            sys.exit(1)
        print("ALL CHECKS PASSED")


class Session(Checker):
    """One test script's state: model, work directory, RNG, dtype, checks."""

    def __init__(self, model, workdir, dtype=np.float32, seed=0):
        self.model = model
        self.workdir = workdir
        super().__init__(dtype)
        self.rng = np.random.default_rng(seed)
        self._runs = 0
        os.makedirs(workdir, exist_ok=True)

    @classmethod
    def from_argv(cls, seed=0):
        """MODEL WORKDIR [--dtype=f32|f64]. With f64, the model runs with
        every f32 tensor type rewritten to f64 (`tensor<4x8xf32>` ->
        `tensor<4x8xf64>`, `tensor<f32>` -> `tensor<f64>`; F32Attr
        attributes such as `epsilon` or `rate` stay f32), so one .mlir file
        serves both precisions."""
        parser = argparse.ArgumentParser()
        parser.add_argument("model", help="the .mlir model (lit's %%s)")
        parser.add_argument("workdir", help="scratch directory (lit's %%t)")
        parser.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
        args = parser.parse_args()
        model = args.model
        if args.dtype == "f64":
            model = os.path.join(args.workdir, "model_f64.mlir")
            os.makedirs(args.workdir, exist_ok=True)
            with open(args.model) as f:
                text = f.read()
            with open(model, "w") as f:
                f.write(re.sub(r"(tensor<(?:\d+x)*)f32>", r"\1f64>", text))
        return cls(model, args.workdir, DTYPES[args.dtype], seed)

    # -- inputs -------------------------------------------------------------

    def randn(self, *shape, scale=1.0, loc=0.0):
        """Seeded normal values in the session's float dtype."""
        v = loc + scale * self.rng.standard_normal(shape)
        return np.asarray(v, dtype=self.dtype)

    def randint(self, low, high, *shape, dtype=np.int32):
        return self.rng.integers(low, high, size=shape).astype(dtype)

    def dense_chain(self, sizes, batch):
        """Seeded inputs of a chain of dense layers of widths `sizes`: the
        parameters [w0, b0, w1, b1, ...] (weights scaled by 1/sqrt(fan-in),
        biases by 0.1), a batch of inputs and of labels in [0, sizes[-1])."""
        params = []
        for fan_in, fan_out in zip(sizes, sizes[1:]):
            params += [self.randn(fan_in, fan_out, scale=1 / np.sqrt(fan_in)),
                       self.randn(fan_out, scale=0.1)]
        return params, self.randn(batch, sizes[0]), self.randint(0, sizes[-1], batch)

    # -- running ------------------------------------------------------------

    def run(self, entry, *inputs, results):
        """Runs `entry` on `inputs` (bound in order); returns its `results`
        result arrays (a different count is a failure)."""
        expected = results
        self._runs += 1
        results, _ = run_entry(self.model, entry, inputs, self.workdir,
                               tag=f"{self._runs:02d}_{entry}")
        if len(results) != expected:
            self._report(False, entry, f"expected {expected} results, "
                         f"got {len(results)}")
            self.finish()
        return results
