#!/usr/bin/env bash
# Configures and builds mroce-cts into ${BUILD_DIR:-build} (extra CMake args pass through).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DPython3_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
ninja -C "$build" -j"${JOBS:-$(nproc)}"
