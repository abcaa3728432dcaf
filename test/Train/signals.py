"""SIGINT, SIGTERM and SIGHUP stop trellis-train cleanly (issue 20; SPEC.md's
trainer contract): the run finishes its step, writes the checkpoint of that
step, the curve and its last lines (stdout piped: the header survives), and
exits 130 / 143 / 129. A second signal ends it at once. Temporaries that
killed runs left in the output directory are removed when a run starts.
Under mpirun the ranks stop after the same step: a signal to one rank stops
the job (all ranks exit 143, no rank waits for another), and mpirun's own
SIGTERM, which it forwards to every rank, leaves the checkpoint of the last
step. Prints one PASS/FAIL line per check.

usage: signals.py WORKDIR
"""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linear_model import write_linear_data, write_linear_model  # noqa: E402
from trellis_testing import jobs, mpi  # noqa: E402
from trellis_testing.run import Checker  # noqa: E402

work = sys.argv[1]
check = Checker()
LIMIT = 10.0  # seconds from the signal to the exit
# Steps of a few milliseconds: a signal lands mid-step.
model = write_linear_model(work, lr=1e-3, batch=256, d=256, k=256)
data = write_linear_data(work, n=1024, d=256, k=256)
# Steps of microseconds and a small checkpoint under mpirun, whose own
# SIGTERM is followed by SIGKILL 1 s later (odls_base_sigkill_timeout).
small_model = write_linear_model(work, name="small.mlir")
small_data = write_linear_data(work, name="small.npz")


def command(out, *extra, small=False):
    return ["trellis-train", small_model if small else model,
            f"--data={small_data if small else data}", f"--output-dir={out}",
            "--steps=100000000", "--checkpoint-every=1000", *extra]


def metrics_steps(out):
    with open(os.path.join(out, "metrics.jsonl")) as f:
        return [json.loads(l)["step"] for l in f if '"loss"' in l]


def wait_for_training(proc, out):
    """Waits until the run has written its first loss lines."""
    path = os.path.join(out, "metrics.jsonl")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.exists(path) and os.path.getsize(path) > 200:
            return True
        time.sleep(0.05)
    return False


def checkpoint_step(out):
    with np.load(os.path.join(out, "checkpoint.npz")) as z:
        return int(z["step"])


def stop(proc, out, signals, pid=None):
    """Sends `signals` to `pid` (default: the process) once it trains;
    returns (stdout, stderr, seconds from the signal to the exit)."""
    if not wait_for_training(proc, out):
        proc.kill()
        return "", "never started training", 0.0
    start = time.monotonic()
    for s in signals:
        os.kill(pid or proc.pid, s)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    return stdout, stderr, time.monotonic() - start


# One process: each signal, stdout a pipe. The first run finds temporaries
# of an interrupted run (and a file of the user's) in its directory.
for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143),
                  (signal.SIGHUP, 129)):
    name = sig.name
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    stale = ["checkpoint.npz.tmp.4242", "checkpoint.npz.tmp-a1b2c3d4",
             "curve.svg.temp-stream-x1y2z3"]
    if sig == signal.SIGINT:
        for f in stale + ["notes.txt"]:
            with open(os.path.join(out, f), "w") as fh:
                fh.write("x" * 4096)
    proc = subprocess.Popen(command(out), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    stdout, stderr, seconds = stop(proc, out, [sig])
    steps = metrics_steps(out)
    last = steps[-1] if steps else None
    stopped = f"stopped by {name} after step {last} of 100000000"
    check.expect(f"{name}.exit", proc.returncode == code and seconds < LIMIT,
                 f"exit {proc.returncode} (want {code}) {seconds:.2f} s after "
                 f"{name} (limit {LIMIT} s); stderr {stderr.strip()!r}")
    check.expect(f"{name}.checkpoint", checkpoint_step(out) == last,
                 f"checkpoint of step {checkpoint_step(out)}, the last "
                 f"metrics line's step {last}")
    check.expect(f"{name}.stdout", "\ntraining @train_step" in "\n" + stdout
                 and stopped in stdout and "curve:" in stdout,
                 f"piped stdout keeps the header and ends with {stopped!r}, "
                 f"the final lines: {stdout.splitlines()[-5:]}")
    check.expect(f"{name}.curve",
                 open(os.path.join(out, "curve.svg")).read().endswith(
                     "</svg>\n"), "curve.svg written")
    if sig == signal.SIGINT:
        left = sorted(f for f in os.listdir(out) if f in stale + ["notes.txt"])
        check.expect("stale_temporaries_removed", left == ["notes.txt"],
                     f"of the temporaries and notes.txt, left: {left}; "
                     f"stdout: {stdout.splitlines()[0]}")
        # The stopped run continues where it stopped.
        r = subprocess.run(command(out, "--resume", f"--steps={last + 3}"),
                           capture_output=True, text=True, timeout=300)
        check.expect("SIGINT.resume", r.returncode == 0 and
                     f"resuming from {out}/checkpoint.npz at step {last}"
                     in r.stdout and checkpoint_step(out) == last + 3,
                     f"exit {r.returncode}, checkpoint of step "
                     f"{checkpoint_step(out)} (want {last + 3})")

# A second signal while the run finishes its step ends it at once (the
# kernel delivers the pending SIGINT first: SIGTERM is the second).
out = os.path.join(work, "twice")
proc = subprocess.Popen(command(out), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
_, _, seconds = stop(proc, out, [signal.SIGTERM, signal.SIGINT])
check.expect("second_signal", proc.returncode in (-signal.SIGINT,
                                                  -signal.SIGTERM),
             f"exit {proc.returncode} (want {-signal.SIGTERM}: killed by the "
             f"second signal) {seconds:.2f} s after the signals")

# mpirun -np 2: SIGTERM to rank 1 alone stops both ranks after one step.
out = os.path.join(work, "mpi_rank1")
proc = subprocess.Popen(mpi.mpirun_command(2) + command(
    out, "--collective-timeout=30", small=True), stdout=subprocess.PIPE,
    stderr=subprocess.PIPE, text=True)
if wait_for_training(proc, out):
    ranks = jobs.rank_processes(proc.pid, "trellis-train")
    stdout, stderr, seconds = stop(proc, out, [signal.SIGTERM],
                                   pid=ranks[1][0])
    last = metrics_steps(out)[-1]
    check.expect("mpi.one_rank", proc.returncode == 143 and seconds < LIMIT
                 and "collective" not in stderr and checkpoint_step(out) == last
                 and f"stopped by SIGTERM after step {last} " in stdout,
                 f"exit {proc.returncode} (want 143) {seconds:.2f} s after "
                 f"SIGTERM of rank 1, checkpoint of step {checkpoint_step(out)}"
                 f" (last metrics step {last}); stderr lines with 'collective':"
                 f" {[l for l in stderr.splitlines() if 'collective' in l]}")
else:
    proc.kill()
    check.expect("mpi.one_rank", False, "the job never started training")

# SIGTERM to mpirun: it forwards SIGTERM to the ranks and gives them
# odls_base_sigkill_timeout (1 s by default) before SIGKILL. mpirun itself
# exits 1.
out = os.path.join(work, "mpi_mpirun")
proc = subprocess.Popen(mpi.mpirun_command(2) + command(out, small=True),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
stdout, stderr, seconds = stop(proc, out, [signal.SIGTERM])
last = metrics_steps(out)[-1]
check.expect("mpi.mpirun", proc.returncode != 0 and seconds < LIMIT and
             checkpoint_step(out) == last and
             f"stopped by SIGTERM after step {last} " in stdout,
             f"exit {proc.returncode} {seconds:.2f} s after SIGTERM of mpirun,"
             f" checkpoint of step {checkpoint_step(out)} (last metrics step "
             f"{last})")
check.finish()
