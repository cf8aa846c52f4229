"""Keeps docs/spec/clauses.json in sync with the clause lines of the spec Markdown.

Stdlib + pytest only. The Markdown is parsed twice: by ci/gen_clause_catalog.py (the generator)
and by the small independent parser below, so a bug in one does not hide drift.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.path.join(REPO, "docs", "spec")
CATALOG = os.path.join(SPEC_DIR, "clauses.json")
GENERATOR = os.path.join(REPO, "ci", "gen_clause_catalog.py")

ID_RE = re.compile(r"^MROCE-[A-Z]{2,5}-\d{3}$")
LINE_RE = re.compile(r"^- \*\*(MROCE-[A-Z]{2,5}-\d{3})\*\* \((MUST|SHOULD|MAY)\) \S")
LOOSE_RE = re.compile(r"^\s*[-*+]\s+\**\s*MROCE")
SECTION_RE = re.compile(r"^##\s+(\d+\.\d+)\s")


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_clause_catalog", GENERATOR)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def independent_parse(files):
    """files: {name: text}. Returns (list of (id, level, section, file), list of malformed lines)."""
    found, bad = [], []
    for name in sorted(files):
        section, fence = None, False
        for n, line in enumerate(files[name].splitlines(), 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            m = SECTION_RE.match(line)
            if m:
                section = m.group(1)
                continue
            if LOOSE_RE.match(line):
                m = LINE_RE.match(line)
                if m:
                    found.append((m.group(1), m.group(2), section, name))
                else:
                    bad.append("%s:%d" % (name, n))
    return found, bad


def spec_files():
    out = {}
    for name in os.listdir(SPEC_DIR):
        if name.endswith(".md") and name != "wire-format-decisions.md":
            with open(os.path.join(SPEC_DIR, name), encoding="utf-8") as f:
                out[name] = f.read()
    return out


def sync_problems(md_clauses, catalog):
    """Independent comparison: messages for every id/level/section/file mismatch or duplicate."""
    problems = []
    md_ids = [c[0] for c in md_clauses]
    cat = catalog["clauses"]
    cat_ids = [c["id"] for c in cat]
    for ids, where in ((md_ids, "Markdown"), (cat_ids, "clauses.json")):
        dups = sorted({i for i in ids if ids.count(i) > 1})
        problems += ["duplicate id %s in %s" % (d, where) for d in dups]
        problems += ["malformed id %r in %s" % (i, where) for i in ids if not ID_RE.match(str(i))]
    md = {c[0]: c for c in md_clauses}
    by_id = {c["id"]: c for c in cat}
    problems += ["%s in Markdown but not in clauses.json" % i for i in sorted(set(md) - set(by_id))]
    problems += ["%s in clauses.json but not in Markdown" % i for i in sorted(set(by_id) - set(md))]
    for i in sorted(set(md) & set(by_id)):
        _, level, section, name = md[i]
        for key, want in (("level", level), ("section", section), ("file", name)):
            if by_id[i].get(key) != want:
                problems.append("%s: %s is %r in Markdown, %r in clauses.json" % (i, key, want, by_id[i].get(key)))
    numbers = {}
    for i in md_ids:
        area, num = i.rsplit("-", 1)
        numbers.setdefault(area, []).append(num)
    for area, nums in numbers.items():
        for num in sorted({x for x in nums if nums.count(x) > 1}):
            problems.append("area %s: number %s used more than once" % (area, num))
    return problems


@pytest.fixture(scope="module")
def catalog():
    with open(CATALOG, encoding="utf-8") as f:
        return json.load(f)


def test_catalog_header_and_order(catalog):
    assert catalog["spec"] == "MetaRoCE"
    assert catalog["version"] == "0.1"
    ids = [c["id"] for c in catalog["clauses"]]
    assert ids == sorted(ids), "clauses.json must be sorted by id"
    for c in catalog["clauses"]:
        assert set(c) == {"id", "level", "summary", "section", "file"}, c
        assert c["level"] in ("MUST", "SHOULD", "MAY"), c
        assert re.match(r"^\d+\.\d+$", c["section"]), c
        assert c["file"].startswith(c["section"].split(".")[0].zfill(2) + "-"), c
        assert c["summary"] and "\n" not in c["summary"], c


def test_markdown_and_catalog_in_sync(catalog):
    md_clauses, malformed = independent_parse(spec_files())
    assert not malformed, "malformed clause lines: %s" % malformed
    assert md_clauses, "no clauses found in docs/spec"
    problems = sync_problems(md_clauses, catalog)
    assert not problems, "\n".join(problems)


def test_generator_parse_is_clean_and_agrees(catalog):
    gen = load_generator()
    clauses, errors = gen.parse_spec_dir(SPEC_DIR)
    assert not errors, "\n".join(errors)
    assert not gen.compare_catalog(clauses, catalog)
    assert gen.render(gen.build_catalog(clauses)) == gen.render(catalog)


def test_generator_check_mode_passes():
    r = subprocess.run([sys.executable, GENERATOR, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- negative self-checks: the checks above must be able to fail ----

SYNTH = """# 7. Paths
## 7.1 Ids
- **MROCE-PATH-001** (MUST) A sender MUST do a.
- **MROCE-PATH-002** (SHOULD) A sender SHOULD do b.
"""


def test_self_check_detects_missing_and_extra_ids():
    md, bad = independent_parse({"07-paths.md": SYNTH})
    assert not bad
    cat = {"clauses": [{"id": "MROCE-PATH-001", "level": "MUST", "section": "7.1", "file": "07-paths.md"},
                       {"id": "MROCE-PATH-003", "level": "MAY", "section": "7.1", "file": "07-paths.md"}]}
    problems = sync_problems(md, cat)
    assert "MROCE-PATH-002 in Markdown but not in clauses.json" in problems
    assert "MROCE-PATH-003 in clauses.json but not in Markdown" in problems
    gen = load_generator()
    clauses, errors, _ = gen.parse_markdown("07-paths.md", SYNTH)
    assert not errors
    msgs = gen.compare_catalog(clauses, dict(cat, spec="MetaRoCE", version="0.1"))
    assert any("MROCE-PATH-002 is in 07-paths.md but not in clauses.json" in m for m in msgs)
    assert any("MROCE-PATH-003 is in clauses.json but not in the Markdown" in m for m in msgs)


def test_self_check_detects_level_and_section_drift():
    md, _ = independent_parse({"07-paths.md": SYNTH})
    cat = {"clauses": [{"id": "MROCE-PATH-001", "level": "SHOULD", "section": "7.1", "file": "07-paths.md"},
                       {"id": "MROCE-PATH-002", "level": "SHOULD", "section": "7.2", "file": "07-paths.md"}]}
    problems = sync_problems(md, cat)
    assert any(p.startswith("MROCE-PATH-001: level") for p in problems)
    assert any(p.startswith("MROCE-PATH-002: section") for p in problems)


def test_self_check_detects_duplicates_and_malformed_ids():
    text = SYNTH + "- **MROCE-PATH-001** (MAY) A sender MAY do c.\n- **MROCE-PATH-01** (MUST) broken MUST.\n"
    md, bad = independent_parse({"07-paths.md": text})
    assert bad == ["07-paths.md:6"]
    problems = sync_problems(md, {"clauses": []})
    assert "duplicate id MROCE-PATH-001 in Markdown" in problems
    assert "area MROCE-PATH: number 001 used more than once" in problems
    gen = load_generator()
    clauses, errors, _ = gen.parse_markdown("07-paths.md", text)
    errors += gen.check_ids(clauses, [])
    assert any("malformed clause line" in e for e in errors)
    assert any("duplicate clause id MROCE-PATH-001" in e for e in errors)


def test_self_check_detects_bad_level_keyword_and_dangling_reference():
    gen = load_generator()
    text = ("# 7. Paths\n## 7.1 Ids\n"
            "- **MROCE-PATH-001** (MAY) A sender MUST do a.\n"
            "- **MROCE-PATH-002** (MUST) As MROCE-PATH-099 says, a sender MUST do b.\n")
    clauses, errors, refs = gen.parse_markdown("07-paths.md", text)
    errors += gen.check_ids(clauses, refs)
    assert any("MROCE-PATH-001 is marked MAY but its strongest key word is MUST" in e for e in errors)
    assert any("undefined clause MROCE-PATH-099" in e for e in errors)
