"""Run models under mpirun and the NumPy references of the collectives.

    job = MpiJob(workdir, ranks=4)
    outs = job.run(model, "entry", inputs_per_rank, results=2)
    outs[r][i]                     # result i of rank r
    proc, out_dir, seconds, cmd = job.launch(model, "entry", inputs_per_rank)
    job.expect_failure(check, "name", model, "entry", inputs_per_rank,
                       limit=10, marker="collective mismatch", parts=[...])
    proc, out_dir, cmd = job.start(...)   # a Popen, to signal its ranks
    result = finish(proc, timeout=120)    # killed after the timeout

`inputs_per_rank[r]` is the list of arrays rank r binds to the entry's
arguments; they are written as `in<i>.<r>.npy` and passed with `{rank}` in
the path, so the runner's substitution is exercised too.

The references below are written from docs/spec.md's definitions, independently
of the runtime's algorithms (Adasum here merges whole vectors in float64; the
runtime halves vectors and splits the dot products across ranks).
"""

import os
import shutil
import subprocess
import sys
import time

import numpy as np

from trellis_testing import jobs
from trellis_testing.run import load_results, trellis_run_path


def mpirun_command(ranks):
    return ["mpirun", "--oversubscribe", "-np", str(ranks)]


def finish(proc, timeout=120):
    """Waits for the job `proc` (a subprocess.Popen, its stdout and stderr
    piped or not), killing it after `timeout` seconds; returns a
    CompletedProcess with its output."""
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout,
                                       stderr)


class MpiJob:
    def __init__(self, workdir, ranks):
        self.workdir = workdir
        self.ranks = ranks
        self._runs = 0
        os.makedirs(workdir, exist_ok=True)

    def start(self, model, entry, inputs_per_rank, extra=(), env=None,
              stdout=subprocess.PIPE):
        """Starts trellis-run under mpirun, each rank with its inputs and
        output directory; returns (Popen, out_dir, cmd). `env`: variables
        added to the environment."""
        self._runs += 1
        tag = os.path.join(self.workdir, f"{self._runs:02d}_{entry}_np{self.ranks}")
        shutil.rmtree(tag, ignore_errors=True)
        os.makedirs(tag)
        nargs = len(inputs_per_rank[0]) if inputs_per_rank else 0
        for r, inputs in enumerate(inputs_per_rank):
            for i, a in enumerate(inputs):
                np.save(os.path.join(tag, f"in{i}.{r}.npy"), np.array(a, order="C"))
        out_dir = os.path.join(tag, "out")
        cmd = mpirun_command(self.ranks) + [
            trellis_run_path(), model, f"--entry={entry}",
            f"--output-dir={out_dir}/{{rank}}"]
        cmd += [f"--input={tag}/in{i}.{{rank}}.npy" for i in range(nargs)]
        cmd += list(extra)
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE,
                                text=True, env=dict(os.environ, **(env or {})))
        return proc, out_dir, cmd

    def launch(self, model, entry, inputs_per_rank, extra=(), timeout=300,
               env=None):
        """Runs trellis-run under mpirun (see start), killed after `timeout`
        seconds; returns (CompletedProcess, out_dir, seconds, cmd)."""
        start = time.monotonic()
        proc, out_dir, cmd = self.start(model, entry, inputs_per_rank, extra,
                                        env)
        proc = finish(proc, timeout)
        return proc, out_dir, time.monotonic() - start, cmd

    def results(self, out_dir):
        """The results each rank wrote to `out_dir`: [rank][i]."""
        return [load_results(os.path.join(out_dir, str(r)))
                for r in range(self.ranks)]

    def expect_failure(self, check, name, model, entry, inputs_per_rank,
                       limit, marker, parts, extra=(), env=None, timeout=120):
        """Runs the job (see launch) and checks that it fails clearly within
        `limit` seconds (jobs.expect_failure: one line with `marker`,
        containing every string of `parts`); returns whether it did."""
        proc, _, seconds, cmd = self.launch(model, entry, inputs_per_rank,
                                            extra, timeout, env)
        return jobs.expect_failure(check, name, proc, seconds, cmd, limit,
                                   marker=marker, parts=parts)

    def run(self, model, entry, inputs_per_rank, results):
        proc, out_dir, _, cmd = self.launch(model, entry, inputs_per_rank)
        if proc.returncode != 0:
            print(f"FAIL {entry} (np={self.ranks}): exit {proc.returncode}\n"
                  f"  command: {' '.join(cmd)}\n"
                  f"  stdout: {proc.stdout.strip()[-2000:]}\n"
                  f"  stderr: {proc.stderr.strip()[-2000:]}")
            sys.stdout.flush()
            sys.exit(1)
        outs = self.results(out_dir)
        for r, arrays in enumerate(outs):
            if len(arrays) != results:
                print(f"FAIL {entry} (np={self.ranks}): rank {r} wrote "
                      f"{len(arrays)} results, expected {results}")
                sys.exit(1)
        return outs


# -- references (float64) -----------------------------------------------------

def adasum_pair(a, b):
    """docs/spec.md: (1 − a·b/(2‖a‖²))·a + (1 − a·b/(2‖b‖²))·b; a zero-norm
    tensor contributes the other unchanged."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    ab, aa, bb = np.vdot(a, b), np.vdot(a, a), np.vdot(b, b)
    ca = 1.0 if aa == 0 else 1.0 - ab / (2 * aa)
    cb = 1.0 if bb == 0 else 1.0 - ab / (2 * bb)
    return ca * a + cb * b


def adasum(xs):
    """Adasum over ranks: for n = 2^k the butterfly (round k merges rank i
    with rank i XOR 2^k); otherwise ranks r >= p first merged into r - p."""
    xs = [np.asarray(x, np.float64) for x in xs]
    n = len(xs)
    p = 1
    while p * 2 <= n:
        p *= 2
    for r in range(p, n):
        xs[r - p] = adasum_pair(xs[r - p], xs[r])
    d = 1
    while d < p:
        xs = [adasum_pair(xs[i], xs[i ^ d]) if i & d == 0
              else adasum_pair(xs[i ^ d], xs[i]) for i in range(p)] + xs[p:]
        d *= 2
    return xs[0]


def psum_groups(xs, groups):
    out = [None] * len(xs)
    for group in groups:
        total = sum(np.asarray(xs[r], np.float64) for r in group)
        for r in group:
            out[r] = total
    return out


def ppermute(xs, pairs):
    out = [np.zeros_like(np.asarray(x, np.float64)) for x in xs]
    for src, dst in pairs:
        out[dst] = np.asarray(xs[src], np.float64)
    return out
