#!/usr/bin/env bash
# Installs every package Trellis needs to build, test and run, by Debian package name.
# Idempotent: packages already present are skipped, so re-running costs one dpkg query.
# Usage: scripts/install-deps.sh [PACKAGE...]   (extra packages, e.g. the
# clang-22 and libclang-rt-22-dev of scripts/fuzz.sh --ci)
set -euo pipefail

PACKAGES=(
  # Compiler toolchain: LLVM/MLIR 22 (libMLIR.so, mlir-tblgen, FileCheck, lit), lld, ninja.
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # lld: gcc finds it as ld.lld for -fuse-ld=lld (relinks ~10x faster).
  lld
  cmake ninja-build g++ git
  # MPI for the coll dialect's lowering and data-parallel runs.
  libopenmpi-dev openmpi-bin
  iproute2  # ip netns/veth: the two-host MPI test (test/Integration/MPI/two-hosts.test)
  # zlib: deflated members of .npz datasets.
  zlib1g-dev
  # BLAS for matmul-heavy ops and for the NumPy/PyTorch references; oneDNN for
  # the f32 GEMMs (docs/performance.md).
  libopenblas-dev libopenblas0-pthread libdnnl-dev
  # LLVM's OpenMP runtime (libomp.so.5) for the parallel loops of the lowering
  # (convert-scf-to-openmp; docs/performance.md, "Threads").
  libomp-22-dev
  # Unit tests of the embedding API (unittests/).
  libgtest-dev
  # Reference computations in tests (Debian's python, not the one first on PATH).
  python3 python3-numpy
  # The Python package (python/, docs/python.md): bindings and its pytest suite.
  pybind11-dev python3-dev python3-pytest
  # PyTorch: the reference of the Python package's tests (trellis.torch.export
  # and the layers' gradients against autograd in f64; test/Python).
  python3-torch
  # The 8x8 digits dataset of examples/digits (sklearn/datasets/data/digits.csv.gz).
  python3-sklearn
  dataset-fashion-mnist  # IDX files of examples/fashion-mnist (/usr/share/datasets/fashion-mnist)
)
PACKAGES+=("$@")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
