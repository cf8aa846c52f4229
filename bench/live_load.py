#!/usr/bin/python3
"""Live verdicts under host load (issue 19, item 4): false FAILs and the inconclusive share.

Runs the suite against a live DUT (`--dut process:mroce-refd`, the bundled reference behind the
process protocol, on the wall clock) while 0, 1, 2, ... CPU hogs (`stress-ng --cpu N`) compete for the
host, and compares every live verdict with the verdict of the same case in the simulated fabric,
where the same endpoint is judged without any host in the way. The reference is conformant, so:

  false FAIL    a live fail/error where the simulation passed: the harness blamed the DUT for the
                host's load (goal: 0 at every load)
  inconclusive  the case was starved (rerun, then inconclusive) or its check was not decidable live:
                said so, not blamed (a share, no goal: it grows with the load by design)
  same          the simulation's verdict

Usage:
  bench/live_load.py --cts build/harness/cli/mroce-cts --refd build/dut-adapters/refd/mroce-refd \
      [--suite testcases] [--hogs 0,1,2] [--rounds 1 | --seeds 1,2,3,4,5] [--filter GLOB] [--out DIR]
      [--json FILE]

With --seeds, each load runs one round per seed (`mroce-cts run --seed S`), each compared with the
simulation of the same seed: a differential over seeds, not only over repetitions.

Prints one row per load and exits 1 when a false FAIL was seen (2 on a usage or setup error). A
benchmark, not a timed test: its figures depend on the machine; the ctest
mroce_live_under_load_test runs it with 2 hogs and asserts only the false-FAIL goal.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def die(msg):
    print("live_load: error: " + msg, file=sys.stderr)
    sys.exit(2)


def run_suite(cts, suite, out, extra, log):
    cmd = [cts, "run", "-q", "--suite", suite, "--out", out] + extra
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    report = os.path.join(out, "report.json")
    if not os.path.exists(report):
        die("%s wrote no report.json (exit %d; see %s)" % (" ".join(cmd), rc, log))
    with open(report) as f:
        return {t["id"]: t for t in json.load(f)["tests"]}


def start_hogs(n):
    if n == 0:
        return None
    # Its own session, so that ending it ends its workers too (by its pid only, never by name).
    return subprocess.Popen(["stress-ng", "--cpu", str(n), "--timeout", "3600s", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def stop_hogs(p):
    if p is None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cts", required=True, help="mroce-cts binary")
    ap.add_argument("--refd", required=True, help="mroce-refd binary (the live DUT)")
    ap.add_argument("--suite", default="testcases")
    ap.add_argument("--hogs", default="0,1,2", help="comma-separated CPU hog counts (stress-ng --cpu N)")
    ap.add_argument("--rounds", type=int, default=1, help="live runs of the suite per load")
    ap.add_argument("--seeds", default="", help="comma-separated run seeds: one round per seed per load (instead of --rounds)")
    ap.add_argument("--filter", default="", help="only cases whose id matches this glob")
    ap.add_argument("--out", default="", help="keep the runs here (default: a temporary directory, removed)")
    ap.add_argument("--json", default="", help="also write the figures as JSON here")
    a = ap.parse_args()
    try:
        hogs = [int(h) for h in a.hogs.split(",")]
    except ValueError:
        die("--hogs %r: expected comma-separated integers such as 0,1,2" % a.hogs)
    if any(h < 0 or h > 64 for h in hogs):
        die("--hogs %r: each count must be in 0..64" % a.hogs)
    if a.rounds < 1:
        die("--rounds %d: must be >= 1" % a.rounds)
    seeds = [None] * a.rounds  # None: mroce-cts's default seed
    if a.seeds:
        try:
            seeds = [int(x) for x in a.seeds.split(",")]
        except ValueError:
            die("--seeds %r: expected comma-separated integers such as 1,2,3,4,5" % a.seeds)
        if any(x < 0 for x in seeds):
            die("--seeds %r: each seed must be >= 0" % a.seeds)
    for path, what in ((a.cts, "--cts"), (a.refd, "--refd")):
        if not os.access(path, os.X_OK):
            die("%s %s: not an executable file" % (what, path))
    if any(hogs) and shutil.which("stress-ng") is None:
        die("stress-ng is not installed (apt-get install stress-ng; ci/install-deps.sh installs it)")
    out = a.out or tempfile.mkdtemp(prefix="mroce-live-load-")
    os.makedirs(out, exist_ok=True)
    filt = ["--filter", a.filter] if a.filter else []
    try:
        sims = {}
        for seed in sorted(set(seeds), key=lambda x: -1 if x is None else x):
            name = "sim" if seed is None else "sim-seed%d" % seed
            seed_arg = [] if seed is None else ["--seed", str(seed)]
            sims[seed] = run_suite(a.cts, a.suite, os.path.join(out, name), filt + seed_arg, os.path.join(out, name + ".log"))
        rows = []
        false_fails = []
        for h in hogs:
            for r, seed in enumerate(seeds, 1):
                sim = sims[seed]
                seed_arg = [] if seed is None else ["--seed", str(seed)]
                hog = start_hogs(h)
                try:
                    time.sleep(0.5 if hog else 0)  # let the hogs take the cores first
                    t0 = time.monotonic()
                    name = "hogs%d-r%d" % (h, r)
                    live = run_suite(a.cts, a.suite, os.path.join(out, name),
                                     filt + seed_arg + ["-j", "1", "--dut", "process:" + a.refd],
                                     os.path.join(out, name + ".log"))
                    secs = time.monotonic() - t0
                finally:
                    stop_hogs(hog)
                ran = same = inconclusive = starved = 0
                fails = []
                for cid, t in sorted(live.items()):
                    if t["verdict"] == "skip":
                        continue
                    ran += 1
                    want = sim[cid]["verdict"]
                    if t["verdict"] == want:
                        same += 1
                    elif t["verdict"] == "inconclusive":
                        inconclusive += 1
                        if "went unserved" in t.get("reason", ""):
                            starved += 1
                    elif t["verdict"] in ("fail", "error") and want == "pass":
                        fails.append("%s: %s (%s)" % (cid, t["verdict"], t.get("reason", "")))
                    else:
                        fails.append("%s: %s, simulation %s (%s)" % (cid, t["verdict"], want, t.get("reason", "")))
                false_fails += ["%d hog(s), round %d: %s" % (h, r, f) for f in fails]
                rows.append({"hogs": h, "round": r, "seed": seed, "cases": ran, "same": same, "inconclusive": inconclusive,
                             "starved": starved, "false_fails": len(fails), "seconds": round(secs, 2)})
        print("live verdicts under load: %s, DUT process:%s, %d round(s) per load%s" % (
            a.suite + (" (" + a.filter + ")" if a.filter else ""), os.path.basename(a.refd), len(seeds),
            ", one per seed" if a.seeds else ""))
        print("%-5s %-5s %5s %6s %6s %13s %8s %12s %8s" % ("hogs", "round", "seed", "cases", "same", "inconclusive",
                                                          "starved", "false FAILs", "seconds"))
        for w in rows:
            share = 100.0 * w["inconclusive"] / w["cases"] if w["cases"] else 0.0
            print("%-5d %-5d %5s %6d %6d %6d (%4.1f%%) %8d %12d %8.1f" % (
                w["hogs"], w["round"], "-" if w["seed"] is None else str(w["seed"]), w["cases"], w["same"],
                w["inconclusive"], share, w["starved"], w["false_fails"], w["seconds"]))
        for f in false_fails:
            print("false FAIL: " + f)
        print("goal: 0 false FAILs at every load: %s" % ("met" if not false_fails else "NOT met (%d)" % len(false_fails)))
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"suite": a.suite, "filter": a.filter, "rows": rows, "false_fails": false_fails}, f, indent=1)
        return 1 if false_fails else 0
    finally:
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
