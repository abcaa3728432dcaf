#!/usr/bin/env bash
# Configures (once) and builds Trellis with ninja, lld and libMLIR.so.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
prefix=$(llvm-config-22 --prefix)
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$prefix/lib/cmake/mlir" \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@"
fi
ninja -C "$build"
