"""Run a suite (or part of it) against a DUT from Python: the campaign library the CLI uses.

    >>> import mroce
    >>> report = mroce.run("testcases", dut="reference:quirk=go_back_n", filter="loss.*", jobs=2)
    >>> [(t["id"], t["verdict"]) for t in report["tests"]]  # doctest: +SKIP

``run`` returns the run's report.json as a dict (docs/report-schema.md): ``tests`` holds one dict
per case in id order (verdict, reason, checks, evidence, reproduce command...), ``summary`` the
totals, ``incomplete`` whether the run was stopped. The same seed gives the same verdicts as
``mroce-cts run`` with that seed, whatever ``jobs`` and ``shard``. Ctrl-C (SIGINT) or SIGTERM
while it runs stops it: the cases that finished come back and ``incomplete`` is True.
Configuration errors (unknown DUT kind, no case matching, a malformed case file or waivers file)
raise ValueError with the harness's message.
"""

import os

__all__ = ["run"]


def _module():
    from mroce import codec  # finds _mroce on PYTHONPATH or in $MROCE_BUILD_DIR/python
    if not codec.available():
        raise ImportError("_mroce is not built: %s" % codec.import_error)
    import _mroce
    if not getattr(_mroce, "HAVE_CAMPAIGN", False):
        raise ImportError("_mroce was built without the campaign library (harness/campaign)")
    return _mroce


def run(suite, dut="reference", seed=1, filter=None, shard=None, jobs=0, expectations=None,
        catalog=None, out=None, progress=None):
    """Run the cases of ``suite`` (a directory or one case file) against ``dut`` (``--dut`` syntax:
    "reference", "reference:quirk=NAME", "rocev2", "plugin:PATH.so", "process:COMMAND") with
    ``seed``. ``filter``: a case id glob; ``shard``: "I/N" or (I, N); ``jobs``: worker threads
    (0: one per core); ``expectations``: a waivers YAML file; ``catalog``: clauses.json (default:
    found next to the suite); ``out``: also write the run directory (report.json, junit.xml,
    report.html, evidence/) there; ``progress``: called with a dict (id, seed, verdict, reason,
    done, total) as each case finishes (an exception in it stops the run and is raised).
    Returns the report dict."""
    if isinstance(shard, (tuple, list)):
        shard = "%d/%d" % tuple(shard)
    return _module().run_campaign(
        os.fspath(suite), dut=dut, seed=seed, filter=filter or "", shard=shard or "", jobs=jobs,
        expectations=os.fspath(expectations) if expectations else "",
        catalog=os.fspath(catalog) if catalog else "", out=os.fspath(out) if out else "",
        progress=progress)
