"""docs/ci-gating.md as written: ci/release-gate.sh shards, merges and gates a run the way the
GitHub Actions, GitLab CI and Jenkins recipes call it; the recipes parse and call only its steps;
junit.xml validates against the JUnit schema of Jenkins' xunit plugin. Needs the built mroce-cts
(MROCE_BUILD_DIR, set by ctest)."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "ci-gating.md"
GATE = REPO / "ci" / "release-gate.sh"
XSD = REPO / "ci" / "schemas" / "junit-10.xsd"
_build = os.environ.get("MROCE_BUILD_DIR")
CTS = pathlib.Path(_build) / "harness" / "cli" / "mroce-cts" if _build else None

needs_cts = pytest.mark.skipif(CTS is None or not CTS.exists(), reason="mroce-cts not built (MROCE_BUILD_DIR)")
QUIRK = "reference:quirk=go_back_n"


def blocks(markdown, lang):
    return re.findall(r"^```%s\n(.*?)^```" % re.escape(lang), markdown, flags=re.S | re.M)


def gate(runs, *args, check=None):
    env = dict(os.environ, RUNS=str(runs), MROCE_CTS=str(CTS))
    p = subprocess.run(["bash", str(GATE), *args], cwd=REPO, env=env, capture_output=True, text=True)
    if check is not None:
        assert p.returncode == check, "release-gate %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr)
    return p


def sharded(runs, n, *run_args, shards=None):
    for i in shards or range(1, n + 1):
        gate(runs, "shard", str(i), str(n), "-j", "1", *run_args, check=0)
    gate(runs, "merge", check=0)


def xmllint(path):
    return subprocess.run(["xmllint", "--noout", "--schema", str(XSD), str(path)], capture_output=True, text=True)


def test_the_recipes_parse_and_call_only_the_gate_steps():
    doc = DOC.read_text()
    yamls = blocks(doc, "yaml")
    assert len(yamls) == 3  # waivers, GitHub Actions, GitLab CI
    calls = []
    for b in yamls:
        yaml.safe_load(b)  # each block is valid YAML
        calls += re.findall(r"ci/release-gate\.sh ([a-z]+)", b)
    (groovy,) = blocks(doc, "groovy")
    assert groovy.count("{") == groovy.count("}")
    calls += re.findall(r"ci/release-gate\.sh ([a-z]+)", groovy)
    assert set(calls) == {"shard", "merge", "gate"}, calls
    gh = yaml.safe_load(yamls[1])
    assert gh["jobs"]["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3]
    gl = yaml.safe_load(yamls[2])
    assert gl["shard"]["parallel"] == 3 and gl["gate"]["artifacts"]["reports"]["junit"] == "runs/merged/junit.xml"
    # The waivers example is a valid expectations file for mroce-cts (checked by the run below).
    assert yaml.safe_load(yamls[0])["expectations"][0]["expires"]


@needs_cts
def test_the_laptop_block_runs_as_written(tmp_path):
    (block,) = blocks(DOC.read_text(), "sh")
    runs = tmp_path / "runs"
    # As written, except that the build is already done (ctest built it) and runs/ goes to tmp_path.
    script = block.replace("./ci/build.sh\n", "").replace("rm -rf runs", 'rm -rf "$RUNS"')
    env = dict(os.environ, RUNS=str(runs), MROCE_CTS=str(CTS))
    p = subprocess.run(["bash", "-e", "-c", script], cwd=REPO, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "release-gate: PASS", p.stdout
    assert "CONFORMANT" in p.stdout
    report = json.loads((runs / "merged" / "report.json").read_text())
    assert report["selection"]["shards"] == [1, 2, 3] and not report["summary"]["partial"]
    lint = xmllint(runs / "merged" / "junit.xml")
    assert lint.returncode == 0, lint.stderr


@needs_cts
def test_a_failing_dut_gates_until_waived_and_again_when_the_waiver_expires(tmp_path):
    runs = tmp_path / "runs"
    sharded(runs, 2, "--dut", QUIRK)
    p = gate(runs, "gate", check=1)
    assert "unexpected result(s)" in p.stdout and p.stdout.strip().endswith("release-gate: FAIL"), p.stdout
    assert xmllint(runs / "merged" / "junit.xml").returncode == 0  # failures in it, still valid
    failing = [t for t in json.loads((runs / "merged" / "report.json").read_text())["tests"]
               if t["verdict"] not in ("pass", "skip")]
    assert failing

    def waivers(expires):
        entries = [{"test": t["id"], "dut": QUIRK, "verdict": t["verdict"], "reason": "known: go-back-N (test)",
                    "expires": expires} for t in failing]
        path = tmp_path / ("waivers-%s.yaml" % expires)
        path.write_text(yaml.safe_dump({"expectations": entries}))
        return path

    shutil.rmtree(runs)
    sharded(runs, 2, "--dut", QUIRK, "--expectations", str(waivers("2099-12-31")))
    p = gate(runs, "gate", check=0)
    assert "not conformant" in p.stdout and "expected %d" % len(failing) in p.stdout, p.stdout

    shutil.rmtree(runs)
    sharded(runs, 2, "--dut", QUIRK, "--expectations", str(waivers("2001-01-01")))
    p = gate(runs, "gate", check=1)
    assert "expired waiver(s)" in p.stdout, p.stdout


@needs_cts
def test_a_missing_shard_and_a_regression_against_the_baseline_fail_the_gate(tmp_path):
    base = tmp_path / "base"
    sharded(base, 3)
    gate(base, "gate", check=0)
    missing = tmp_path / "missing"
    sharded(missing, 3, shards=[1, 3])
    p = gate(missing, "gate", check=1)
    assert "partial run" in p.stdout and "2" in p.stdout, p.stdout
    worse = tmp_path / "worse"
    sharded(worse, 3, "--dut", QUIRK, "--expectations", str(_waive_all(tmp_path, base, worse)))
    p = gate(worse, "gate", str(base / "merged"), check=1)
    assert "regression(s)" in p.stdout and "REGRESSION" in p.stdout.upper(), p.stdout
    p = gate(worse, "gate", check=0)  # waived, so only the baseline catches it


def _waive_all(tmp_path, base, scratch):
    """Waivers for every non-pass result of the quirk, from one unsharded run of it."""
    probe = tmp_path / "probe"
    subprocess.run([str(CTS), "run", "-q", "--dut", QUIRK, "--out", str(probe)], capture_output=True)
    tests = json.loads((probe / "report.json").read_text())["tests"]
    entries = [{"test": t["id"], "dut": QUIRK, "verdict": t["verdict"], "reason": "known (test)", "expires": "2099-12-31"}
               for t in tests if t["verdict"] not in ("pass", "skip")]
    path = tmp_path / "waive-all.yaml"
    path.write_text(yaml.safe_dump({"expectations": entries}))
    return path


def test_bad_steps_name_what_is_wrong(tmp_path):
    env = dict(os.environ, RUNS=str(tmp_path / "none"), MROCE_CTS=str(CTS or "/nonexistent"))
    for args, want in ((["shard", "4", "3"], "want 1 <= I <= N"), (["merge"], "no shard runs"),
                       (["gate"], "merged/report.json"), (["frobnicate"], "usage")):
        if CTS is None or not CTS.exists():
            want = "mroce-cts not found"
        p = subprocess.run(["bash", str(GATE), *args], cwd=REPO, env=env, capture_output=True, text=True)
        assert p.returncode == 2 and want in p.stderr, (args, p.stderr)
