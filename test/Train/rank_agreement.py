"""Ranks started with different command lines end clearly (issue 20).

mpirun starts each rank with its own arguments (MPMD: `-np 1 A : -np 1
B`). Cases, each a job of two ranks that must end within LIMIT seconds,
exit non-zero, with the lines named:

* bogus: `--reduce=bogus` on rank 1 only. Rank 1 prints LLVM's line for
  the option, and every rank an error line (before, rank 1 left before
  MPI's start and rank 0 was killed by mpirun without a word).
* seed / steps / reduce / resume: the ranks disagree on an option that
  must agree; both ranks print the same line naming the option, rank 0's
  value and rank 1's (different seeds trained to exit 0: each rank its own
  data order and initial parameters).
* start: both `--resume`, but only rank 0's output directory holds a
  checkpoint: the ranks would start from different steps.
* same: the same options train to the end (exit 0).

usage: rank_agreement.py WORKDIR
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_model import write_linear_data, write_linear_model  # noqa: E402
from trellis_testing import jobs, mpi  # noqa: E402
from trellis_testing.run import Checker  # noqa: E402

work = sys.argv[1]
check = Checker()
LIMIT = 60.0
model = write_linear_model(work)
data = write_linear_data(work)
# mpirun and its options without -np: one -np per rank (MPMD).
launcher = mpi.mpirun_command(1)[:-2]


def rank(out, *extra):
    return ["-np", "1", "trellis-train", model, f"--data={data}",
            f"--output-dir={os.path.join(work, out)}", "--steps=20", *extra]


def job(name, first, second):
    cmd = launcher + rank(f"{name}0", *first) + [":"] + rank(f"{name}1",
                                                             *second)
    return cmd, *jobs.timed_run(cmd, timeout=300)


def expect_both(name, first, second, line):
    """Both ranks print `line` (once each)."""
    cmd, proc, seconds = job(name, first, second)
    count = sum(1 for l in proc.stderr.splitlines()
                if l == "trellis-train: error: " + line)
    jobs.expect_failure(check, name, proc, seconds, cmd, LIMIT,
                        marker=line, one_line=False)
    check.expect(f"{name}.every_rank", count == 2,
                 f"{count} of 2 ranks printed the line")


cmd, proc, seconds = job("bogus", [], ["--reduce=bogus"])
jobs.expect_failure(check, "bogus.rank1", proc, seconds, cmd, LIMIT,
                    marker="Cannot find option named 'bogus'",
                    parts=["trellis-train: for the --reduce option"])
jobs.expect_failure(check, "bogus.rank1_error", proc, seconds, cmd, LIMIT,
                    marker="trellis-train: error: invalid command line",
                    parts=["(the line before names the option); every rank "
                           "stops"])
jobs.expect_failure(check, "bogus.rank0", proc, seconds, cmd, LIMIT,
                    marker="trellis-train: error: the command line of rank 1",
                    parts=["is invalid (its own line says why); every rank "
                           "stops"])

expect_both("seed", ["--seed=1"], ["--seed=2"],
            "the ranks disagree on --seed: rank 0 has 1, rank 1 has 2; it "
            "must be the same on every rank")
expect_both("steps", [], ["--steps=30"],
            "the ranks disagree on --steps: rank 0 has 20, rank 1 has 30; it "
            "must be the same on every rank")
expect_both("reduce", ["--reduce=adasum"], [],
            "the ranks disagree on --reduce: rank 0 has adasum, rank 1 has "
            "mean; it must be the same on every rank")
expect_both("resume", [], ["--resume"],
            "the ranks disagree on --resume: rank 0 has false, rank 1 has "
            "true; it must be the same on every rank")

# Only rank 0 writes: only its directory has the checkpoint (of step 6).
cmd, proc, seconds = job("start", ["--steps=6"], ["--steps=6"])
check.expect("start.first_run", proc.returncode == 0 and not os.path.exists(
    os.path.join(work, "start1", "checkpoint.npz")),
             f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
expect_both("start", ["--resume"], ["--resume"],
            "the ranks disagree on the step they start from: rank 0 has 6, "
            "rank 1 has 0; it must be the same on every rank")

cmd, proc, seconds = job("same", ["--seed=3"], ["--seed=3"])
check.expect("same", proc.returncode == 0,
             f"exit {proc.returncode} after {seconds:.1f} s: "
             f"{proc.stderr.strip()[-500:]}")
check.finish()
