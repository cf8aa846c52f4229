"""The docs' command blocks and examples as written: the user guide's scripted-case example runs
against the reference, the adapter guide names files that exist, the suite-digest recipe of
docs/report-schema.md gives the digest mroce-cts writes. Needs the built mroce-cts
(MROCE_BUILD_DIR, set by ctest)."""
import json
import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
_build = os.environ.get("MROCE_BUILD_DIR")
CTS = pathlib.Path(_build) / "harness" / "cli" / "mroce-cts" if _build else None

needs_cts = pytest.mark.skipif(CTS is None or not CTS.exists(), reason="mroce-cts not built (MROCE_BUILD_DIR)")


def blocks(markdown, lang):
    """The fenced code blocks of `markdown` in language `lang`, in order."""
    return re.findall(r"^```%s\n(.*?)^```" % re.escape(lang), markdown, flags=re.S | re.M)


def section(markdown, heading):
    start = markdown.index(heading)
    end = markdown.find("\n#", start + len(heading))
    return markdown[start:end if end >= 0 else len(markdown)]


@needs_cts
def test_user_guide_scripted_example_runs_against_the_reference(tmp_path):
    guide = (DOCS / "user-guide.md").read_text()
    (script,) = [b for b in blocks(section(guide, "### Scripted cases"), "yaml") if "style: scripted" in b]
    assert "scapy:" in script
    case = tmp_path / "suite" / "guide-example.yaml"
    case.parent.mkdir()
    case.write_text('id: doc.user-guide.scripted-example\ntitle: the user guide\'s scripted example\n'
                    'clauses: [{id: MROCE-CRC-002, level: MUST}]\nrequires: [write]\n' + script)
    out = tmp_path / "run"
    p = subprocess.run([str(CTS), "run", "-q", "--suite", str(case.parent), "--catalog",
                        str(DOCS / "spec" / "clauses.json"), "--out", str(out)], capture_output=True, text=True)
    report = json.loads((out / "report.json").read_text())
    (t,) = report["tests"]
    assert t["verdict"] == "pass", json.dumps(t, indent=1) + p.stdout + p.stderr
    assert p.returncode == 0, p.stdout + p.stderr


def test_adapter_guide_names_files_that_exist():
    guide = (DOCS / "adapter-guide.md").read_text()
    assert "compare_verdicts.cmake" not in guide
    named = set()
    for block in blocks(guide, "sh"):
        named.update(re.findall(r"(?<![\w/$])((?:dut-adapters|docs|testcases|ci)/[\w./-]+\.(?:c|cc|py|h|yaml|md))", block))
    assert "dut-adapters/tests/compare_verdicts.py" in named
    assert "dut-adapters/examples/skeleton_plugin.c" in named
    for path in named:
        assert (REPO / path).exists(), path


@needs_cts
def test_report_schema_digest_recipe_matches_the_report(tmp_path):
    schema_doc = (DOCS / "report-schema.md").read_text()
    (recipe,) = [b for b in blocks(schema_doc, "sh") if "hashlib.sha256" in b]
    by_hand = subprocess.run(["bash", "-c", recipe], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    out = tmp_path / "run"
    subprocess.run([str(CTS), "run", "-q", "--suite", str(REPO / "testcases"), "--filter", "ack.immediate-on-ar",
                    "--out", str(out)], capture_output=True, text=True, check=True)
    report = json.loads((out / "report.json").read_text())
    assert report["suite_digest"] == by_hand
