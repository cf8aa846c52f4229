#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -DMROCE_FUZZ=ON) and runs each for $FUZZ_SECONDS (default 30),
# seeding corpora from reference/wire/tests/vectors/*.hex. Exits non-zero if any fuzzer finds a crash.
# Env: FUZZ_SECONDS, BUILD_DIR (default build-fuzz), FUZZERS (default: all),
#      SOURCE_DIR (CMake source dir, default the repo root).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-fuzz}"
FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
FUZZERS="${FUZZERS:-fuzz_parse_frame fuzz_parse_meta fuzz_parse_roce fuzz_packet_info fuzz_process_line fuzz_wire_frame}"
CORPUS_ROOT="$BUILD_DIR/fuzz-corpus"
ARTIFACTS="$BUILD_DIR/fuzz-artifacts"

cmake -S "${SOURCE_DIR:-$ROOT}" -B "$BUILD_DIR" -G Ninja -DMROCE_FUZZ=ON -DMROCE_PYTHON=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD_DIR" $FUZZERS

# Seeds: whole frames for the frame parser, UDP payloads for the MetaRoCE / RoCEv2 parsers.
python3 - "$ROOT/reference/wire/tests/vectors" "$CORPUS_ROOT" <<'PY'
import pathlib, sys
vec, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
dirs = {k: out / k for k in ("fuzz_parse_frame", "fuzz_parse_meta", "fuzz_parse_roce", "fuzz_packet_info", "fuzz_wire_frame")}
for d in dirs.values():
    d.mkdir(parents=True, exist_ok=True)
n = 0
for f in sorted(vec.glob("*.hex")):
    for line in f.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        b = bytes.fromhex(line.strip())
        n += 1
        (dirs["fuzz_parse_frame"] / f"seed-{n}").write_bytes(b)
        (dirs["fuzz_packet_info"] / f"seed-{n}").write_bytes(b)
        (dirs["fuzz_wire_frame"] / f"seed-{n}").write_bytes(b)
        l3 = 18 if b[12:14] == b"\x81\x00" else 14
        if len(b) < l3 + 1:
            continue
        l4 = l3 + (20 if b[l3] >> 4 == 4 else 40)
        if len(b) < l4 + 8:
            continue
        ulen = int.from_bytes(b[l4 + 4:l4 + 6], "big")
        payload = b[l4 + 8:l4 + max(ulen, 8)]
        dport = int.from_bytes(b[l4 + 2:l4 + 4], "big")
        target = {4797: "fuzz_parse_meta", 4791: "fuzz_parse_roce"}.get(dport)
        if target:
            (dirs[target] / f"seed-{n}").write_bytes(payload)
print(f"seeded corpora from {n} vectors")
PY
# Control-channel lines a DUT process writes (replies and events).
mkdir -p "$CORPUS_ROOT/fuzz_process_line"
cp "$ROOT"/dut-adapters/fuzz/corpus/*.json "$CORPUS_ROOT/fuzz_process_line/"

mkdir -p "$ARTIFACTS"
status=0
for fz in $FUZZERS; do
  echo "=== $fz for ${FUZZ_SECONDS}s"
  bin=$(find "$BUILD_DIR" -type f -name "$fz" -perm -u+x | head -1)
  if ! "$bin" "$CORPUS_ROOT/$fz" \
      -max_total_time="$FUZZ_SECONDS" -max_len=9200 \
      -artifact_prefix="$ARTIFACTS/$fz-" -print_final_stats=1 2>"$BUILD_DIR/$fz.log"; then
    echo "!!! $fz failed; see $BUILD_DIR/$fz.log and $ARTIFACTS/"
    tail -40 "$BUILD_DIR/$fz.log"
    status=1
  else
    grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$BUILD_DIR/$fz.log" || tail -3 "$BUILD_DIR/$fz.log"
  fi
done
exit $status
