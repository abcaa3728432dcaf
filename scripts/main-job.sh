#!/usr/bin/env bash
# The main job: installs what Trellis needs, builds it, and runs the example
# model on 2 MPI ranks, each rank on its own data shard ({rank} in the paths).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$build"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${WORK_DIR:-$build/main-job}
data=$work/data
/usr/bin/python3 "$root/examples/mlp/make_data.py" "$data" 2
echo "== forward pass of examples/mlp/mlp.mlir on 2 MPI ranks"
mpirun --oversubscribe -np 2 "$build/bin/trellis-run" "$root/examples/mlp/mlp.mlir" \
  --entry=forward --input="$data/x.{rank}.npy" --input="$data/w1.npy" \
  --input="$data/b1.npy" --input="$data/w2.npy" --input="$data/b2.npy" \
  --input="$data/y.{rank}.npy" --output-dir="$work/out/{rank}" --stats
for r in 0 1; do
  /usr/bin/python3 -c "import numpy as np, sys; print(f'rank $r: loss', float(np.load(sys.argv[1])))" \
    "$work/out/$r/result0.npy"
done
echo "== results in $work/out/{0,1}/result<i>.npy"
