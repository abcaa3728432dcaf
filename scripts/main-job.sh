#!/usr/bin/env bash
# The main job: installs what Trellis needs, builds it, and trains the
# Reformer-style reversible language model of examples/reformer (sequence
# duplication task) data-parallel on 2 MPI ranks with Adasum gradient
# reduction, then prints the held-out accuracy on the copied half and where
# the loss curve, metrics and checkpoint are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$build"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${WORK_DIR:-$build/main-job}
/usr/bin/python3 "$root/examples/reformer/make_data.py" "$work/data"
echo "== training examples/reformer/model.mlir on 2 MPI ranks (Adasum)"
mpirun --oversubscribe -np 2 "$build/bin/trellis-train" \
  "$root/examples/reformer/model.mlir" \
  --data="$work/data/train.npz" --eval-data="$work/data/test.npz" \
  --steps="${STEPS:-300}" --eval-every=100 --checkpoint-every=100 \
  --log-every=25 --reduce=adasum --output-dir="$work/out"
