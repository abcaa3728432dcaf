"""A deflated .npz member is inflated straight into its array.

trellis-train reads two archives that differ in one deflated member, "big",
of 256 MiB of zeros (256 KiB deflated) in one and 64 bytes in the other. The
difference in peak RSS (wait4's ru_maxrss of each run) is what reading "big"
costs: the member's size once, within 64 MiB of it. A reader that inflated
into a buffer and then copied the array out costs twice (512 MiB, as before
issue 20's fix).

usage: npz_inflate_memory.py MODEL WORKDIR
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_npz  # noqa: E402

MiB = 1 << 20
model, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)


def peak_rss(case):
    """Peak RSS in bytes of trellis-train on make_npz's archive `case`."""
    data = os.path.join(workdir, case + ".npz")
    with open(data, "wb") as f:
        f.write(make_npz.make(case))
    proc = subprocess.Popen(
        ["trellis-train", model, f"--data={data}", "--steps=1",
         f"--output-dir={os.path.join(workdir, case)}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"FAIL: trellis-train on {case}.npz: exit {proc.returncode}: "
                 f"{stderr.decode().strip()}")
    return usage.ru_maxrss * 1024  # kB on Linux


small, big = peak_rss("small"), peak_rss("big")
cost = big - small
member = 256 * MiB
print(f"peak RSS {small / MiB:.1f} MiB with 'big' of 64 bytes, "
      f"{big / MiB:.1f} MiB with 'big' of 256 MiB: it costs "
      f"{cost / MiB:.1f} MiB")
if not member - 64 * MiB <= cost <= member + 64 * MiB:
    sys.exit(f"FAIL: reading a 256 MiB member costs {cost / MiB:.1f} MiB, "
             "not 256 MiB +- 64 MiB")
print("PASS")
