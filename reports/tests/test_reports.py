"""Independent readers of mroce-cts reports (stdlib only): report.json validates against
docs/report.schema.json with a small validator written here (not the C++ one), junit.xml parses
with xml.etree, report.html parses with html.parser and fetches nothing (test_html_chromium.py renders it in headless Chromium)."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

CTS = os.environ.get("MROCE_CTS")
SRC = Path(os.environ.get("MROCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))

pytestmark = pytest.mark.skipif(not CTS or not Path(CTS).exists(), reason="MROCE_CTS (mroce-cts binary) not set")


def validate(schema, value, root, path="$"):
    """Errors of `value` against the JSON Schema subset the report schema uses."""
    errs = []
    if "$ref" in schema:
        errs += validate(root["$defs"][schema["$ref"].split("/")[-1]], value, root, path)
    t = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "boolean": bool}
    if t == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
        return errs + [f"{path}: not an integer"]
    if t == "number" and (not isinstance(value, (int, float)) or isinstance(value, bool)):
        return errs + [f"{path}: not a number"]
    if t in types and not isinstance(value, types[t]):
        return errs + [f"{path}: not {t}"]
    if "const" in schema and value != schema["const"]:
        errs.append(f"{path}: != {schema['const']}")
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r} not in enum")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errs.append(f"{path}: below minimum")
    if "minLength" in schema and isinstance(value, str) and len(value) < schema["minLength"]:
        errs.append(f"{path}: too short")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errs.append(f"{path}: too few items")
        for i, item in enumerate(value):
            if "items" in schema:
                errs += validate(schema["items"], item, root, f"{path}[{i}]")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errs.append(f"{path}: missing {key}")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                errs += validate(props[key], item, root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}.{key}: not allowed")
    return errs


def sample_report():
    def test(tid, verdict, level="MUST", **kw):
        t = {"id": tid, "title": f"title of {tid}", "clauses": [{"id": "MROCE-X-1", "level": level}], "level": level,
             "verdict": verdict, "reason": "" if verdict == "pass" else f"why {tid} <&>", "duration_s": 0.5,
             "seed": 7, "evidence": [f"evidence/{tid}.pcap"], "reproduce": f"mroce-cts run --filter {tid} --seed 7",
             "expectation": "none", "expectation_reason": "", "checks": [], "series": []}
        t.update(kw)
        return t
    check = {"check": "expect", "clauses": ["MROCE-X-1"], "verdict": "fail", "reason": "acknowledged",
             "mismatch": {"field": "ack.epsn", "expected": "1 (0x1)", "actual": "2 (0x2)"},
             "expected_packet": "ack.epsn = 1 (0x1)", "actual_packet": "ack.epsn = 2 (0x2)",
             "pcap": "evidence/b.fail.pcap", "where": "b.yaml:3", "packet_index": 2}
    return {
        "schema": "mroce-cts/report/v1", "suite_version": "0.1.0",
        "dut": {"identity": "reference", "description": ""}, "seed": 7,
        "started_at": "2025-01-01T00:00:00Z", "finished_at": "2025-01-01T00:01:00Z", "incomplete": False,
        "summary": {},  # Derived on read; the re-rendered files recompute it.
        "tests": [test("a.pass", "pass", series=[{"name": "cwnd", "unit": "bytes", "x_unit": "rtt",
                                                   "points": [[0, 1], [1, 2]]}]),
                  test("b.fail", "fail", checks=[check]), test("c.skip", "skip"), test("d.error", "error"),
                  test("e.waived", "fail", expectation="expected", expectation_reason="known")],
        "clauses": [],
    }


@pytest.fixture()
def run_dir(tmp_path):
    """A run directory produced by mroce-cts itself: merge of one hand-written shard."""
    shard = tmp_path / "shard"
    shard.mkdir()
    (shard / "report.json").write_text(json.dumps(sample_report()))
    out = tmp_path / "run"
    proc = subprocess.run([CTS, "merge", "--out", str(out), str(shard)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_report_json_validates(run_dir):
    schema = json.loads((SRC / "docs" / "report.schema.json").read_text())
    report = json.loads((run_dir / "report.json").read_text())
    assert validate(schema, report, schema) == []
    s = report["summary"]
    assert (s["total"], s["pass"], s["fail"], s["skip"], s["error"]) == (5, 1, 2, 1, 1)
    assert (s["must_total"], s["must_pass"], s["conformant"]) == (4, 1, False)
    assert [t["id"] for t in report["tests"]] == sorted(t["id"] for t in report["tests"])
    broken = dict(report, tests=[dict(report["tests"][0], verdict="passed")])
    assert validate(schema, broken, schema) != []


def test_junit_parses(run_dir):
    root = ET.parse(run_dir / "junit.xml").getroot()
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["a.pass", "b.fail", "c.skip", "d.error", "e.waived"]
    by = {c.get("name"): c for c in cases}
    assert by["a.pass"].find("failure") is None
    assert by["b.fail"].find("failure").get("message") == "why b.fail <&>"
    assert "expected: 1 (0x1) vs actual: 2 (0x2)" in by["b.fail"].find("failure").text
    assert by["c.skip"].find("skipped") is not None
    assert by["d.error"].find("error") is not None
    assert by["e.waived"].find("skipped").get("message") == "expected fail: known"
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("5", "1", "1", "2")


class _Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.external = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and re.match(r"^[a-z]+://", value):
                self.external.append(value)


def test_html_self_contained(run_dir):
    text = (run_dir / "report.html").read_text()
    p = _Collector()
    p.feed(text)
    assert "script" not in p.tags and "link" not in p.tags and "img" not in p.tags
    assert p.external == []
    assert "svg" in p.tags and "polyline" in p.tags
    assert "NOT CONFORMANT" in text and ">1/4<" in text
    before = text
    (run_dir / "report.html").unlink()
    assert subprocess.run([CTS, "report", str(run_dir)], capture_output=True).returncode == 0
    assert (run_dir / "report.html").read_text() == before
