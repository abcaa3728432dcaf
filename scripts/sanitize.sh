#!/usr/bin/env bash
# Builds Trellis with AddressSanitizer + UndefinedBehaviorSanitizer (clang-22,
# TRELLIS_ENABLE_SANITIZERS) and runs the whole lit suite under them.
# Sanitizer reports go to files, so a report in a test that expects its tool
# to fail (`not trellis-run ...`) is counted too. The last line is
# "N passed, N unsupported, N failed, N sanitizer reports"; the exit status is
# non-zero if a test failed or a report was written.
# Usage: scripts/sanitize.sh [BUILD_DIR] [lit args...]   (default build-asan)
#        scripts/sanitize.sh --run COMMAND [ARGS...]
#   --run: one command (a tool, a test's script) in the suite's environment,
#   with build-asan/bin first on PATH; its reports are counted the same way.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run=
if [ "${1:-}" = --run ]; then
  run=1
  shift
  build=$root/build-asan
else
  # Absolute: LD_PRELOAD below names a library in it, and tests run in
  # other directories.
  build=$(realpath -m "${1:-$root/build-asan}")
  shift || true
fi
prefix=$(llvm-config-22 --prefix)
jobs=${JOBS:-2}

if ! command -v clang++-22 >/dev/null; then
  echo "sanitize: clang++-22 not found (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR="$prefix/lib/cmake/mlir" \
    -DLLVM_USE_LINKER=lld \
    -DTRELLIS_ENABLE_SANITIZERS=ON || exit 1
fi
SECONDS=0
ninja -C "$build" -j"$jobs" || exit 1
echo "sanitize: build took ${SECONDS} s"

# (--run keeps its own, so it does not erase those of the last suite run.)
reports=$build/sanitizer-reports${run:+-run}
rm -rf "$reports" && mkdir -p "$reports"
supp=$root/scripts/sanitizers/lsan.supp
# halt_on_error: the first report ends the process. Reports go to
# $reports/report.<pid> (one runtime serves ASan, LSan and UBSan; the report
# names its sanitizer).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$reports/report:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/report:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0:${LSAN_OPTIONS:-}"
# Libraries are never unloaded (scripts/sanitizers/keep_loaded.c): OpenMPI
# dlcloses its components in MPI_Finalize, and their allocations would be
# reported from an <unknown module> that no suppression can name.
keep_loaded=$build/lib/libtrellis_keep_loaded.so
clang-22 -shared -fPIC -O2 -o "$keep_loaded" "$root/scripts/sanitizers/keep_loaded.c" || exit 1
export LD_PRELOAD="$keep_loaded${LD_PRELOAD:+:$LD_PRELOAD}"
# No cache of freed tensor buffers (lib/Runtime/AllocHooks.cpp): a cached
# block stays allocated as far as ASan knows, so host code reading a tensor
# after its free would go unseen.
export TRELLIS_ALLOC_CACHE_MB=0
# Tests that build programs against Trellis (test/Integration/Embedding)
# build them with the same compiler and sanitizers.
export CC=clang-22 CXX=clang++-22
export CFLAGS="-fsanitize=address,undefined -fno-sanitize=vptr,function"
export CXXFLAGS="$CFLAGS" LDFLAGS="$CFLAGS"

# The reports of the run, then the number of them.
print_reports() {
  local f
  for f in $(find "$reports" -type f | sort); do
    echo "==== $f"
    cat "$f"
  done
  nreports=$(find "$reports" -type f | wc -l)
}

if [ -n "$run" ]; then
  export PATH="$build/bin:$PATH" PYTHONPATH="$root/test/lib"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  "$@"
  status=$?
  print_reports
  echo "sanitize: exit ${status}, ${nreports} sanitizer reports"
  [ "$status" -eq 0 ] && [ "$nreports" -eq 0 ]
  exit
fi

log=$(mktemp)
SECONDS=0
"$prefix/bin/lit" -sv --time-tests "$@" "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "sanitize: lit took ${SECONDS} s"
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -1; }
num() { local n; n=$(count "$1"); echo "${n:-0}"; }
passed=$(( $(num Passed) + $(num "Expectedly Failed") ))
unsupported=$(num Unsupported)
nfail=$(( $(num Failed) + $(num "Unexpectedly Passed") + $(num Unresolved) + $(num "Timed Out") ))
rm -f "$log"
print_reports
if [ "$nfail" -eq 0 ] && [ "$status" -ne 0 ]; then nfail=1; fi
echo "${passed} passed, ${unsupported} unsupported, ${nfail} failed, ${nreports} sanitizer reports"
[ "$status" -eq 0 ] && [ "$nreports" -eq 0 ]
