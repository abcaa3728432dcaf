#!/usr/bin/env bash
# Collectives benchmark (issue 5): Trellis psum and Adasum vs a raw
# MPI_Allreduce of the same 16 MiB f32 buffer, measured in one program, at
# np = 2 and 4 (oversubscribed on 2 cores, like the anchor figures).
# Usage: bench/collectives/run.sh [BUILD_DIR] [MiB]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
mib=${2:-16}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 2 4; do
  mpirun --oversubscribe -np "$np" "$build/bin/coll-bench" "$mib"
done
