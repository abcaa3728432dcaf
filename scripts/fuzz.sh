#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang-22, TRELLIS_ENABLE_FUZZERS:
# ASan + UBSan + coverage) and runs each for SECONDS (default 60) on its seed
# corpus: the test suite's IR (except XFAIL tests: known bugs), split at
# "// -----" like -split-input-file, for ir_fuzzer; small generated .npy/.npz
# files for npy_fuzzer; the regression inputs of test/Fuzz/Inputs for both.
# Prints the executions and crashes of each target; the last line is
# "fuzz: N passed, N failed" (one test per target); the exit status is
# non-zero if a target crashed.
#
# Usage: scripts/fuzz.sh [--ci] [SECONDS] [TARGET...]
#                                        (targets: npy_fuzzer ir_fuzzer)
#   --ci  The short run of the CI (docs/reliability-fuzzing.md): installs
#         clang-22 and libclang-rt-22-dev if missing, builds in build-fuzz-ci
#         at -O1 with the Trellis libraries under UBSan + asserts + coverage
#         but without ASan (npy_fuzzer keeps ASan), and fuzzes with a fixed
#         libFuzzer seed.
# Environment: FUZZ_BUILD_DIR (default build-fuzz, build-fuzz-ci with --ci),
#              JOBS (ninja -j, default 2), FUZZ_ARGS (extra libFuzzer flags,
#              e.g. -seed=1).
# Crashing inputs land in $FUZZ_BUILD_DIR/fuzz/artifacts/<target>/; rerun one
# with `$FUZZ_BUILD_DIR/bin/<target> <file>` (fuzz/README.md).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ci=0
if [ "${1:-}" = --ci ]; then
  ci=1
  shift
fi
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npy_fuzzer ir_fuzzer)
jobs=${JOBS:-2}
# Before any target ran: every target counts as failed, so that the last
# line is the summary whatever happened.
fail_all() {
  echo "fuzz: $1" >&2
  echo "fuzz: 0 passed, ${#targets[@]} failed"
  exit 1
}
# What the CI mode changes: its own build directory and cache, the
# sanitizers and optimization level of the libraries, a reproducible seed.
config=(-DCMAKE_BUILD_TYPE=Release)
fuzz_args=${FUZZ_ARGS:-}
if [ "$ci" -eq 1 ]; then
  build=${FUZZ_BUILD_DIR:-$root/build-fuzz-ci}
  config+=(-DTRELLIS_FUZZ_SANITIZERS=undefined
           "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"
           "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG")
  fuzz_args=${FUZZ_ARGS:--seed=1}
  "$root/scripts/install-deps.sh" clang-22 libclang-rt-22-dev ||
    fail_all "could not install clang-22 and libclang-rt-22-dev"
else
  build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
fi
prefix=$(llvm-config-22 --prefix)

command -v clang++-22 >/dev/null ||
  fail_all "clang++-22 not found (apt-get install clang-22 libclang-rt-22-dev)"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" "${config[@]}" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR="$prefix/lib/cmake/mlir" \
    -DLLVM_USE_LINKER=lld \
    -DTRELLIS_ENABLE_FUZZERS=ON >/dev/null || fail_all "cmake failed"
fi
# Only the fuzzers and the libraries they link, not the whole project.
SECONDS=0
ninja -C "$build" -j"$jobs" "${targets[@]}" || fail_all "the build failed"
echo "fuzz: build took ${SECONDS} s"

work=$build/fuzz
seeds=$work/seeds
rm -rf "$seeds"
mkdir -p "$seeds/ir_fuzzer" "$seeds/npy_fuzzer"
# Files marked XFAIL reproduce known bugs: not seeds.
find "$root/test" "$root/examples" -name '*.mlir' | sort | while read -r file; do
  grep -q 'XFAIL:' "$file" && continue
  name=$(echo "${file#"$root"/}" | tr / _)
  awk -v out="$seeds/ir_fuzzer/$name" '
    /^\/\/ -----/ { close(out "." n); n++; next }
    { print > (out "." n + 0) }' "$file"
done
# Seeds over 16 KiB (the example models) take tens of seconds per run
# through the lowering under ASan: mutating them would stall the fuzzer.
find "$seeds/ir_fuzzer" -type f -size +16k -delete
if ! /usr/bin/python3 "$root/fuzz/make_npy_seeds.py" "$seeds/npy_fuzzer"; then
  echo "fuzz: warning: no generated .npy seeds (python3-numpy missing?)" >&2
fi
find "$root/test/Fuzz/Inputs" -name '*.np[yz]' -exec cp {} "$seeds/npy_fuzzer/" \; 2>/dev/null

passed=0
failed=0
for target in "${targets[@]}"; do
  corpus=$work/corpus/$target
  artifacts=$work/artifacts/$target
  log=$work/$target.log
  mkdir -p "$corpus" "$artifacts"
  args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=60
        -max_len=16384
        -rss_limit_mb=2048 -artifact_prefix="$artifacts/")
  dict=$root/fuzz/${target%_fuzzer}.dict
  [ -f "$dict" ] && args+=(-dict="$dict")
  stamp=$(mktemp)
  SECONDS=0
  # shellcheck disable=SC2086
  "$build/bin/$target" "${args[@]}" $fuzz_args "$corpus" "$seeds/$target" \
    >"$log" 2>&1
  rc=$?
  elapsed=$SECONDS
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  # crash-, leak-, oom-, timeout-: failures; slow-unit- files are only kept.
  new_artifacts=$(find "$artifacts" -type f -newer "$stamp" ! -name 'slow-unit-*' | sort)
  crashes=$(printf '%s' "$new_artifacts" | grep -c . || true)
  rm -f "$stamp"
  units=$(find "$corpus" -type f | wc -l)
  echo "fuzz: $target: ${execs:-0} executions in ${elapsed} s, $crashes crashes, corpus $units inputs (log: $log)"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=$((failed + 1))
    echo "fuzz: $target FAILED (exit $rc); the end of its log:"
    grep -v '^#[0-9]' "$log" | tail -40
    printf '%s\n' "$new_artifacts" | grep . | sed 's/^/fuzz:   artifact: /'
  else
    passed=$((passed + 1))
  fi
done
echo "fuzz: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
