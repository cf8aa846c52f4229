#!/usr/bin/env python3
"""Differential test of the harness redesign (issue 15): the whole suite must give the same verdicts,
the same checks and byte-identical evidence pcaps before and after.

  record: runs the suite for every (DUT, seed) below and writes the digest (JSON) to --golden.
  check:  runs the same and compares with --golden; prints every difference; exit 1 on any.

The digest holds, per run and case: the verdict, a digest of the checks (name and verdict of each,
in order) and a digest of the evidence pcaps (SHA-256 of each). Checks added since the golden was
recorded (LATER_CHECKS) are left out of both. Paths are made suite-relative so the digest does not depend on the checkout.
"""
import argparse
import hashlib
import json
import re
import os
import subprocess
import sys
import tempfile

SEEDS = [1, 2, 3]
# Checks added after the golden was recorded: left out of the check digest, and the case verdict is
# recomputed from the other checks (pcaps do not depend on checks), so the golden still guards
# what it recorded.
LATER_CHECKS = {"clause-monitor"}
RANK = {"skip": 0, "pass": 1, "inconclusive": 2, "fail": 3, "error": 4}


def runs(quirks):
    out = [("reference", s) for s in SEEDS] + [("rocev2", s) for s in SEEDS]
    out += [("reference:quirk=" + q, 1) for q in quirks]
    return out


def rel(text, suite):
    """A check name as the golden recorded it: case files as testcases/<file>. Reports before issue 18
    named them by absolute path, later ones relative to the suite ("expect@ack/x.yaml:12")."""
    text = text.replace(suite.rstrip("/") + "/", "testcases/")
    return re.sub(r"@(?!testcases/)(?=[\w.-]+/)", "@testcases/", text)


def short(obj):
    """A 16-hex-digit digest of a JSON value (the golden file stays small)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def digest_run(cts, suite, dut, seed, work):
    out = os.path.join(work, f"{dut.replace(':', '_').replace('=', '_')}-{seed}")
    cmd = [cts, "run", "--suite", suite, "--dut", dut, "--seed", str(seed), "--out", out, "-q", "-j", "2"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    cases = {}
    for t in report["tests"]:
        pcaps = {}
        for e in t.get("evidence", []):
            if e.endswith(".pcap"):
                with open(os.path.join(out, e), "rb") as f:
                    pcaps[e] = hashlib.sha256(f.read()).hexdigest()
        kept = [c for c in t.get("checks", []) if c["check"] not in LATER_CHECKS]
        checks = [[rel(c["check"], suite), c["verdict"]] for c in kept]
        verdict = t["verdict"]
        if kept and len(kept) != len(t.get("checks", [])):
            verdict = max((c["verdict"] for c in kept), key=lambda v: RANK[v])
        cases[t["id"]] = [verdict, short(checks), short(pcaps)]
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["record", "check"])
    ap.add_argument("--cts", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--golden", required=True)
    args = ap.parse_args()
    suite = os.path.realpath(args.suite)
    if args.mode == "record":
        sel = json.loads(subprocess.run([args.cts, "selftest", "--json", "--seeds", "1", "--suite", suite],
                                        stdout=subprocess.PIPE, text=True).stdout)
        quirks = [q["name"] if isinstance(q, dict) else q for q in sel["quirks"]]
    else:
        with open(args.golden) as f:
            golden = json.load(f)
        quirks = golden["quirks"]
    result = {"quirks": quirks, "runs": {}}
    with tempfile.TemporaryDirectory(prefix="mroce-redesign-") as work:
        for dut, seed in runs(quirks):
            result["runs"][f"{dut}@{seed}"] = digest_run(args.cts, suite, dut, seed, work)
    if args.mode == "record":
        with open(args.golden, "w") as f:
            json.dump(result, f, indent=0, sort_keys=True, separators=(",", ":"))
            f.write("\n")
        n = sum(len(r) for r in result["runs"].values())
        print(f"recorded {len(result['runs'])} runs, {n} case results -> {args.golden}")
        return 0
    diffs = []
    for key, want in golden["runs"].items():
        got = result["runs"].get(key, {})
        for cid in sorted(set(want) | set(got)):
            w, g = want.get(cid), got.get(cid)
            if w != g:
                what = "missing" if w is None or g is None else ", ".join(
                    n for n, a, b in zip(("verdict", "checks", "pcaps"), w, g) if a != b)
                diffs.append(f"{key} {cid}: {what} differ (before {w}, after {g})")
    n = sum(len(r) for r in golden["runs"].values())
    if diffs:
        print("\n".join(diffs[:400]))
        print(f"{len(diffs)} of {n} case results differ from {args.golden}")
        return 1
    print(f"all {n} case results ({len(golden['runs'])} runs) equal the recorded ones: verdicts, checks, pcaps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
