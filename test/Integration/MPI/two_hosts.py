"""Data-parallel training across two "hosts": two network namespaces joined
by a veth pair, OpenMPI over TCP between them.

The hosts: namespaces <prefix>-a and <prefix>-b (the prefix holds this
process's id, so concurrent runs do not collide), each with loopback and one
end of a veth pair named tveth0, addressed 10.250.0.1/30 and 10.250.0.2/30.
Nothing is created or changed outside the two namespaces: the pair is made
with both ends inside them, and deleting the namespaces deletes it. Every
process left in them is killed and both are deleted at the end, also on a
failure, a timeout, SIGTERM, SIGINT or SIGHUP; namespaces of an earlier run
whose process no longer exists (SIGKILL) are removed at the start.

mpirun runs inside host a (so that the daemons reach it over the veth) with
a hostfile naming hosts trellis-a and trellis-b, an rsh agent that runs the
daemon's command in the namespace of the host it is given (`ip netns exec`),
`btl tcp,self` and btl_tcp_if_include / oob_tcp_if_include tveth0, and
`--bind-to none` (each "host" would bind its rank to its first core, the
same core of this machine: 6x slower) and `--mca rtc ^hwloc` (that
component, idle without binding, crashed a daemon in 1 of 3 runs). Every
mpirun has a 120 s timeout.

* placement: rank 0 runs in namespace a, rank 1 in namespace b;
* traffic: tveth0 carried the training's reductions (its byte counters grew
  by more than the gradients of one step);
* equal: trellis-train on examples/reversible, 40 steps, 2 ranks across the
  two hosts and 2 ranks on one host (mpirun's defaults: shared memory), give
  bit-identical checkpoints (every parameter) and metrics.jsonl losses. Bit
  identity, not f32 rounding, is the right expectation: each rank computes
  its gradients with the same code on the same data shard, and the only
  cross-rank arithmetic, the mean of 2 ranks' values, is per element one
  IEEE addition of two addends, which is commutative and correctly rounded,
  so no reduction algorithm, transport or arrival order can change a bit;
* learned: the held-out accuracy after 40 steps is at least 0.8 (chance
  0.25), so equal checkpoints are trained ones;
* cleanup: afterwards both namespaces are gone and the host's links,
  addresses and routes (`ip -o link/addr/route`) are as before.

usage: two_hosts.py WORKDIR EXAMPLE_DIR
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

from trellis_testing import mpi
from trellis_testing.run import Checker

if len(sys.argv) != 3:
    sys.exit("usage: two_hosts.py WORKDIR EXAMPLE_DIR")
work, example = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
check = Checker()
MPIRUN_TIMEOUT = 120
PREFIX = f"trellis2h-{os.getpid()}"
HOSTS = {"trellis-a": f"{PREFIX}-a", "trellis-b": f"{PREFIX}-b"}
ADDRESSES = {"trellis-a": "10.250.0.1/30", "trellis-b": "10.250.0.2/30"}
IFACE = "tveth0"
STEPS = 40


def ip(*args, check_rc=True):
    proc = subprocess.run(["ip", *args], capture_output=True, text=True,
                          timeout=30)
    if check_rc and proc.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def host_network():
    """The host's link names, (link, address) pairs and routes."""
    links = sorted(line.split(":")[1].strip()
                   for line in ip("-o", "link", "show").splitlines())
    addrs = sorted(tuple(line.split()[1:4])
                   for line in ip("-o", "addr", "show").splitlines())
    return links, addrs, ip("route", "show")


def remove_namespace(ns):
    """Kills every process in `ns`, then deletes it (and its veth end)."""
    for pid in ip("netns", "pids", ns, check_rc=False).split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    ip("netns", "del", ns, check_rc=False)


def remove_stale_namespaces():
    """Namespaces of earlier runs that were killed before they cleaned up."""
    for line in ip("netns", "list").splitlines():
        m = re.match(r"(trellis2h-(\d+)-[ab])\b", line)
        if m and not os.path.exists(f"/proc/{m.group(2)}"):
            remove_namespace(m.group(1))


def cleanup():
    for ns in HOSTS.values():
        remove_namespace(ns)


def end_on_signal(signum, frame):
    raise SystemExit(f"FAIL: signal {signum}; removing the namespaces")


def create_hosts():
    a, b = HOSTS["trellis-a"], HOSTS["trellis-b"]
    ip("netns", "add", a)
    ip("netns", "add", b)
    # Both ends are created inside the namespaces: the host's link table is
    # never touched.
    ip("link", "add", IFACE, "netns", a, "type", "veth", "peer", "name", IFACE,
       "netns", b)
    for host, ns in HOSTS.items():
        ip("-n", ns, "addr", "add", ADDRESSES[host], "dev", IFACE)
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "link", "set", IFACE, "up")
    # The kernel reports a veth's carrier asynchronously (its link watch may
    # wait up to a second after other link events): until both ends are
    # operationally up, packets are dropped, and an mpirun started at once
    # failed its first TCP connection ("unable to complete a TCP
    # connection", once in a run of the suite). Its IPv6 link-local address
    # then stays `tentative` for 1-2 s more (duplicate address detection),
    # unusable, and Debian's Open MPI is built with IPv6 (its TCP components
    # find the interface's IPv6 addresses too): the likely cause of the
    # first mpirun exiting with 213 at start-up on a loaded machine (2 runs
    # in about 45; the message was not kept). Both ends must be up and past
    # it.
    def ready(ns):
        return ("state UP" in ip("-n", ns, "-o", "link", "show", IFACE) and
                "tentative" not in ip("-n", ns, "-o", "addr", "show", "dev",
                                      IFACE))

    deadline = time.monotonic() + 10
    while not all(ready(ns) for ns in HOSTS.values()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{IFACE} was not ready in 10 s: " + "; ".join(
                ip("-n", ns, "-o", "addr", "show", "dev", IFACE).strip()
                for ns in HOSTS.values()))
        time.sleep(0.05)


def write_agent():
    """The rsh agent: `agent HOST COMMAND...` runs COMMAND (a shell command
    line, as for ssh) in HOST's namespace."""
    cases = "".join(f"  {host}) ns={ns} ;;\n" for host, ns in HOSTS.items())
    path = os.path.join(work, "netns-agent.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                "host=$1\nshift\n"
                f"case $host in\n{cases}"
                '  *) echo "netns-agent: unknown host $host" >&2; exit 255 ;;\n'
                "esac\n"
                'exec ip netns exec "$ns" /bin/sh -c "$*"\n')
    os.chmod(path, 0o755)
    hostfile = os.path.join(work, "hostfile")
    with open(hostfile, "w") as f:
        f.writelines(f"{host} slots=1\n" for host in HOSTS)
    return path, hostfile


def run(cmd, what):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=MPIRUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        check.expect(what, False, f"no end within {MPIRUN_TIMEOUT} s: "
                     f"{' '.join(cmd)}")
        check.finish()
    if proc.returncode != 0:
        check.expect(what, False, f"exit {proc.returncode}: {' '.join(cmd)}\n"
                     f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        check.finish()
    return proc.stdout


def two_host_mpirun(agent, hostfile):
    return ["ip", "netns", "exec", HOSTS["trellis-a"], "mpirun",
            "--hostfile", hostfile, "-np", "2",
            # Each "host" would bind its rank to its core 0: the same core.
            "--bind-to", "none",
            # Open MPI 4.1's hwloc run-time control, which binds nothing
            # here, crashed the daemon in its set-up (SIGSEGV in
            # mca_rtc_hwloc, orte_rtc_base_select) in 1 of 3 runs.
            "--mca", "rtc", "^hwloc",
            "--mca", "plm_rsh_agent", agent,
            "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", IFACE,
            "--mca", "oob_tcp_if_include", IFACE]


def veth_bytes(ns):
    stats = f"/sys/class/net/{IFACE}/statistics"
    out = subprocess.run(["ip", "netns", "exec", ns, "cat", f"{stats}/rx_bytes",
                          f"{stats}/tx_bytes"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return sum(int(v) for v in out.split())


def train(cmd_prefix, out, what):
    cmd = cmd_prefix + [
        shutil.which("trellis-train"), os.path.join(example, "model.mlir"),
        f"--data={data}/train.npz", f"--eval-data={data}/test.npz",
        f"--steps={STEPS}", f"--eval-every={STEPS}", f"--output-dir={out}"]
    run(cmd, what)
    ckpt = np.load(os.path.join(out, "checkpoint.npz"))
    with open(os.path.join(out, "metrics.jsonl")) as f:
        records = [json.loads(line) for line in f]
    return ckpt, records


if os.geteuid() == 0:
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
if not shutil.which("trellis-train"):
    sys.exit("FAIL: trellis-train not found on PATH")
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(example, "make_data.py"), data],
               check=True, capture_output=True)

before = host_network()
for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(signum, end_on_signal)
remove_stale_namespaces()
try:
    try:
        create_hosts()
    except (RuntimeError, OSError) as e:
        sys.exit(f"FAIL: making the namespaces (root or CAP_NET_ADMIN, "
                 f"iproute2): {e}")
    agent, hostfile = write_agent()

    # Placement: the network namespace of each rank.
    # (Files, not stdout, whose lines mpirun may interleave.)
    placement = os.path.join(work, "placement")
    shutil.rmtree(placement, ignore_errors=True)
    os.makedirs(placement)
    probe = ("import os; open(os.path.join(os.environ['PLACEMENT'], "
             "os.environ['OMPI_COMM_WORLD_RANK']), 'w')"
             ".write(str(os.stat('/proc/self/ns/net').st_ino))")
    run(two_host_mpirun(agent, hostfile) +
        ["-x", f"PLACEMENT={placement}", "/usr/bin/python3", "-c", probe],
        "placement")
    got = {}
    for rank in sorted(os.listdir(placement)):
        with open(os.path.join(placement, rank)) as f:
            got[rank] = f.read()
    want = {str(r): str(os.stat(f"/run/netns/{ns}").st_ino)
            for r, ns in enumerate(HOSTS.values())}
    check.expect("placement", got == want,
                 f"rank: namespace inode {got}, want {want} (a, b)")

    traffic_before = veth_bytes(HOSTS["trellis-b"])
    two_ckpt, two_records = train(two_host_mpirun(agent, hostfile),
                                  os.path.join(work, "two-hosts"), "two_hosts.train")
    traffic = veth_bytes(HOSTS["trellis-b"]) - traffic_before
finally:
    cleanup()

param_bytes = sum(two_ckpt[k].nbytes for k in two_ckpt.files if k.startswith("param"))
check.expect("traffic", traffic > param_bytes,
             f"{traffic} bytes over {IFACE} during training (one step's "
             f"gradients: {param_bytes})")

one_ckpt, one_records = train(mpi.mpirun_command(2), os.path.join(work, "one-host"),
                              "one_host.train")
params = sorted(k for k in one_ckpt.files if k.startswith("param"))
differ = [k for k in params
          if k not in two_ckpt.files or
          one_ckpt[k].dtype != two_ckpt[k].dtype or
          one_ckpt[k].tobytes() != two_ckpt[k].tobytes()]
check.expect("equal.checkpoint",
             params and not differ and int(two_ckpt["step"]) == STEPS and
             sorted(two_ckpt.files) == sorted(one_ckpt.files),
             f"{len(params)} parameters at step {int(two_ckpt['step'])}, "
             f"{len(differ)} not bit-identical {differ[:3]}")


def losses(records):
    return [(r["step"], r["loss"]) for r in records if "loss" in r]


check.expect("equal.losses",
             losses(one_records) and losses(one_records) == losses(two_records),
             f"{len(losses(two_records))} logged losses, equal: "
             f"{losses(one_records) == losses(two_records)}")
evals = [r["eval"]["accuracy"] for r in two_records if "eval" in r]
check.expect("learned", evals and evals[-1] >= 0.8,
             f"held-out accuracy {evals[-1] if evals else None} after {STEPS} "
             f"steps (>= 0.8; chance 0.25)")

listed = {line.split()[0] for line in ip("netns", "list").splitlines() if line}
left = [ns for ns in HOSTS.values() if ns in listed]
check.expect("cleanup", not left and host_network() == before,
             f"namespaces left: {left or 'none'}; host links, addresses and "
             f"routes unchanged: {host_network() == before}")
check.finish()
