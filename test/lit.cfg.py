# -*- Python -*-
"""lit configuration of the Trellis test suite.

Features: `numpy` (Debian's /usr/bin/python3 with NumPy, for the references of
the integration tests), `mpi` (mpirun on PATH), and `asan` / `ubsan` in a
sanitizer build (scripts/sanitize.sh, docs/reliability-sanitizers.md).
"""

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "TRELLIS"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.trellis_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
# Sanitizer builds (scripts/sanitize.sh): the runtime options, and the
# compiler and flags with which tests build programs against Trellis.
llvm_config.with_system_environment(
    ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
     "LD_PRELOAD", "TRELLIS_ALLOC_CACHE_MB",
     "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS"])
llvm_config.use_default_substitutions()

# Debian's python3 carries python3-numpy; the python3 first on PATH may not.
python = "/usr/bin/python3"
config.substitutions.append(("%python", python))
config.substitutions.append(("%trellis_src", config.trellis_src_root))
shared = os.path.join(os.path.dirname(config.trellis_src_root), "shared")
config.substitutions.append(("%shared", shared))
# ../shared (the team's contracts) is beside the session's and CI's clones,
# not a user's: the tests that read it need the `shared` feature.
if os.path.isfile(os.path.join(shared, "conformance", "cli_contract.py")):
    config.available_features.add("shared")
if subprocess.call([python, "-c", "import numpy"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("numpy")
if shutil.which("mpirun"):
    config.available_features.add("mpi")
# `fashion-mnist`: Debian's dataset-fashion-mnist (scripts/install-deps.sh).
if os.path.isdir("/usr/share/datasets/fashion-mnist"):
    config.available_features.add("fashion-mnist")
# `netns`: network namespaces with a veth pair can be made (iproute2, root or
# CAP_NET_ADMIN; test/Integration/MPI/two-hosts.test). The probe makes both
# ends inside its own namespace, never on the host, and deletes it.
def _netns_available():
    if not shutil.which("ip"):
        return False
    name = f"trellis-probe-{os.getpid()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "timeout": 10}
    try:
        if subprocess.call(["ip", "netns", "add", name], **quiet) != 0:
            return False
        try:
            return subprocess.call(
                ["ip", "-n", name, "link", "add", "probe0", "type", "veth",
                 "peer", "name", "probe1"], **quiet) == 0
        finally:
            subprocess.call(["ip", "netns", "del", name], **quiet)
    except (OSError, subprocess.TimeoutExpired):
        return False
if _netns_available():
    config.available_features.add("netns")
# The host's widest vector ABI, which the JIT compiles for: tests of
# vectorized code check the widths of this host (%vecabi: AVX512 or AVX2).
def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()
# The width is LLVM's own choice for the host CPU, asked of opt on a float
# loop: Intel's AVX-512 CPUs are tuned to prefer 256-bit vectors
# (TuningPrefer256Bit: 8 floats), AMD's znver4/5 vectorize in 512 bits.
_FLOAT_LOOP = """
define void @f(ptr noalias %a, ptr noalias %b) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %pb = getelementptr float, ptr %b, i64 %i
  %x = load float, ptr %pb
  %y = fmul float %x, 2.0
  %pa = getelementptr float, ptr %a, i64 %i
  store float %y, ptr %pa
  %n = add i64 %i, 1
  %c = icmp eq i64 %n, 4096
  br i1 %c, label %exit, label %loop
exit:
  ret void
}
"""
def _llvm_float_lanes():
    tools = config.llvm_tools_dir
    try:
        cpu = subprocess.run([os.path.join(tools, "llc"), "--version"],
                             capture_output=True, text=True).stdout
        cpu = cpu.split("Host CPU:", 1)[1].split()[0]
        ir = subprocess.run(
            [os.path.join(tools, "opt"), "-mtriple=x86_64-pc-linux-gnu",
             "-mcpu=" + cpu, "-passes=loop-vectorize",
             "-force-vector-interleave=1", "-S"],
            input=_FLOAT_LOOP, capture_output=True, text=True).stdout
    except (OSError, IndexError):
        return 0
    return 16 if "<16 x float>" in ir else 8
config.substitutions.append(
    ("%vecabi", "AVX512" if "avx512f" in _cpu_flags()
     and _llvm_float_lanes() == 16 else "AVX2"))
# Sanitizer builds. A test marked `UNSUPPORTED: asan` says why in a comment:
# only a test whose assertions measure the process (wall-clock bounds,
# memory) rather than its results, which the instrumented build changes.
sanitizers = set(getattr(config, "trellis_sanitizers", "").split(";"))
if "address" in sanitizers:
    config.available_features.add("asan")
if "undefined" in sanitizers:
    config.available_features.add("ubsan")
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
config.environment["PYTHONPATH"] = os.path.join(config.trellis_src_root, "test", "lib")
# The JIT keeps the host's measured GEMM library choice under
# $XDG_CACHE_HOME/trellis (docs/performance.md, "Library choice"): the
# suite's own, in the build tree, not the user's home.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.trellis_obj_root, "test", "xdg-cache")

llvm_config.add_tool_substitutions(
    ["trellis-opt", "trellis-run", "trellis-equiv", "trellis-train"], [config.trellis_tools_dir])
llvm_config.with_environment("PATH", config.trellis_tools_dir, append_path=True)
# The embedding API (docs/embedding.md): the AOT compiler, the build tree to
# install from, the libraries AOT programs link.
llvm_config.add_tool_substitutions(["trellis-aot"], [config.trellis_tools_dir])
config.substitutions.append(("%trellis_build", config.trellis_obj_root))
config.substitutions.append(
    ("%trellis_lib", os.path.join(config.trellis_obj_root, "lib")))
config.substitutions.append(
    ("%llvm_lib", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
