#!/usr/bin/env bash
# Installs what Trellis needs, builds it and runs the whole test suite (lit:
# FileCheck tests, JIT integration tests against NumPy, the CLI contract,
# property tests) and a 60-s fuzz run per fuzz target.
# The last line is "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" || exit 1
"$root/scripts/build.sh" "$build" || exit 1

log=$(mktemp)
"$(llvm-config-22 --bindir)/lit" -sv --time-tests "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# Fuzzing (docs/reliability-fuzzing.md): build-fuzz-ci, 60 s per target; a
# crash or a failed fuzz build counts as one failed test, a clean run as
# one passed.
fuzz_failed=0
"$root/scripts/fuzz.sh" --ci 60 || { fuzz_failed=1; status=1; }
# lit's summary lines look like "  Passed           : 41 (95.35%)".
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -1; }
num() { local n; n=$(count "$1"); echo "${n:-0}"; }
passed=$(( $(num Passed) + $(num "Expectedly Failed") ))
nfail=$(( $(num Failed) + $(num "Unexpectedly Passed") + $(num Unresolved) + $(num "Timed Out") ))
rm -f "$log"
passed=$((passed + 1 - fuzz_failed))
nfail=$((nfail + fuzz_failed))
if [ "$nfail" -eq 0 ] && [ "$status" -ne 0 ]; then nfail=1; fi
echo "${passed} passed, ${nfail} failed"
exit "$status"
