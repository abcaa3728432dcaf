"""A model whose tensors do not fit ends with one clear line, quickly.

* No limit given: an intermediate of 100000 x 100000 f32 (37.3 GiB, more than
  the machine has) is refused before malloc (Linux would overcommit it and
  the OOM killer strike later): "out of memory: allocating 37.3 GiB for a
  tensor with ... live (... available)", exit 1.
* --memory-limit / TRELLIS_MEMORY_LIMIT: a 128 MiB intermediate under a
  64 MiB cap fails the same way ("(limit 64.0 MiB)"); under a 1 GiB cap the
  model runs. An invalid size is an error naming the flag.
* Under mpirun (2 ranks, MPMD so that only rank 0 has the cap): rank 0 runs
  out of memory while rank 1 waits in a psum; the whole job ends, non-zero.
* trellis-train --memory-limit: the training driver honours the cap too.

Every failure must come within LIMIT seconds of the launch.

usage: out-of-memory.py WORKDIR EXAMPLE_DIR
"""

import os
import subprocess
import sys

import numpy as np

from trellis_testing import jobs
from trellis_testing.run import Checker, trellis_run_path, write_model

workdir, example = sys.argv[1], sys.argv[2]
check = Checker()
LIMIT = 10.0
run = trellis_run_path()

model = write_model(workdir, """
// 100000 x 100000 f32 = 37.3 GiB, from inputs of 3.6 MB.
func.func @huge(%x: tensor<100000x4xf32>, %w: tensor<4x100000xf32>, %b: tensor<100000xf32>) -> tensor<f32> {
  %y = nn.dense %x, %w, %b : (tensor<100000x4xf32>, tensor<4x100000xf32>, tensor<100000xf32>) -> tensor<100000x100000xf32>
  %m = nn.mean %y : (tensor<100000x100000xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// 4096 x 8192 f32 = 128 MiB.
func.func @large(%x: tensor<4096x4xf32>, %w: tensor<4x8192xf32>, %b: tensor<8192xf32>) -> tensor<f32> {
  %y = nn.dense %x, %w, %b : (tensor<4096x4xf32>, tensor<4x8192xf32>, tensor<8192xf32>) -> tensor<4096x8192xf32>
  %m = nn.mean %y : (tensor<4096x8192xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

// The same, then a psum: the rank that runs out of memory never gets there.
func.func @large_psum(%x: tensor<4096x4xf32>, %w: tensor<4x8192xf32>, %b: tensor<8192xf32>) -> tensor<f32> {
  %y = nn.dense %x, %w, %b : (tensor<4096x4xf32>, tensor<4x8192xf32>, tensor<8192xf32>) -> tensor<4096x8192xf32>
  %m = nn.mean %y : (tensor<4096x8192xf32>) -> tensor<f32>
  %s = coll.psum %m {axis = "batch"} : tensor<f32>
  return %s : tensor<f32>
}
""")


def save(name, rows, cols):
    paths = []
    for i, shape in enumerate([(rows, 4), (4, cols), (cols,)]):
        path = os.path.join(workdir, f"{name}{i}.npy")
        np.save(path, np.full(shape, 0.5, np.float32))
        paths.append(path)
    return [f"--input={p}" for p in paths]


huge_inputs = save("huge", 100000, 100000)
large_inputs = save("large", 4096, 8192)


def launch(cmd, env_extra=None):
    env = dict(os.environ)
    env.pop("TRELLIS_MEMORY_LIMIT", None)
    env.update(env_extra or {})
    return jobs.timed_run(cmd, env=env)


def expect_oom(name, cmd, parts, env=None):
    proc, seconds = launch(cmd, env)
    jobs.expect_failure(check, name, proc, seconds, cmd, LIMIT,
                        marker="out of memory", parts=parts)


expect_oom("oom.available", [run, model, "--entry=huge", *huge_inputs],
           ["trellis: out of memory: allocating 37.3 GiB for a tensor with ",
            " live (", " available)"])
expect_oom("oom.flag", [run, model, "--entry=large", "--memory-limit=64M",
                        *large_inputs],
           ["trellis: out of memory: allocating 128.0 MiB for a tensor with ",
            "(limit 64.0 MiB)"])
expect_oom("oom.env", [run, model, "--entry=large", *large_inputs],
           ["allocating 128.0 MiB", "(limit 64.0 MiB)"],
           env={"TRELLIS_MEMORY_LIMIT": "64MiB"})

proc, seconds = launch([run, model, "--entry=large", "--memory-limit=1G",
                        "--stats", *large_inputs])
check.expect("oom.fits", proc.returncode == 0 and "result0" in proc.stdout,
             f"exit {proc.returncode} under a 1 GiB cap: "
             f"{proc.stdout.strip()[-200:]} {proc.stderr.strip()[-500:]}")

proc, seconds = launch([run, model, "--entry=large", "--memory-limit=lots",
                        *large_inputs])
check.expect("oom.invalid_flag",
             proc.returncode == 1 and "--memory-limit: 'lots' is not a size"
             in proc.stderr, f"exit {proc.returncode}: {proc.stderr.strip()}")

# One rank out of memory, the other waiting in a psum.
cmd = (["mpirun", "--oversubscribe", "-np", "1", run, model,
        "--entry=large_psum", "--memory-limit=64M", *large_inputs, ":",
        "-np", "1", run, model, "--entry=large_psum", *large_inputs])
expect_oom("oom.mpi_one_rank", cmd,
           ["trellis: rank 0: out of memory: allocating 128.0 MiB",
            "(limit 64.0 MiB)"])

# trellis-train honours the cap.
data = os.path.join(workdir, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)
expect_oom("oom.trellis_train",
           ["trellis-train", os.path.join(example, "model.mlir"),
            f"--data={data}/train.npz", f"--output-dir={workdir}/train",
            "--steps=5", "--memory-limit=1K"],
           ["trellis: out of memory: allocating ", "(limit 1.0 KiB)"])
check.finish()
