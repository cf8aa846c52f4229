#!/usr/bin/env bash
# Builds mroce-cts and runs every test (GoogleTest and pytest, all registered with ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/ci/build.sh" "$@"
ctest --test-dir "$build" --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 600
