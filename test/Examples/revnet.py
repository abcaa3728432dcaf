"""examples/fashion-mnist's RevNet (gen_revnet.py) at test size, with the
measurement code of bench/revnet_memory.py: the reversible network and the
same blocks as ordinary residuals (--plain) compute the same training step,
and the reversible one's peak tensor memory does not grow with depth while
the plain one's does (byte counts of the compiled step, not timings).

* generated: revnet.mlir is what gen_revnet.py writes;
* same_step.<blocks>: the losses agree within 1e-5 relative and the
  gradients (Adam's first moments) within 1e-3 norm-relative;
* flat: the reversible peak at 4 blocks is within 5 % of the one at 2
  blocks; grows: the plain peak at 4 blocks exceeds its 2-block peak by
  more than 10 % (the check can tell stored from reconstructed).

usage: revnet.py WORKDIR SRC_ROOT"""

import os
import subprocess
import sys

from trellis_testing.run import Checker

work, src = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(src, "bench"))
import revnet_memory  # noqa: E402  (run_step, compare: one home with the benchmark)

check = Checker()
example = os.path.join(src, "examples", "fashion-mnist")
generated = subprocess.run(["/usr/bin/python3", os.path.join(example, "gen_revnet.py")],
                           capture_output=True, text=True, check=True).stdout
with open(os.path.join(example, "revnet.mlir")) as f:
    check.expect("revnet.generated", f.read() == generated,
                 "revnet.mlir equals the output of gen_revnet.py")

peaks = {}
for blocks in (2, 4):
    rev, rev_stats = revnet_memory.run_step("trellis-run", work, blocks, 8, plain=False, repeat=1)
    plain, plain_stats = revnet_memory.run_step("trellis-run", work, blocks, 8, plain=True, repeat=1)
    loss, grads = revnet_memory.compare(rev, plain, blocks)
    check.expect(f"revnet.same_step.{blocks}", loss <= 1e-5 and grads <= 1e-3,
                 f"loss {loss:.1e} relative, gradients {grads:.1e} norm-relative")
    peaks[blocks] = (rev_stats["peak_tensor_bytes"], plain_stats["peak_tensor_bytes"])
check.expect("revnet.flat", peaks[4][0] <= 1.05 * peaks[2][0],
             f"reversible peak {peaks[2][0]} -> {peaks[4][0]} bytes from 2 to 4 blocks")
check.expect("revnet.grows", peaks[4][1] > 1.10 * peaks[2][1],
             f"plain peak {peaks[2][1]} -> {peaks[4][1]} bytes from 2 to 4 blocks")
check.finish()
