#!/usr/bin/env bash
# Regenerates the dialect and pass reference in docs/generated/ from the
# TableGen spec (dialects/), through the build's mlir-doc target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
ninja -C "$build" mlir-doc
mkdir -p "$root/docs/generated"
cp "$build"/docs/Dialects/*.md "$build"/docs/Passes/*.md "$root/docs/generated/"
ls "$root/docs/generated"
