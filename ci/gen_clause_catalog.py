#!/usr/bin/python3
"""Generates docs/spec/clauses.json, the machine-readable clause catalog, from the spec Markdown.

Usage:
  ci/gen_clause_catalog.py            write docs/spec/clauses.json
  ci/gen_clause_catalog.py --check    exit 1 if the Markdown is malformed or clauses.json is stale

A clause is one Markdown list line, outside fenced code blocks:
  - **MROCE-<AREA>-<NNN>** (<MUST|SHOULD|MAY>) <text>
Its section is the nearest preceding heading "## <chapter>.<section> ...", whose chapter number
must equal the file's two-digit prefix. Stdlib only.
"""
import argparse
import json
import os
import re
import sys

SPEC_NAME = "MetaRoCE"
SPEC_VERSION = "0.1"
LEVELS = ("MUST", "SHOULD", "MAY")

CLAUSE_RE = re.compile(
    r"^- \*\*(MROCE-([A-Z]{2,5})-(\d{3}))\*\* \((MUST|SHOULD|MAY)\) (\S.*)$")
# Anything that looks like an attempt at a clause line; it must then match CLAUSE_RE exactly.
CLAUSE_LIKE_RE = re.compile(r"^\s*[-*+]\s+\**\s*MROCE\b")
SECTION_RE = re.compile(r"^##\s+(\d+)\.(\d+)\s")
ID_REF_RE = re.compile(r"\bMROCE-[A-Z]{2,5}-\d{3}\b")
KEYWORD_RE = re.compile(r"\b(MUST|SHOULD|MAY)\b")
FILE_RE = re.compile(r"^(\d\d)-[a-z0-9-]+\.md$")
SKIP_FILES = {"wire-format-decisions.md"}


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def summarize(text, limit=160):
    """One-line summary: the clause text without Markdown emphasis, cut at a word boundary."""
    s = text.replace("**", "").replace("`", "").strip()
    if len(s) <= limit:
        return s
    cut = s[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " ..."


def parse_markdown(name, text):
    """Parses one Markdown file. Returns (clauses, errors, references).

    clauses: list of dicts {id, level, summary, section, file, area, number, line, text}
    errors: list of "file:line: message" strings
    references: list of (id, "file:line") for ids mentioned inside clause text
    """
    clauses, errors, refs = [], [], []
    m = FILE_RE.match(name)
    chapter = int(m.group(1)) if m else None
    section = None
    in_fence = False
    for lineno, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (name, lineno)
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        sm = SECTION_RE.match(line)
        if sm:
            if chapter is not None and int(sm.group(1)) != chapter:
                errors.append("%s: section %s.%s in chapter file %02d" %
                              (where, sm.group(1), sm.group(2), chapter))
            section = "%d.%d" % (int(sm.group(1)), int(sm.group(2)))
            continue
        if not CLAUSE_LIKE_RE.match(line):
            continue
        cm = CLAUSE_RE.match(line)
        if not cm:
            errors.append("%s: malformed clause line (want '- **MROCE-AREA-NNN** (LEVEL) text'): %s"
                          % (where, line.strip()[:100]))
            continue
        cid, area, num, level, body = cm.groups()
        if chapter is None:
            errors.append("%s: clause %s outside a numbered chapter file" % (where, cid))
            continue
        if section is None:
            errors.append("%s: clause %s before any '## %d.N' section heading" % (where, cid, chapter))
            continue
        keywords = set(KEYWORD_RE.findall(body))
        strongest = next((k for k in LEVELS if k in keywords), None)
        if strongest is None:
            errors.append("%s: clause %s text has no MUST/SHOULD/MAY key word" % (where, cid))
        elif strongest != level:
            errors.append("%s: clause %s is marked %s but its strongest key word is %s"
                          % (where, cid, level, strongest))
        for ref in ID_REF_RE.findall(body):
            if ref != cid:
                refs.append((ref, where))
        clauses.append({"id": cid, "level": level, "summary": summarize(body),
                        "section": section, "file": name, "area": area,
                        "number": int(num), "line": lineno, "text": body})
    if in_fence:
        errors.append("%s: unterminated code fence" % name)
    return clauses, errors, refs


def check_ids(clauses, refs):
    """Cross-file checks: duplicate ids (hence duplicate numbers in an area), dangling references."""
    errors = []
    seen = {}
    for c in clauses:
        where = "%s:%d" % (c["file"], c["line"])
        if c["id"] in seen:
            errors.append("%s: duplicate clause id %s (first at %s)" % (where, c["id"], seen[c["id"]]))
        else:
            seen[c["id"]] = where
    for ref, where in refs:
        if ref not in seen:
            errors.append("%s: reference to undefined clause %s" % (where, ref))
    return errors


def parse_spec_dir(spec_dir):
    clauses, errors, refs = [], [], []
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith(".md") or name in SKIP_FILES:
            continue
        with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
            c, e, r = parse_markdown(name, f.read())
        clauses += c
        errors += e
        refs += r
    errors += check_ids(clauses, refs)
    return clauses, errors


def build_catalog(clauses):
    entries = [{k: c[k] for k in ("id", "level", "summary", "section", "file")} for c in clauses]
    entries.sort(key=lambda e: e["id"])
    return {"spec": SPEC_NAME, "version": SPEC_VERSION, "clauses": entries}


def render(catalog):
    return json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"


def compare_catalog(md_clauses, catalog):
    """Differences between the Markdown clauses and a catalog dict, as messages (empty = in sync)."""
    problems = []
    if catalog.get("spec") != SPEC_NAME or catalog.get("version") != SPEC_VERSION:
        problems.append("catalog spec/version is %r/%r, want %r/%r" %
                        (catalog.get("spec"), catalog.get("version"), SPEC_NAME, SPEC_VERSION))
    entries = catalog.get("clauses", [])
    ids = [e.get("id") for e in entries]
    if ids != sorted(ids):
        problems.append("catalog clauses are not sorted by id")
    by_id = {}
    for e in entries:
        if e.get("id") in by_id:
            problems.append("catalog has duplicate id %s" % e.get("id"))
        by_id[e.get("id")] = e
    md = {c["id"]: c for c in md_clauses}
    for cid in sorted(set(md) - set(by_id)):
        problems.append("%s is in %s but not in clauses.json" % (cid, md[cid]["file"]))
    for cid in sorted(set(by_id) - set(md)):
        problems.append("%s is in clauses.json but not in the Markdown" % cid)
    for cid in sorted(set(md) & set(by_id)):
        for key in ("level", "section", "file", "summary"):
            if md[cid][key] != by_id[cid].get(key):
                problems.append("%s: %s differs: Markdown %r, clauses.json %r" %
                                (cid, key, md[cid][key], by_id[cid].get(key)))
    return problems


def stats(clauses):
    levels, areas = {}, {}
    for c in clauses:
        levels[c["level"]] = levels.get(c["level"], 0) + 1
        areas[c["area"]] = areas.get(c["area"], 0) + 1
    return levels, areas


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="verify instead of writing")
    ap.add_argument("--spec-dir", default=os.path.join(repo_root(), "docs", "spec"))
    ap.add_argument("--output", default=None, help="catalog path (default <spec-dir>/clauses.json)")
    args = ap.parse_args(argv)
    out = args.output or os.path.join(args.spec_dir, "clauses.json")

    clauses, errors = parse_spec_dir(args.spec_dir)
    for e in errors:
        print("error: " + e, file=sys.stderr)
    if errors:
        return 1
    catalog = build_catalog(clauses)
    levels, areas = stats(clauses)
    summary = "%d clauses (%s); areas: %s" % (
        len(clauses), ", ".join("%s %d" % (l, levels.get(l, 0)) for l in LEVELS),
        ", ".join("%s %d" % (a, n) for a, n in sorted(areas.items())))
    if args.check:
        try:
            with open(out, encoding="utf-8") as f:
                on_disk = json.load(f)
        except (OSError, ValueError) as e:
            print("error: cannot read %s: %s" % (out, e), file=sys.stderr)
            return 1
        problems = compare_catalog(clauses, on_disk)
        if not problems and render(on_disk) != render(catalog):
            problems.append("clauses.json content differs from the generated catalog")
        for p in problems:
            print("error: " + p, file=sys.stderr)
        if problems:
            print("clauses.json is stale: run ci/gen_clause_catalog.py", file=sys.stderr)
            return 1
        print("ok: " + summary)
        return 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(render(catalog))
    print("wrote %s: %s" % (out, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
