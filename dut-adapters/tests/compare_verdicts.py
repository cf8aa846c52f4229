#!/usr/bin/env python3
"""Runs a suite with --dut reference and with --dut plugin:PLUGIN and requires the same result for
every case: verdict, reason, each check's verdict, and byte-identical evidence pcaps.

usage: compare_verdicts.py MROCE_CTS PLUGIN SUITE WORK_DIR [SEED] [JOBS]
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    cts, plugin, suite, work = argv[1:5]
    seed = argv[5] if len(argv) > 5 else "1"
    jobs = argv[6] if len(argv) > 6 else "2"
    shutil.rmtree(work, ignore_errors=True)
    reports = {}
    for side, dut in (("reference", "reference"), ("plugin", "plugin:" + plugin)):
        out = os.path.join(work, side)
        p = subprocess.run([cts, "run", "--suite", suite, "--dut", dut, "--seed", seed, "--jobs", jobs, "--quiet",
                            "--out", out], capture_output=True, text=True)
        print(f"--dut {dut}: exit {p.returncode}\n{p.stdout}")
        path = os.path.join(out, "report.json")
        if p.returncode > 1 or not os.path.exists(path):
            print(f"mroce-cts run --dut {dut} failed (exit {p.returncode}):\n{p.stdout}\n{p.stderr}", file=sys.stderr)
            return 1
        with open(path) as f:
            reports[side] = json.load(f)
    ref, plug = reports["reference"]["tests"], reports["plugin"]["tests"]
    if len(ref) != len(plug) or not ref:
        print(f"reference ran {len(ref)} cases, the plugin {len(plug)}", file=sys.stderr)
        return 1

    def sha(path):
        if not os.path.exists(path):
            return "missing"
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    diffs = []
    for r, p in zip(ref, plug):
        for key in ("id", "verdict", "reason"):
            if r.get(key) != p.get(key):
                diffs.append(f"{r['id']}: {key}: reference {r.get(key)!r} vs plugin {p.get(key)!r}")
        pchecks = p.get("checks", [])
        for i, c in enumerate(r.get("checks", [])):
            pv = pchecks[i]["verdict"] if i < len(pchecks) else None
            if c["verdict"] != pv:
                diffs.append(f"{r['id']}: check {c['check']}: reference {c['verdict']} vs plugin {pv}")
        for ev in r.get("evidence", []):
            if ev.endswith(".pcap") and os.path.exists(os.path.join(work, "reference", ev)):
                if sha(os.path.join(work, "reference", ev)) != sha(os.path.join(work, "plugin", ev)):
                    diffs.append(f"{r['id']}: {ev} differs (the plugin's frames are not the reference's)")
    if diffs:
        print("the plugin's results differ from the in-process reference:\n  " + "\n  ".join(diffs), file=sys.stderr)
        return 1
    print(f"{len(ref)} cases: the example plugin gives the same verdicts, checks and pcaps as --dut reference")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
