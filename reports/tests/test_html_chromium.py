"""report.html rendered by a real browser: headless Chromium (Debian's `chromium`) loads a report that
mroce-cts wrote for a real run (a passing case and a failing one), the rendered DOM holds the verdicts,
the clause matrix and the inline SVG plots, a screenshot is produced, and Chromium's network log shows
that the page fetched nothing (every request the page made is file://)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CTS = os.environ.get("MROCE_CTS")
SRC = Path(os.environ.get("MROCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(not CTS or not Path(CTS).exists(), reason="MROCE_CTS (mroce-cts binary) not set")

# Chromium's own background traffic (updates, sync, time) is switched off where it can be; what is
# left carries no page as its network isolation key and is ignored below.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
         "--disable-extensions", "--hide-scrollbars"]


def chromium(args, tmp_path):
    assert CHROMIUM, "chromium is not installed (ci/install-deps.sh installs it)"
    env = dict(os.environ, HOME=str(tmp_path))  # a private profile directory
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180, env=env)


def page_fetches(netlog):
    """URLs the page itself requested (not file://), from a Chromium net-log JSON."""
    d = json.loads(netlog.read_text())
    start = d["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    out = []
    for e in d["events"]:
        p = e.get("params", {})
        if e["type"] == start and "file://" in p.get("network_isolation_key", "") and not p["url"].startswith("file:"):
            out.append(p["url"])
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    suite = SRC / "harness" / "cli" / "testdata" / "run-suite"
    # go_back_n fails the exact-retransmission case, so the report shows a failure with packet dumps.
    p = subprocess.run([CTS, "run", "--suite", str(suite), "--dut", "reference:quirk=go_back_n", "--out", str(out),
                        "--quiet", "--catalog", str(SRC / "docs" / "spec" / "clauses.json")],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    return out


def test_chromium_renders_the_report(run_dir, tmp_path):
    report = json.loads((run_dir / "report.json").read_text())
    r = chromium(["--dump-dom", (run_dir / "report.html").resolve().as_uri()], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    dom = r.stdout
    assert "NOT CONFORMANT" in dom
    for t in report["tests"]:
        assert t["id"] in dom
    assert "MROCE-LOSS-001" in dom  # the clause matrix
    assert dom.count("<svg") >= 1  # the plots are inline SVG, rendered into the DOM
    assert "retransmissions-equal-losses" in dom


def test_chromium_screenshot_and_no_network(run_dir, tmp_path):
    shot = tmp_path / "report.png"
    netlog = tmp_path / "net.json"
    r = chromium([f"--screenshot={shot}", "--window-size=1280,2400", f"--log-net-log={netlog}",
                  (run_dir / "report.html").resolve().as_uri()], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000  # a rendered page, not a blank one
    assert page_fetches(netlog) == [], "report.html must be self-contained"


def test_netlog_filter_sees_a_page_fetch(tmp_path):
    """The no-network assertion can fail: a page with a remote image is caught."""
    page = tmp_path / "remote.html"
    page.write_text('<html><body><img src="http://example.invalid/x.png"></body></html>')
    netlog = tmp_path / "net.json"
    r = chromium([f"--log-net-log={netlog}", "--dump-dom", page.resolve().as_uri()], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert page_fetches(netlog) == ["http://example.invalid/x.png"]
