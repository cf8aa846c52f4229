#!/usr/bin/python3
"""Generates docs/spec/clauses.json, the machine-readable clause catalog, from the spec Markdown.

Usage:
  ci/gen_clause_catalog.py            write docs/spec/clauses.json
  ci/gen_clause_catalog.py --check    exit 1 if the Markdown is malformed or clauses.json is stale

A clause is one Markdown list line, outside fenced code blocks:
  - **MROCE-<AREA>-<NNN>** (<MUST|SHOULD|MAY>) <text>
Its section is the nearest preceding heading "## <chapter>.<section> ...", whose chapter number
must equal the file's two-digit prefix.

The degrees-of-freedom chapter (19-degrees-of-freedom.md) holds two tables, each introduced by an
HTML comment line:
  <!-- dof-table: fields -->   | opcodes | field | status | clauses | constraint | note |
  <!-- dof-table: choices -->  | key | choice | status | clauses | bound |
They become the catalog's "fields" and "choices" lists. --check fails when a row names an unknown
clause id, opcode, field or status, when a constraint does not parse, or when the field table misses
(or repeats) an (opcode, field) pair of the codec. The codec's fields are listed below
(CODEC_FIELDS); python/tests/test_spec_catalog.py keeps that list equal to _mroce.field_infos().
Stdlib only.
"""
import argparse
import json
import os
import re
import sys

SPEC_NAME = "MetaRoCE"
SPEC_VERSION = "0.2"
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


DOF_FILE = "19-degrees-of-freedom.md"
CHANGELOG_FILE = "changelog.md"

# --- what the codec knows (reference/wire; _mroce.field_infos()) -----------------------------------
# (header, [(field name, bit width)]) in wire order. The MetaRoCE frame: encapsulation, common header,
# the five opcode headers. python/tests/test_spec_catalog.py compares this with _mroce.field_infos().
CODEC_FIELDS = [
    ("eth", [("eth.dst", 48), ("eth.src", 48), ("eth.vlan_tci", 16), ("eth.type", 16)]),
    ("ip4", [("ip4.version", 4), ("ip4.ihl", 4), ("ip4.dscp", 6), ("ip4.ecn", 2), ("ip4.total_len", 16),
             ("ip4.id", 16), ("ip4.flags", 3), ("ip4.frag_offset", 13), ("ip4.ttl", 8), ("ip4.protocol", 8),
             ("ip4.checksum", 16), ("ip4.src", 32), ("ip4.dst", 32)]),
    ("ip6", [("ip6.version", 4), ("ip6.dscp", 6), ("ip6.ecn", 2), ("ip6.flow_label", 20),
             ("ip6.payload_len", 16), ("ip6.next_header", 8), ("ip6.hop_limit", 8), ("ip6.src", 128),
             ("ip6.dst", 128)]),
    ("udp", [("udp.sport", 16), ("udp.dport", 16), ("udp.length", 16), ("udp.checksum", 16)]),
    ("ch", [("ch.ver", 4), ("ch.rsvd0", 4), ("ch.opcode", 8), ("ch.flags.ar", 1), ("ch.flags.rtx", 1),
            ("ch.flags.first", 1), ("ch.flags.last", 1), ("ch.flags.imm", 1), ("ch.flags.se", 1),
            ("ch.flags.ece", 1), ("ch.flags.trtx", 1), ("ch.flags.rsvd", 8), ("ch.dst_conn_id", 32),
            ("ch.path_id", 8), ("ch.path_epoch", 8), ("ch.payload_len", 16), ("ch.psn", 32)]),
    ("meh", [("meh.stream_id", 16), ("meh.rsvd1", 8), ("meh.rsvd2", 8), ("meh.msn", 32), ("meh.msg_len", 32),
             ("meh.msg_offset", 32), ("meh.recv_seq", 32), ("meh.imm", 32), ("meh.rkey", 32),
             ("meh.rsvd3", 32), ("meh.va", 64)]),
    ("ack", [("ack.epsn", 32), ("ack.trigger_psn", 32), ("ack.rate_hint", 32), ("ack.ce_count", 16),
             ("ack.ack_delay", 16), ("ack.sack", 256)]),
    ("nack", [("nack.code", 8), ("nack.rsvd", 8), ("nack.stream_id", 16), ("nack.psn", 32), ("nack.msn", 32),
              ("nack.info", 32)]),
    ("cmh", [("cmh.ver_min", 8), ("cmh.ver_max", 8), ("cmh.reason", 8), ("cmh.num_paths", 8),
             ("cmh.src_conn_id", 32), ("cmh.mtu", 16), ("cmh.max_streams", 16), ("cmh.num_planes", 8),
             ("cmh.rsvd4", 8), ("cmh.rsvd5", 16), ("cmh.max_rate", 32), ("cmh.rsvd6", 32), ("cmh.nonce", 64)]),
    ("prh", [("prh.probe_seq", 32), ("prh.rsvd7", 32), ("prh.tx_time", 64)]),
]
# Fields of a parsed frame that are not header-table rows (parse_frame keys): the bytes between the
# opcode header and the CRC, and the CRC trailer. None = variable length.
FRAME_FIELDS = [("payload", None), ("crc", 32)]
# Codec headers that are not part of a MetaRoCE frame (the RoCEv2 baseline, chapter 18).
ROCE_FIELDS = [
    ("bth", ["bth.opcode", "bth.se", "bth.migreq", "bth.pad_count", "bth.tver", "bth.pkey", "bth.fecn",
             "bth.becn", "bth.resv6", "bth.dest_qp", "bth.ack_req", "bth.resv7", "bth.psn"]),
    ("reth", ["reth.va", "reth.rkey", "reth.dma_len"]),
    ("aeth", ["aeth.syndrome", "aeth.msn"]),
    ("imm", ["imm"]),
]
# Opcode table 3.3 (_mroce.OPCODES), in table order.
OPCODES = [("WRITE", 0x01), ("WRITE_IMM", 0x02), ("SEND", 0x03), ("SEND_IMM", 0x04), ("READ_REQ", 0x05),
           ("READ_RESP", 0x06), ("ACK", 0x10), ("NACK", 0x11), ("CONNECT_REQ", 0x20), ("CONNECT_ACK", 0x21),
           ("CONNECT_REJ", 0x22), ("DISCONNECT", 0x23), ("DISCONNECT_ACK", 0x24), ("PROBE", 0x30),
           ("PROBE_ACK", 0x31)]
OPCODE_NAMES = [n for n, _ in OPCODES]
DATA_OPCODES = OPCODE_NAMES[:6]
CM_OPCODES = ["CONNECT_REQ", "CONNECT_ACK", "CONNECT_REJ", "DISCONNECT", "DISCONNECT_ACK"]
PROBE_OPCODES = ["PROBE", "PROBE_ACK"]
OPCODE_GROUPS = {
    "all": OPCODE_NAMES,
    "data": DATA_OPCODES,
    "cm": CM_OPCODES,
    "probe": PROBE_OPCODES,
    "control": [n for n in OPCODE_NAMES if n not in DATA_OPCODES],
}
# The opcode header each opcode carries (table 3.3).
OPCODE_HEADER = dict([(n, "meh") for n in DATA_OPCODES] + [("ACK", "ack"), ("NACK", "nack")] +
                     [(n, "cmh") for n in CM_OPCODES] + [(n, "prh") for n in PROBE_OPCODES])
COMMON_HEADERS = ("eth", "ip4", "ip6", "udp", "ch")
FIELD_WIDTH = dict([f for _, fs in CODEC_FIELDS for f in fs] + FRAME_FIELDS)
HEADER_FIELDS = dict((h, [n for n, _ in fs]) for h, fs in CODEC_FIELDS)
CONN_PARAMS = ("num_paths", "num_planes", "mtu", "max_streams")
PSEUDO_REFS = ("frame.time", "frame.sent_before")
FIELD_STATUSES = ("determined", "free", "constrained", "reserved")
CHOICE_STATUSES = ("determined", "free", "constrained")
FIELD_COLUMNS = ["opcodes", "field", "status", "clauses", "constraint", "note"]
CHOICE_COLUMNS = ["key", "choice", "status", "clauses", "bound"]
TABLE_MARK_RE = re.compile(r"^<!--\s*dof-table:\s*([a-z]+)\s*-->\s*$")
CLAUSE_TOKEN_RE = re.compile(r"^(?:MROCE-)?([A-Z]{2,5}-\d{3})$")
KEY_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
NUM = r"(?:0x[0-9A-Fa-f]+|\d+)"


def fields_of(opcode):
    """Every field name (codec rows plus payload and crc) a packet of `opcode` has, in wire order."""
    out = []
    for h in COMMON_HEADERS + (OPCODE_HEADER[opcode],):
        out += HEADER_FIELDS[h]
    return out + [n for n, _ in FRAME_FIELDS]


def all_pairs():
    return [(op, f) for op in OPCODE_NAMES for f in fields_of(op)]


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


# --- degrees-of-freedom tables (chapter 19) ----------------------------------------------------------

def parse_number(text):
    return int(text, 16) if text.lower().startswith("0x") else int(text)


def _cells(line):
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip().replace("`", "") for c in body.split("|")]


def read_tables(name, text):
    """The tables introduced by '<!-- dof-table: KIND -->' lines.

    Returns ({kind: (header cells, [(line number, cells), ...])}, errors)."""
    tables, errors = {}, []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = TABLE_MARK_RE.match(lines[i])
        if not m:
            i += 1
            continue
        kind, where = m.group(1), "%s:%d" % (name, i + 1)
        if kind in tables:
            errors.append("%s: second '%s' table" % (where, kind))
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        rows = []
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            rows.append((j + 1, _cells(lines[j])))
            j += 1
        if len(rows) < 2:
            errors.append("%s: '%s' table marker not followed by a table" % (where, kind))
        else:
            tables[kind] = (rows[0][1], rows[2:] if re.match(r"^[-: ]+$", "".join(rows[1][1])) else rows[1:])
        i = j
    return tables, errors


def expand_opcodes(cell):
    """'data, ACK' -> ordered opcode names, or (None, message)."""
    names = set()
    for tok in [t.strip() for t in cell.split(",")]:
        if tok in OPCODE_GROUPS:
            names.update(OPCODE_GROUPS[tok])
        elif tok in OPCODE_NAMES:
            names.add(tok)
        else:
            return None, "unknown opcode or group %r (want one of %s or an opcode of table 3.3)" % (
                tok, ", ".join(sorted(OPCODE_GROUPS)))
    return [n for n in OPCODE_NAMES if n in names], None


def parse_clause_cell(cell, known_ids):
    """'ACK-014, MROCE-ACK-015' -> (['MROCE-ACK-014', 'MROCE-ACK-015'], errors)."""
    ids, errors = [], []
    for tok in [t.strip() for t in cell.split(",") if t.strip()]:
        m = CLAUSE_TOKEN_RE.match(tok)
        if not m:
            errors.append("malformed clause id %r" % tok)
            continue
        cid = "MROCE-" + m.group(1)
        if cid not in known_ids:
            errors.append("unknown clause id %s" % cid)
        elif cid not in ids:
            ids.append(cid)
    if not ids and not errors:
        errors.append("no clause named")
    return ids, errors


def _check_ref(ref, opcodes, allow_pseudo):
    if allow_pseudo and ref in PSEUDO_REFS:
        return None
    if ref not in FIELD_WIDTH:
        return "unknown field %r" % ref
    missing = [op for op in opcodes if ref not in fields_of(op)]
    if missing:
        return "field %s does not exist in %s" % (ref, ", ".join(missing))
    return None


def _bound(text, opcodes):
    """A range/multiple bound: number, connection parameter (optionally -N) or a field of the packet."""
    if re.match("^%s$" % NUM, text):
        return parse_number(text), None
    m = re.match(r"^([a-z_]+)(?:-(%s))?$" % NUM, text)
    if m and m.group(1) in CONN_PARAMS:
        return None, None
    err = _check_ref(text, opcodes, False)
    return None, (None if err is None else "bad bound %r: %s" % (text, err))


def parse_constraint(text, status, field, opcodes):
    """Checks a constraint cell against the notation of section 19.1. Returns a list of errors."""
    errors = []
    width = FIELD_WIDTH.get(field)
    limit = (1 << width) - 1 if width else None
    terms = [t.strip() for t in text.split(";")] if text.strip() else []
    if status in ("free", "reserved"):
        if terms:
            errors.append("a %s field has no constraint (got %r)" % (status, text))
        return errors
    if status == "determined":
        if len(terms) > 1 or (terms and not re.match("^=%s$" % NUM, terms[0])):
            errors.append("a determined field's constraint is empty or one '=V' (got %r)" % text)
        elif terms and limit is not None and parse_number(terms[0][1:]) > limit:
            errors.append("=%s does not fit the %d-bit field %s" % (terms[0][1:], width, field))
        return errors
    if not terms:
        return ["a constrained field needs a constraint"]
    for t in terms:
        m_rng = re.match(r"^range (\S+)\.\.(\S+)$", t)
        m_one = re.match(r"^oneof (%s(?:,%s)*)$" % (NUM, NUM), t)
        m_mul = re.match(r"^multiple (\S+)$", t)
        m_if = re.match(r"^=(%s) if ([a-z0-9_.]+)=(%s)$" % (NUM, NUM), t)
        m_rel = re.match(r"^relative ([a-z0-9_.]+(?:,[a-z0-9_.]+)*)$", t)
        if t in ("nonzero", "bit", "segment", "computed", "order"):
            if t == "bit" and width not in (None, 1):
                errors.append("'bit' on the %d-bit field %s" % (width, field))
            if t == "segment" and field not in ("meh.stream_id", "meh.msn", "meh.msg_offset"):
                errors.append("'segment' applies to meh.stream_id, meh.msn and meh.msg_offset only")
        elif m_rng:
            lo, e1 = _bound(m_rng.group(1), opcodes)
            hi, e2 = _bound(m_rng.group(2), opcodes)
            errors += [e for e in (e1, e2) if e]
            if lo is not None and hi is not None and lo > hi:
                errors.append("empty range %s" % t)
            if hi is not None and limit is not None and hi > limit:
                errors.append("range %s exceeds the %d-bit field %s" % (t, width, field))
        elif m_one:
            vals = [parse_number(v) for v in m_one.group(1).split(",")]
            if limit is not None and max(vals) > limit:
                errors.append("%s exceeds the %d-bit field %s" % (t, width, field))
        elif m_mul:
            n, e = _bound(m_mul.group(1), opcodes)
            if e:
                errors.append(e)
            elif n == 0:
                errors.append("multiple 0")
        elif m_if:
            e = _check_ref(m_if.group(2), opcodes, False)
            if e:
                errors.append("bad condition in %r: %s" % (t, e))
            if limit is not None and parse_number(m_if.group(1)) > limit:
                errors.append("%s does not fit the %d-bit field %s" % (t, width, field))
        elif m_rel:
            for ref in m_rel.group(1).split(","):
                if ref == field:
                    errors.append("%s is relative to itself" % field)
                    continue
                e = _check_ref(ref, opcodes, True)
                if e:
                    errors.append("bad relative reference: %s" % e)
        else:
            errors.append("malformed constraint term %r" % t)
    if any(re.match("^=%s$" % NUM, t) for t in terms):
        errors.append("'=V' alone belongs to a determined row")
    return errors


def parse_dof(name, text, known_ids):
    """Parses the two tables of the degrees-of-freedom chapter.

    Returns (fields, choices, errors). fields: [{opcodes, field, status, clauses, constraint, note}]
    in table order; choices: [{key, choice, status, clauses, bound}]."""
    tables, errors = read_tables(name, text)
    fields, choices = [], []
    for kind in ("fields", "choices"):
        if kind not in tables:
            errors.append("%s: no '<!-- dof-table: %s -->' table" % (name, kind))
    for kind in sorted(set(tables) - {"fields", "choices"}):
        errors.append("%s: unknown table kind %r" % (name, kind))
    seen = {}
    if "fields" in tables:
        header, rows = tables["fields"]
        if header != FIELD_COLUMNS:
            errors.append("%s: fields table columns are %s, want %s" % (name, header, FIELD_COLUMNS))
        for lineno, cells in rows:
            where = "%s:%d" % (name, lineno)
            if len(cells) != len(FIELD_COLUMNS):
                errors.append("%s: %d cells, want %d" % (where, len(cells), len(FIELD_COLUMNS)))
                continue
            ops_cell, field, status, clause_cell, constraint, note = cells
            opcodes, err = expand_opcodes(ops_cell)
            if err:
                errors.append("%s: %s" % (where, err))
                continue
            if field not in FIELD_WIDTH:
                errors.append("%s: unknown field %r" % (where, field))
                continue
            wrong = [op for op in opcodes if field not in fields_of(op)]
            if wrong:
                errors.append("%s: field %s does not exist in %s" % (where, field, ", ".join(wrong)))
            if status not in FIELD_STATUSES:
                errors.append("%s: unknown status %r (want one of %s)" % (where, status, ", ".join(FIELD_STATUSES)))
            elif status == "reserved" and "rsvd" not in field:
                errors.append("%s: %s is not a reserved field" % (where, field))
            else:
                errors += ["%s: %s: %s" % (where, field, e) for e in parse_constraint(constraint, status, field, opcodes)]
            ids, errs = parse_clause_cell(clause_cell, known_ids)
            errors += ["%s: %s" % (where, e) for e in errs]
            for op in opcodes:
                if (op, field) in seen:
                    errors.append("%s: (%s, %s) already covered at line %d" % (where, op, field, seen[(op, field)]))
                else:
                    seen[(op, field)] = lineno
            fields.append({"opcodes": opcodes, "field": field, "status": status, "clauses": ids,
                           "constraint": constraint, "note": note})
        missing = {}
        for op, f in all_pairs():
            if (op, f) not in seen:
                missing.setdefault(f, []).append(op)
        for f, ops in missing.items():
            errors.append("%s: fields table misses %s for %s" % (name, f, ", ".join(ops)))
    if "choices" in tables:
        header, rows = tables["choices"]
        if header != CHOICE_COLUMNS:
            errors.append("%s: choices table columns are %s, want %s" % (name, header, CHOICE_COLUMNS))
        keys = {}
        for lineno, cells in rows:
            where = "%s:%d" % (name, lineno)
            if len(cells) != len(CHOICE_COLUMNS):
                errors.append("%s: %d cells, want %d" % (where, len(cells), len(CHOICE_COLUMNS)))
                continue
            key, choice, status, clause_cell, bound = cells
            if not KEY_RE.match(key):
                errors.append("%s: malformed choice key %r" % (where, key))
            elif key in keys:
                errors.append("%s: duplicate choice key %s (first at line %d)" % (where, key, keys[key]))
            keys.setdefault(key, lineno)
            if status not in CHOICE_STATUSES:
                errors.append("%s: unknown status %r (want one of %s)" % (where, status, ", ".join(CHOICE_STATUSES)))
            if not choice or not bound:
                errors.append("%s: choice and bound must not be empty" % where)
            ids, errs = parse_clause_cell(clause_cell, known_ids)
            errors += ["%s: %s" % (where, e) for e in errs]
            choices.append({"key": key, "choice": choice, "status": status, "clauses": ids, "bound": bound})
    return fields, choices, errors


def check_mentions(name, text, known_ids):
    """Every clause id a non-chapter file (changelog) names must exist."""
    errors = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for ref in ID_REF_RE.findall(line):
            if ref not in known_ids:
                errors.append("%s:%d: names undefined clause %s" % (name, lineno, ref))
    return errors


def parse_spec_dir(spec_dir):
    """Clauses of every chapter file. Returns (clauses, errors)."""
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


def load_spec(spec_dir):
    """Clauses, the degrees-of-freedom tables and every error. Returns (clauses, fields, choices, errors)."""
    clauses, errors = parse_spec_dir(spec_dir)
    known = {c["id"] for c in clauses}
    fields, choices = [], []
    path = os.path.join(spec_dir, DOF_FILE)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            fields, choices, e = parse_dof(DOF_FILE, f.read(), known)
        errors += e
    else:
        errors.append("%s: missing (the degrees-of-freedom tables)" % DOF_FILE)
    path = os.path.join(spec_dir, CHANGELOG_FILE)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            errors += check_mentions(CHANGELOG_FILE, f.read(), known)
    return clauses, fields, choices, errors


def build_catalog(clauses, fields=(), choices=()):
    entries = [{k: c[k] for k in ("id", "level", "summary", "section", "file")} for c in clauses]
    entries.sort(key=lambda e: e["id"])
    return {"spec": SPEC_NAME, "version": SPEC_VERSION, "clauses": entries,
            "fields": [dict(r) for r in fields], "choices": [dict(r) for r in choices]}


def render(catalog):
    return json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"


def compare_catalog(md_clauses, catalog, fields=None, choices=None):
    """Differences between the Markdown and a catalog dict, as messages (empty = in sync).

    fields / choices: the tables parsed from the Markdown; None skips that comparison."""
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
    for key, rows, ident in (("fields", fields, "field"), ("choices", choices, "key")):
        if rows is None:
            continue
        have = catalog.get(key, [])
        if len(have) != len(rows):
            problems.append("clauses.json has %d %s rows, the Markdown %d" % (len(have), key, len(rows)))
        for n, (a, b) in enumerate(zip(rows, have)):
            if a != b:
                problems.append("%s row %d (%s) differs: Markdown %r, clauses.json %r" %
                                (key, n + 1, a.get(ident), a, b))
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

    clauses, fields, choices, errors = load_spec(args.spec_dir)
    for e in errors:
        print("error: " + e, file=sys.stderr)
    if errors:
        return 1
    catalog = build_catalog(clauses, fields, choices)
    levels, areas = stats(clauses)
    summary = "%d clauses (%s); areas: %s; %d field rows covering %d (opcode, field) pairs; %d choices" % (
        len(clauses), ", ".join("%s %d" % (l, levels.get(l, 0)) for l in LEVELS),
        ", ".join("%s %d" % (a, n) for a, n in sorted(areas.items())),
        len(fields), sum(len(r["opcodes"]) for r in fields), len(choices))
    if args.check:
        try:
            with open(out, encoding="utf-8") as f:
                on_disk = json.load(f)
        except (OSError, ValueError) as e:
            print("error: cannot read %s: %s" % (out, e), file=sys.stderr)
            return 1
        problems = compare_catalog(clauses, on_disk, fields, choices)
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
