#!/usr/bin/env bash
# The release gate of docs/ci-gating.md: the same steps in GitHub Actions, GitLab CI, Jenkins and on a
# laptop. Run from the repository root after the build (ci/build.sh).
#
#   ci/release-gate.sh shard I N [RUN ARGS...]  run shard I of N into $RUNS/shard-I (any --dut,
#                                               --expectations, --seed ... pass through to `run`)
#   ci/release-gate.sh merge                    merge $RUNS/shard-* into $RUNS/merged
#   ci/release-gate.sh gate [BASELINE]          judge $RUNS/merged: exit 0 only when the run is
#                                               complete and whole (not partial), has no unexpected
#                                               result and no expired waiver, and (with BASELINE, a
#                                               run directory or report.json) no regression and no
#                                               case missing against it
#
# $RUNS defaults to runs/, $MROCE_CTS to build/harness/cli/mroce-cts. A shard's own exit status 1
# (unexpected results) or 3 (harness errors) does not fail its job: the gate judges every result of
# the merged run at once, so one job shows them all; 2 (bad flags, suite or waivers file) does.
set -uo pipefail
CTS=${MROCE_CTS:-build/harness/cli/mroce-cts}
RUNS=${RUNS:-runs}
PY=/usr/bin/python3
die() { echo "release-gate: error: $*" >&2; exit 2; }
[ -x "$CTS" ] || die "mroce-cts not found at $CTS (build first: ci/build.sh; or set MROCE_CTS)"

cmd=${1:-}
shift || true
case "$cmd" in
  shard)
    [ $# -ge 2 ] || die "usage: ci/release-gate.sh shard I N [RUN ARGS...]"
    i=$1 n=$2
    shift 2
    [[ "$i" =~ ^[0-9]+$ && "$n" =~ ^[0-9]+$ && $i -ge 1 && $i -le $n ]] || die "shard '$i' of '$n': want 1 <= I <= N"
    mkdir -p "$RUNS" || die "cannot create $RUNS"
    "$CTS" run -q --shard "$i/$n" --out "$RUNS/shard-$i" "$@"
    rc=$?
    case $rc in
      0|1|3) [ -f "$RUNS/shard-$i/report.json" ] || die "shard $i/$n wrote no report.json (exit $rc)"
             echo "release-gate: shard $i/$n done (run exit $rc; judged by 'gate')"; exit 0 ;;
      *) echo "release-gate: shard $i/$n: mroce-cts run exited $rc (usage or configuration error above)" >&2; exit "$rc" ;;
    esac ;;
  merge)
    shopt -s nullglob
    shards=("$RUNS"/shard-*)
    [ ${#shards[@]} -gt 0 ] || die "no shard runs under $RUNS/ (run 'ci/release-gate.sh shard I N' first)"
    rm -rf "$RUNS/merged"
    exec "$CTS" merge --out "$RUNS/merged" "${shards[@]}" ;;
  gate)
    [ -f "$RUNS/merged/report.json" ] || die "no $RUNS/merged/report.json (run 'ci/release-gate.sh merge' first)"
    "$PY" - "$RUNS/merged/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
bad = []
if r.get("incomplete"):
    bad.append("the run was interrupted (incomplete)")
if s.get("partial"):
    bad += ["partial run: " + why for why in s.get("partial_reasons", [])] or ["partial run"]
if s.get("unexpected", 0):
    ids = [t["id"] for t in r["tests"] if t["verdict"] in ("fail", "inconclusive", "error")
           and t.get("expectation", "none") in ("none", "mismatch")]
    bad.append("%d unexpected result(s): %s" % (s["unexpected"], ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")))
if s.get("expired_waivers", 0):
    ids = [t["id"] for t in r["tests"] if t.get("expectation") == "expired-waiver"]
    bad.append("%d expired waiver(s): %s (renew or remove them)" % (s["expired_waivers"], ", ".join(ids[:10])))
print("release-gate: %s: %d cases, pass %d fail %d inconclusive %d error %d skip %d, expected %d, MUST %d/%d, %s" % (
    r["dut"]["identity"], s["total"], s["pass"], s["fail"], s["inconclusive"], s["error"], s["skip"],
    s.get("expected", 0), s["must_pass"], s["must_total"], "CONFORMANT" if s["conformant"] else "not conformant"))
if s.get("unexpected_pass", 0):
    print("release-gate: note: %d case(s) passed against a waiver (remove it)" % s["unexpected_pass"])
for b in bad:
    print("release-gate: FAIL: " + b)
sys.exit(1 if bad else 0)
PY
    rc=$?
    [ $rc -le 1 ] || exit 2
    if [ $# -ge 1 ]; then
      "$CTS" diff "$1" "$RUNS/merged"
      drc=$?
      [ $drc -le 1 ] || exit 2
      [ $drc = 0 ] || rc=1
    fi
    echo "release-gate: junit $RUNS/merged/junit.xml, report $RUNS/merged/report.html"
    [ $rc = 0 ] && echo "release-gate: PASS" || echo "release-gate: FAIL"
    exit $rc ;;
  *) die "usage: ci/release-gate.sh shard I N [RUN ARGS...] | merge | gate [BASELINE]" ;;
esac
