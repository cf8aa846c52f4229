"""mroce.run: campaigns from Python through the C++ campaign library (harness/campaign)."""

import json
import os
import pathlib
import signal

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SUITE = REPO / "harness" / "cli" / "testdata" / "run-suite"  # two small end-to-end cases


@pytest.fixture(scope="session")
def mroce_run(codec):
    import mroce
    import _mroce
    if not getattr(_mroce, "HAVE_CAMPAIGN", False):
        pytest.skip("_mroce built without the campaign library")
    return mroce.run


def stable(report):
    """The report without what legitimately differs between runs (wall-clock times)."""
    r = json.loads(json.dumps(report))
    r.pop("started_at", None)
    r.pop("finished_at", None)
    for t in r["tests"]:
        t.pop("duration_s", None)
    return r


def test_reference_passes_and_results_are_dicts(mroce_run):
    report = mroce_run(SUITE, jobs=2)
    assert report["schema"] == "mroce-cts/report/v1"
    assert report["incomplete"] is False
    assert report["dut"]["identity"] == "reference"
    assert [t["id"] for t in report["tests"]] == ["basic.ops.mixed", "loss.sack.exact-retransmit"]
    assert all(t["verdict"] == "pass" for t in report["tests"])
    assert report["summary"]["conformant"] is True
    t = report["tests"][1]
    assert t["seed"] == 1
    assert t["reproduce"].startswith("mroce-cts run --suite '%s' --filter 'loss.sack.exact-retransmit' --seed 1" % SUITE)
    assert t["reproduce"].endswith(" --out 'mroce-repro/loss.sack.exact-retransmit'")
    assert report["suite_digest"].startswith("sha256:") and len(report["suite_digest"]) == 7 + 64
    assert report["tool_version"].startswith("0.")
    assert {c["check"] for c in t["checks"]} >= {"completions", "data-intact"}


def test_same_seed_same_report_whatever_the_jobs(mroce_run):
    one = mroce_run(SUITE, seed=9, jobs=1)
    two = mroce_run(SUITE, seed=9, jobs=2)
    assert stable(one) == stable(two)


def test_shards_and_filter_select_cases(mroce_run):
    a = mroce_run(SUITE, shard="1/2")
    b = mroce_run(SUITE, shard=(2, 2))
    ids = [t["id"] for t in a["tests"]] + [t["id"] for t in b["tests"]]
    assert sorted(ids) == ["basic.ops.mixed", "loss.sack.exact-retransmit"]
    only = mroce_run(SUITE, filter="loss.*")
    assert [t["id"] for t in only["tests"]] == ["loss.sack.exact-retransmit"]


def test_a_quirk_fails_and_a_waiver_expects_it(mroce_run, tmp_path):
    report = mroce_run(SUITE, dut="reference:quirk=go_back_n", filter="loss.*")
    assert report["tests"][0]["verdict"] == "fail"
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("expectations:\n  - test: loss.sack.exact-retransmit\n    dut: 'reference:quirk=*'\n"
                       "    verdict: fail\n    reason: go-back-N on purpose\n    expires: 2999-12-31\n")
    waived = mroce_run(SUITE, dut="reference:quirk=go_back_n", filter="loss.*", expectations=waivers)
    assert waived["tests"][0]["expectation"] == "expected"


def test_out_writes_the_run_directory(mroce_run, tmp_path):
    report = mroce_run(SUITE, filter="loss.*", out=tmp_path / "run")
    for f in ("report.json", "junit.xml", "report.html", "evidence/loss.sack.exact-retransmit.pcap"):
        assert (tmp_path / "run" / f).exists(), f
    on_disk = json.loads((tmp_path / "run" / "report.json").read_text())
    assert stable(on_disk) == stable(report)


def test_configuration_errors_raise_value_error(mroce_run):
    with pytest.raises(ValueError, match="unknown kind 'nic9'"):
        mroce_run(SUITE, dut="nic9")
    with pytest.raises(ValueError, match="no case"):
        mroce_run(SUITE, filter="nothing.*")
    with pytest.raises(ValueError, match="shard '3/2'"):
        mroce_run(SUITE, shard="3/2")
    with pytest.raises(ValueError):
        mroce_run("/nonexistent/suite")


def test_progress_sees_each_case_as_it_finishes(mroce_run):
    seen = []
    report = mroce_run(SUITE, jobs=2, progress=seen.append)
    assert sorted(p["id"] for p in seen) == [t["id"] for t in report["tests"]]
    assert sorted(p["done"] for p in seen) == [1, 2]
    assert all(p["total"] == 2 and p["verdict"] == "pass" for p in seen)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_campaign_and_keeps_what_finished(mroce_run, sig):
    def interrupt(p):
        if p["done"] == 1:
            os.kill(os.getpid(), sig)

    report = mroce_run(SUITE, jobs=1, progress=interrupt)
    assert report["incomplete"] is True
    assert [t["id"] for t in report["tests"]] == ["basic.ops.mixed"]
    assert report["tests"][0]["verdict"] == "pass"
    # Python's own handlers are back.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_an_exception_in_progress_stops_the_run_and_is_raised(mroce_run):
    def boom(p):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        mroce_run(SUITE, jobs=1, progress=boom)
