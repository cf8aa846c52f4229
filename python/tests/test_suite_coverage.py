"""Clause coverage of the compliance suite (testcases/**/*.yaml).

Fails when a MUST clause of docs/spec/clauses.json has no case citing it, when SHOULD coverage drops
below 80 %, or when a case cites an unknown clause or the wrong level. Stdlib only: the case files'
`clauses:` lists are read with a minimal line reader (the suite writes them one flow mapping per
line, `  - {id: MROCE-XXX-NNN, level: MUST}`); python3-yaml is used instead when it is installed.
"""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUITE = ROOT / "testcases"
CATALOG = ROOT / "docs" / "spec" / "clauses.json"
SHOULD_MIN = 0.80

_CLAUSE_RE = re.compile(r"\{\s*id:\s*([A-Z0-9-]+)\s*,\s*level:\s*(MUST|SHOULD|MAY)\s*\}")


def _minimal_read(text):
    """id and top-level clauses of one case file, without a YAML library."""
    case_id, clauses, in_clauses = None, [], False
    for line in text.splitlines():
        if line.startswith("id:"):
            case_id = line.split(":", 1)[1].strip().strip('"')
        if re.match(r"^[A-Za-z_]+:", line):
            in_clauses = line.startswith("clauses:")
            m = re.match(r"^clauses:\s*\[(.*)\]\s*$", line)
            if m:
                clauses += _CLAUSE_RE.findall(m.group(1))
            continue
        if in_clauses:
            clauses += _CLAUSE_RE.findall(line)
    return case_id, clauses


def load_cases():
    try:
        import yaml  # python3-yaml, when present
    except ImportError:  # pragma: no cover - depends on the machine
        yaml = None
    cases = {}
    for path in sorted(SUITE.rglob("*.yaml")):
        if "schema" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if yaml is not None:
            doc = yaml.safe_load(text)
            cid = doc["id"]
            cl = [(c["id"], c["level"]) for c in doc.get("clauses", [])]
            for chk in doc.get("checks", []) or []:
                if isinstance(chk, dict):
                    cl += [(c["id"], c["level"]) for c in chk.get("clauses", [])]
        else:
            cid, cl = _minimal_read(text)
        assert cid, f"{path}: no id"
        assert cid not in cases, f"{path}: duplicate case id {cid}"
        cases[cid] = (path, cl)
    return cases


def catalog():
    return {c["id"]: c["level"] for c in json.loads(CATALOG.read_text())["clauses"]}


def coverage():
    cat = catalog()
    covered = {}
    for cid, (_, cl) in load_cases().items():
        for clause, _level in cl:
            covered.setdefault(clause, []).append(cid)
    return cat, covered


def test_suite_has_at_least_120_cases():
    assert len(load_cases()) >= 120


def test_cited_clauses_exist_with_their_level():
    cat = catalog()
    bad = []
    for cid, (path, cl) in load_cases().items():
        assert cl, f"{path}: cites no clause"
        for clause, level in cl:
            if clause not in cat:
                bad.append(f"{path}: unknown clause {clause}")
            elif cat[clause] != level:
                bad.append(f"{path}: {clause} is {cat[clause]}, cited as {level}")
    assert not bad, "\n".join(bad)


def test_every_must_clause_has_a_case():
    cat, covered = coverage()
    missing = sorted(c for c, lvl in cat.items() if lvl == "MUST" and c not in covered)
    assert not missing, f"MUST clauses without a case: {', '.join(missing)}"


def test_should_coverage_at_least_80_percent():
    cat, covered = coverage()
    should = [c for c, lvl in cat.items() if lvl == "SHOULD"]
    have = [c for c in should if c in covered]
    frac = len(have) / len(should) if should else 1.0
    missing = sorted(set(should) - set(have))
    assert frac >= SHOULD_MIN, f"SHOULD coverage {len(have)}/{len(should)} = {frac:.0%} < 80%; uncovered: {', '.join(missing)}"


def test_case_ids_match_their_folder():
    for cid, (path, _) in load_cases().items():
        assert cid.split(".")[0] == path.relative_to(SUITE).parts[0], f"{path}: id {cid} is not under its category folder"


if __name__ == "__main__":  # a quick report: python3 python/tests/test_suite_coverage.py
    cat, covered = coverage()
    for lvl in ("MUST", "SHOULD", "MAY"):
        ids = [c for c, l in cat.items() if l == lvl]
        have = [c for c in ids if c in covered]
        print(f"{lvl}: {len(have)}/{len(ids)}", "uncovered:", " ".join(sorted(set(ids) - set(have))))
