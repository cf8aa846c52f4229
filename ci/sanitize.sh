#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the C++ unit tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$root/build-asan}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/ci/lsan.supp:print_suppressions=0}
# Python tests load the module into an uninstrumented interpreter: run them in the normal build only.
# The DPDK parts are built and tested too (the bridge parses every frame a DUT sends); the tests
# labelled "wire" (a live DUT over veth, which must keep real time) run in the normal build only.
"$root/ci/build.sh" -DMROCE_SANITIZE=ON -DMROCE_PYTHON=OFF -DMROCE_DPDK=ON -DCMAKE_BUILD_TYPE=Debug
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-$(nproc)}" --timeout 900 -LE "python|wire"
