#!/usr/bin/env python3
"""Compares a live run's verdicts (report.json) with the simulation's, case by case.

usage: compare_live.py SIM_REPORT LIVE_REPORT [ID=REASON ...] [--expect ID=VERDICT:REASON ...] [--min-ran N]

A live case must give the simulation's verdict, except:
  - inconclusive where the live run said why it could not judge ("live DUT went unserved", "a
    starved host explains it": the DUT's timers fired during a stall, "not judged live", "not
    decidable", "never happened", "out of reach": the impairment took a segment up to the retry
    limit), the simulation having passed;
  - ID=REASON: a case whose verdict the wire itself may change (any verdict but error), printed with
    the reason;
  - --expect ID=VERDICT:REASON: a case that must give exactly VERDICT live, whatever the simulation
    says (e.g. a failure of the DUT's set-up the harness must report), and must not be skipped
    (inconclusive only when the host starved it, as any case may be, or, for an expected pass, when
    the live run said it could not judge a step: "not judged live", "not decidable").
Exit 0 when all agree, 1 when one does not (or fewer than --min-ran cases ran, default 30), 77 when
more than 3 cases were inconclusive because the host was too loaded ("live DUT went unserved", "a
starved host explains it": the verdicts given were right, but too few: not the DUT's failure nor the
harness's). "not decidable" is by design (a check no live run decides), not load: it never skips.
"""
import json
import sys


def main(argv):
    args, allowed, expected, min_ran = [], {}, {}, 30
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--expect", "--min-ran"):
            if i + 1 >= len(argv):
                print(f"compare_live.py: {a} needs a value", file=sys.stderr)
                return 2
            v = argv[i + 1]
            i += 2
            if a == "--min-ran":
                min_ran = int(v)
            else:
                cid, _, rest = v.partition("=")
                verdict, _, reason = rest.partition(":")
                expected[cid] = (verdict, reason)
            continue
        if len(args) < 2:
            args.append(a)
        else:
            cid, _, reason = a.partition("=")
            allowed[cid] = reason
        i += 1
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        sim = {t["id"]: t["verdict"] for t in json.load(f)["tests"]}
    with open(args[1]) as f:
        live = json.load(f)["tests"]
    ran = same = stalled = 0

    def starved(reason):
        # Every run of the case stalled, or failed after the DUT's own timers fired during a stall
        # long enough to fire them spuriously (run_case.cc): the host, not the DUT.
        return "live DUT went unserved" in reason or "a starved host explains it" in reason

    bad = []
    seen = set()
    for t in live:
        cid, verdict, reason = t["id"], t["verdict"], t.get("reason", "")
        seen.add(cid)
        if cid in expected:
            want, why = expected[cid]
            if verdict == want:
                print(f"  {cid}: {verdict} (simulation: {sim.get(cid)}), as expected: {why}")
                ran += 1
            elif verdict == "inconclusive" and starved(reason):
                stalled += 1  # starved in each run: not judged, as for every other case
                ran += 1
                print(f"  {cid}: inconclusive (host too loaded), expected {want}: {reason}")
            elif verdict == "inconclusive" and want == "pass" and ("not judged live" in reason or "not decidable" in reason):
                # As for any case whose simulation passes: the live run said why it could not judge
                # (a frame in an absent window that a DUT timer on the live RTT may have sent).
                ran += 1
                print(f"  {cid}: inconclusive (not judged live), expected {want}: {reason}")
            else:
                bad.append(f"{cid}: {verdict}, expected {want} ({why}): {reason}")
            continue
        if verdict == "skip":
            continue
        ran += 1
        s = sim.get(cid)
        if verdict == s:
            same += 1
        elif verdict == "inconclusive" and starved(reason):
            stalled += 1  # the host was too loaded in each of 3 runs: said so, not blamed on the DUT
            print(f"  {cid}: inconclusive (host too loaded): {reason}")
        elif verdict == "inconclusive" and s == "pass" and "not judged live" in reason:
            # a scripted step the live path's latency or a stall left undecided: said so, not blamed
            print(f"  {cid}: inconclusive (not judged live): {reason}")
        elif verdict == "inconclusive" and s == "pass" and "not decidable" in reason:
            # a check no live run decides (host queues, wall-clock RTO): said so; by design, not load
            print(f"  {cid}: inconclusive (not decidable live): {reason}")
        elif verdict == "inconclusive" and s == "pass" and "never happened" in reason:
            # the event a check judges did not occur live (the DUT's own timing): said so, no host load
            print(f"  {cid}: inconclusive (trigger not met live): {reason}")
        elif verdict == "inconclusive" and s == "pass" and "out of reach" in reason:
            # live timing let the impairment take one segment 8 times: the DUT gave up as the retry
            # limit requires (the completions check shows the 8 frames), so the case's aim was not met
            print(f"  {cid}: inconclusive (aim out of reach live): {reason}")
        elif cid in allowed and verdict != "error":
            print(f"  {cid}: {verdict} (simulation: {s}), allowed: {allowed[cid]}")
        else:
            bad.append(f"{cid}: {verdict}, simulation {s}: {reason}")
    for cid in expected:
        if cid not in seen:
            bad.append(f"{cid}: did not run (expected {expected[cid][0]})")
    for b in bad:
        print("FAIL: " + b)
    print(f"{ran} live-capable cases ran over the wire, {same} with the simulation's verdict")
    if bad or ran < min_ran:
        return 1
    if stalled > 3:
        print(f"{stalled} cases could not be judged on this host (too loaded)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
