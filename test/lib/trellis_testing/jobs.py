"""Jobs that must fail fast: timing a launch, judging its one error line,
finding and killing the processes of a rank.

    proc, seconds = timed_run(cmd)
    expect_failure(check, "oom.flag", proc, seconds, cmd, limit=10,
                   marker="out of memory", parts=["(limit 64.0 MiB)"])

    ranks = rank_processes(mpirun.pid, "trellis-run")   # {rank: (pid, cpu s)}
    seconds = kill_and_wait(mpirun, ranks[1][0])         # SIGKILL, then wait

Only processes whose parent is the test's own launcher are candidates, so
other jobs on the machine are never touched.
"""

import os
import signal
import subprocess
import time

TICKS = os.sysconf("SC_CLK_TCK")


def timed_run(cmd, env=None, timeout=300):
    """Runs `cmd` to completion, capturing its output; returns
    (CompletedProcess, wall seconds)."""
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, env=env)
    return proc, time.monotonic() - start


def expect_failure(check, name, proc, seconds, cmd, limit, marker, parts=(),
                   one_line=True):
    """Checks that a job failed clearly and fast: a non-zero exit within
    `limit` seconds, and among the stderr lines that contain `marker`
    exactly one (`one_line`) or at least one, that line containing every
    string of `parts`. Prints those lines, and the command and stderr if the
    check fails."""
    lines = [line for line in proc.stderr.splitlines() if marker in line]
    clear = (len(lines) == 1 if one_line else len(lines) >= 1) and all(
        p in lines[0] for p in parts)
    ok = proc.returncode != 0 and seconds < limit and clear
    check.expect(name, ok, f"exit {proc.returncode} after {seconds:.1f} s "
                 f"(limit {limit:g} s); {len(lines)} line(s) with {marker!r}")
    for line in lines:
        print("  " + line)
    if not ok:
        print("  command:", " ".join(cmd))
        print("  stderr:", proc.stderr.strip()[-2000:])
    return ok


def rank_processes(parent, program):
    """{rank: (pid, cpu seconds)} of the children of `parent` whose program
    (argv[0]) contains `program`, by their OMPI_COMM_WORLD_RANK."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != parent:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if program.encode() not in f.read().split(b"\0")[0]:
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        for entry in env:
            if entry.startswith(b"OMPI_COMM_WORLD_RANK="):
                cpu = (int(fields[11]) + int(fields[12])) / TICKS
                found[int(entry.split(b"=")[1])] = (int(pid), cpu)
    return found


def kill_and_wait(proc, pid, timeout=60):
    """Sends SIGKILL to `pid` (a rank of the job `proc`) and waits for the
    job to end, killing it after `timeout` seconds; returns the seconds from
    the kill to the end."""
    os.kill(pid, signal.SIGKILL)
    start = time.monotonic()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return time.monotonic() - start
