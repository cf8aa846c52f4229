"""Keeps docs/spec/clauses.json in sync with the clause lines of the spec Markdown, and the
degrees-of-freedom tables of chapter 19 in sync with the catalog and with the codec.

Stdlib + pytest (the codec tests use the `codec` fixture of conftest.py: they skip without _mroce).
The Markdown is parsed twice: by ci/gen_clause_catalog.py (the generator) and by the small
independent parsers below, so a bug in one does not hide drift. Three things are kept equal:
table 19.2 (Markdown), the catalog's "fields" (clauses.json) and the codec's fields
(_mroce.field_infos(), through the generator's CODEC_FIELDS list).
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
    assert catalog["version"] == "0.2"
    assert set(catalog) == {"spec", "version", "clauses", "fields", "choices"}
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
    clauses, fields, choices, errors = gen.load_spec(SPEC_DIR)
    assert not errors, "\n".join(errors)
    assert not gen.compare_catalog(clauses, catalog, fields, choices)
    assert gen.render(gen.build_catalog(clauses, fields, choices)) == gen.render(catalog)


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


# ---- degrees of freedom (chapter 19): table, catalog and codec ----

DOF_FILE = os.path.join(SPEC_DIR, "19-degrees-of-freedom.md")
FIELD_COLS = ["opcodes", "field", "status", "clauses", "constraint", "note"]
CHOICE_COLS = ["key", "choice", "status", "clauses", "bound"]
GROUPS = {  # section 19.1, written out independently of the generator
    "data": ["WRITE", "WRITE_IMM", "SEND", "SEND_IMM", "READ_REQ", "READ_RESP"],
    "cm": ["CONNECT_REQ", "CONNECT_ACK", "CONNECT_REJ", "DISCONNECT", "DISCONNECT_ACK"],
    "probe": ["PROBE", "PROBE_ACK"],
}
GROUPS["control"] = ["ACK", "NACK"] + GROUPS["cm"] + GROUPS["probe"]
GROUPS["all"] = GROUPS["data"] + GROUPS["control"]
EXT = dict([(o, "meh") for o in GROUPS["data"]] + [("ACK", "ack"), ("NACK", "nack")] +
           [(o, "cmh") for o in GROUPS["cm"]] + [(o, "prh") for o in GROUPS["probe"]])
TERM_RES = [re.compile(p) for p in (
    r"^range \S+\.\.\S+$", r"^oneof [0-9a-fx,]+$", r"^(nonzero|bit|segment|computed|order)$", r"^multiple \S+$",
    r"^=[0-9a-fx]+ if [a-z0-9_.]+=[0-9a-fx]+$", r"^relative [a-z0-9_.]+(,[a-z0-9_.]+)*$")]


def independent_dof_tables(text):
    """{kind: [cells, ...]} for the tables after '<!-- dof-table: KIND -->' (header checked)."""
    out, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^<!--\s*dof-table:\s*(\w+)\s*-->", line)
        if not m:
            continue
        rows = []
        for nxt in lines[i + 1:]:
            if not nxt.strip() and not rows:
                continue
            if not nxt.startswith("|"):
                break
            rows.append([c.strip().strip("`") for c in nxt.strip().strip("|").split("|")])
        out[m.group(1)] = rows
    return out


def expand(cell):
    ops = []
    for tok in [t.strip() for t in cell.split(",")]:
        ops += GROUPS.get(tok, [tok])
    return [o for o in GROUPS["all"] if o in ops]


def full_id(tok):
    tok = tok.strip()
    return tok if tok.startswith("MROCE-") else "MROCE-" + tok


@pytest.fixture(scope="module")
def dof_tables():
    with open(DOF_FILE, encoding="utf-8") as f:
        return independent_dof_tables(f.read())


def test_dof_tables_match_catalog(catalog, dof_tables):
    fields, choices = dof_tables["fields"], dof_tables["choices"]
    assert fields[0] == FIELD_COLS and choices[0] == CHOICE_COLS
    md_fields = [{"opcodes": expand(r[0]), "field": r[1], "status": r[2],
                  "clauses": [full_id(t) for t in r[3].split(",")], "constraint": r[4], "note": r[5]}
                 for r in fields[2:]]
    md_choices = [{"key": r[0], "choice": r[1], "status": r[2],
                   "clauses": [full_id(t) for t in r[3].split(",")], "bound": r[4]} for r in choices[2:]]
    assert md_fields == catalog["fields"]
    assert md_choices == catalog["choices"]


def test_dof_rows_are_well_formed(catalog):
    ids = {c["id"] for c in catalog["clauses"]}
    bad = []
    for r in catalog["fields"]:
        if r["status"] not in ("determined", "free", "constrained", "reserved"):
            bad.append("%s: status %s" % (r["field"], r["status"]))
        bad += ["%s: unknown clause %s" % (r["field"], c) for c in r["clauses"] if c not in ids]
        terms = [t.strip() for t in r["constraint"].split(";")] if r["constraint"] else []
        if r["status"] == "constrained":
            bad += ["%s: term %r" % (r["field"], t) for t in terms if not any(x.match(t) for x in TERM_RES)]
            if not terms:
                bad.append("%s: constrained without constraint" % r["field"])
        elif r["status"] == "determined":
            if terms and not re.match(r"^=[0-9a-fx]+$", terms[0]) or len(terms) > 1:
                bad.append("%s: determined constraint %r" % (r["field"], r["constraint"]))
        elif terms:
            bad.append("%s: %s field with a constraint" % (r["field"], r["status"]))
    keys = [c["key"] for c in catalog["choices"]]
    bad += ["duplicate choice %s" % k for k in sorted({k for k in keys if keys.count(k) > 1})]
    for c in catalog["choices"]:
        if c["status"] not in ("determined", "free", "constrained"):
            bad.append("choice %s: status %s" % (c["key"], c["status"]))
        bad += ["choice %s: unknown clause %s" % (c["key"], i) for i in c["clauses"] if i not in ids]
    assert not bad, "\n".join(bad)


def metaroce_codec_fields(codec):
    """{header: [field names]} of the codec's MetaRoCE headers, in wire order."""
    out = {}
    for f in codec.field_infos():
        if f["header"] in ("bth", "reth", "aeth", "imm"):
            continue
        out.setdefault(f["header"], []).append(f["name"])
    return out


def test_generator_codec_list_matches_codec(codec):
    gen = load_generator()
    infos = codec.field_infos()
    ours = [(h, n, w) for h, fs in gen.CODEC_FIELDS for n, w in fs]
    roce = [(h, n) for h, ns in gen.ROCE_FIELDS for n in ns]
    theirs = [(f["header"], f["name"], f["bit_width"]) for f in infos if f["header"] not in dict(gen.ROCE_FIELDS)]
    assert ours == theirs, "ci/gen_clause_catalog.py CODEC_FIELDS differs from _mroce.field_infos()"
    assert roce == [(f["header"], f["name"]) for f in infos if f["header"] in dict(gen.ROCE_FIELDS)]
    assert dict(gen.OPCODES) == dict(codec.OPCODES)
    assert [n for n, _ in gen.OPCODES] == sorted(codec.OPCODES, key=codec.OPCODES.get)
    # payload and crc are the frame-level keys a parsed frame carries besides header fields.
    frame = codec.serialize_frame({"ip4.src": bytes([10, 0, 0, 1]), "ch.opcode": 0x01, "payload": b"abcd"})
    keys = list(codec.parse_frame(frame))
    names = {f["name"] for f in infos}
    assert sorted(k for k in keys if k not in names) == sorted(n for n, _ in gen.FRAME_FIELDS)


def test_field_table_covers_every_codec_field_of_every_opcode(catalog, codec):
    headers = metaroce_codec_fields(codec)
    want = set()
    for op in codec.OPCODES:
        for h in ("eth", "ip4", "ip6", "udp", "ch", EXT[op]):
            want |= {(op, f) for f in headers[h]}
        want |= {(op, "payload"), (op, "crc")}
    have = {}
    dups = []
    for r in catalog["fields"]:
        for op in r["opcodes"]:
            if (op, r["field"]) in have:
                dups.append((op, r["field"]))
            have[(op, r["field"])] = r
    assert not dups, "pairs covered twice: %s" % dups
    assert not sorted(want - set(have)), "pairs the table misses: %s" % sorted(want - set(have))
    assert not sorted(set(have) - want), "pairs the codec does not have: %s" % sorted(set(have) - want)


def test_field_table_constants_fit_the_codec(catalog, codec):
    """A packet built from every '=V' of an opcode's rows serializes and parses back unchanged."""
    consts = {}
    fixed = {f["name"] for f in codec.field_infos() if f["is_fixed"]}  # ip4.version, ip4.ihl, ip6.version
    for r in catalog["fields"]:
        if r["field"] in fixed:
            continue
        if r["status"] == "determined" and r["constraint"].startswith("="):
            for op in r["opcodes"]:
                consts.setdefault(op, {})[r["field"]] = int(r["constraint"][1:], 0)
    for op, code in codec.OPCODES.items():
        fm = {k: v for k, v in consts.get(op, {}).items() if not k.startswith("ip6.") and k != "ch.opcode"}
        fm["ch.opcode"] = code
        fm.setdefault("ch.ver", 1)
        parsed = codec.parse_frame(codec.serialize_frame(fm))
        for k, v in fm.items():
            if k in parsed:
                assert parsed[k] == v, (op, k)


# ---- negative self-checks of the degrees-of-freedom parser ----

DOF_SYNTH_HEAD = "# 19. Degrees of freedom\n## 19.1 x\n\n<!-- dof-table: fields -->\n" \
                 "| opcodes | field | status | clauses | constraint | note |\n|---|---|---|---|---|---|\n"
DOF_SYNTH_CHOICES = "\n<!-- dof-table: choices -->\n| key | choice | status | clauses | bound |\n|---|---|---|---|---|\n" \
                    "| first-path | which path | constrained | STRM-009 | any ACTIVE path |\n"


def full_table_rows(gen):
    """One row per field over all opcodes it exists in: a complete, valid field table."""
    rows, seen = [], []
    for op in gen.OPCODE_NAMES:
        for f in gen.fields_of(op):
            if f not in seen:
                seen.append(f)
    for f in seen:
        ops = [op for op in gen.OPCODE_NAMES if f in gen.fields_of(op)]
        status, constraint = ("reserved", "") if "rsvd" in f else ("free", "")
        rows.append("| %s | %s | %s | GEN-001 | %s | |" % (", ".join(ops), f, status, constraint))
    return rows


def run_dof(gen, rows, choices=DOF_SYNTH_CHOICES):
    known = {"MROCE-GEN-001", "MROCE-STRM-009", "MROCE-ACK-014"}
    return gen.parse_dof("19-degrees-of-freedom.md", DOF_SYNTH_HEAD + "\n".join(rows) + "\n" + choices, known)


def test_self_check_dof_valid_synthetic_table():
    gen = load_generator()
    fields, choices, errors = run_dof(gen, full_table_rows(gen))
    assert not errors, errors
    assert sum(len(r["opcodes"]) for r in fields) == len(gen.all_pairs())
    assert choices == [{"key": "first-path", "choice": "which path", "status": "constrained",
                        "clauses": ["MROCE-STRM-009"], "bound": "any ACTIVE path"}]


def test_self_check_dof_detects_missing_and_duplicate_pairs():
    gen = load_generator()
    rows = [r for r in full_table_rows(gen) if "| ack.epsn |" not in r]
    rows.append("| data | ch.psn | free | GEN-001 | | |")
    _, _, errors = run_dof(gen, rows)
    assert any("misses ack.epsn for ACK" in e for e in errors), errors
    assert any("(WRITE, ch.psn) already covered" in e for e in errors), errors


def test_self_check_dof_detects_bad_rows():
    gen = load_generator()
    base = full_table_rows(gen)
    cases = {
        "| ACK | meh.msn | free | GEN-001 | | |": "does not exist in ACK",
        "| ACK | ack.bogus | free | GEN-001 | | |": "unknown field 'ack.bogus'",
        "| FOO | ch.psn | free | GEN-001 | | |": "unknown opcode or group 'FOO'",
        "| ACK | ack.epsn | maybe | GEN-001 | | |": "unknown status 'maybe'",
        "| ACK | ack.epsn | free | ACK-099 | | |": "unknown clause id MROCE-ACK-099",
        "| ACK | ack.epsn | free | ACK-14 | | |": "malformed clause id 'ACK-14'",
        "| ACK | ack.epsn | constrained | GEN-001 | rnage 1..2 | |": "malformed constraint term 'rnage 1..2'",
        "| ACK | ack.epsn | constrained | GEN-001 | range 5..1 | |": "empty range",
        "| ACK | ack.ce_count | constrained | GEN-001 | range 0..70000 | |": "exceeds the 16-bit field",
        "| ACK | ack.epsn | constrained | GEN-001 | relative meh.msn | |": "does not exist in ACK",
        "| ACK | ack.epsn | constrained | GEN-001 | bit | |": "'bit' on the 32-bit field",
        "| ACK | ack.epsn | constrained | GEN-001 | | |": "needs a constraint",
        "| ACK | ack.epsn | determined | GEN-001 | range 1..2 | |": "determined field's constraint",
        "| ACK | ack.epsn | free | GEN-001 | nonzero | |": "has no constraint",
        "| ACK | ack.epsn | reserved | GEN-001 | | |": "not a reserved field",
        "| ACK | ack.epsn | constrained | GEN-001 | range 0..num_pathz | |": "bad bound 'num_pathz'",
    }
    for bad_row, want in cases.items():
        rows = [r for r in base if "| %s |" % bad_row.split("|")[2].strip() not in r or "ACK" not in r.split("|")[1]]
        _, _, errors = run_dof(gen, rows + [bad_row])
        assert any(want in e for e in errors), (bad_row, errors)


def test_self_check_dof_detects_bad_choices_and_missing_tables():
    gen = load_generator()
    bad = DOF_SYNTH_CHOICES + "| first-path | again | sometimes | XYZ-001 | b |\n"
    _, _, errors = run_dof(gen, full_table_rows(gen), bad)
    assert any("duplicate choice key first-path" in e for e in errors), errors
    assert any("unknown status 'sometimes'" in e for e in errors), errors
    assert any("unknown clause id MROCE-XYZ-001" in e for e in errors), errors
    _, _, errors = run_dof(gen, full_table_rows(gen), "")
    assert any("no '<!-- dof-table: choices -->' table" in e for e in errors), errors
