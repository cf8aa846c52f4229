#!/usr/bin/env bash
# The main job: install the Debian packages, build, and run the whole bundled suite against the
# bundled reference endpoint in the simulated fabric, writing the report to ${OUT:-mroce-run}/.
# Extra arguments go to `mroce-cts run` (e.g. --dut rocev2, --filter 'loss.*', --seed 7).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/ci/install-deps.sh"
"$root/ci/build.sh"
out=${OUT:-mroce-run}
"$root/build/harness/cli/mroce-cts" run --suite "$root/testcases" --out "$out" "$@"
