#!/usr/bin/python3
"""The suite's mutation score (issue 17, item 4): how many planted bugs in the reference endpoint
does the conformance suite notice?

Generates source mutants of reference/endpoint/src/*.cc (not *_test.cc, quirks.cc or variants.cc:
those hold the deliberate alternative behaviours, off in the pristine run; no line that mentions a
quirk or a variant, nor the body of an `if` that is only taken when one is on), builds each mutant
into the example plugin (target mroce_example_reference_plugin, which links the reference endpoint
statically) in a scratch copy of the tree, runs the whole suite against it with a pristine harness
binary, and reports the kill rate with each survivor's file:line and nearest clause.

Operators (a small C++ lexer skips comments, string/char literals and preprocessor lines; binary
operators are only touched when written with a space on each side, as clang-format does, so
template brackets, `<<`, `->`, unary minus and rvalue references never are):
  rel       <  <-> <=,  >  <-> >=,  == <-> !=
  arith     +  <-> -,   *  -> /
  logic     && <-> ||
  bool      true <-> false
  int_inc   integer literal N -> N+1
  int_dec   integer literal N -> N-1 (N > 0)
  neg_cond  if (C) / while (C) -> if (!(C)) / while (!(C))
  del_stmt  delete a one-line statement that updates state (assignment, compound assignment,
            ++/--, or a call), never a declaration, return, jump or a braceless if/else body

Every mutant has a stable id FILE:LINE:COL:OP:HASH (HASH: 6 hex digits of the replacement text).

Usage:
  ci/mutate.py --list [--seed S --count N]          print the mutants, build nothing
  ci/mutate.py --seed 1 --count 300 --out DIR       build and run them (results written as they come)
  ci/mutate.py --only ID --out DIR                  one mutant
  ci/mutate.py ... --resume                         keep DIR's measured mutants, run the rest
Results: DIR/mutants.json, DIR/results.jsonl (one line per measured mutant), DIR/summary.md.
Equivalent mutants: ci/mutants-equivalent.yaml (id -> reason and line text), left out of the denominator;
an id whose line moved is followed by its line text (--rewrite-equivalent renames it in the list).
An entry with `allowed: CLAUSE` is spec-allowed instead: the mutant changes what the program does,
but only to behaviour that clause permits, so no conformant oracle may kill it. It counts as a
survivor in the kill rate and is left out of the second rate, the kill rate of the mutants that
break the spec; a spec-allowed mutant that is killed is reported as a FALSE FAIL of the suite.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_DIR = "reference/endpoint/src"
SKIP_FILES = {"quirks.cc", "variants.cc"}
SKIP_LINE = re.compile(r"quirk|variant", re.IGNORECASE)
CLAUSE = re.compile(r"MROCE-[A-Z]+-[0-9]+")
TARGET = "mroce_example_reference_plugin"
PLUGIN = "dut-adapters/examples/libmroce_example_reference_plugin.so"
OPERATORS = ["rel", "arith", "logic", "bool", "int_inc", "int_dec", "neg_cond", "del_stmt"]

# ---------------------------------------------------------------------------------------------
# Lexer


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "col")

    def __init__(self, kind, text, start, end, line, col):
        self.kind, self.text, self.start, self.end, self.line, self.col = kind, text, start, end, line, col

    def __repr__(self):
        return "Tok(%s,%r,%d:%d)" % (self.kind, self.text, self.line, self.col)


PUNCTS = sorted(
    [
        "<<=", ">>=", "...", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
    ],
    key=len,
    reverse=True,
)
NUM_RE = re.compile(r"(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)(?:\.[0-9']*)?(?:[eEpP][+-]?[0-9]+)?[a-zA-Z_]*")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def lex(text):
    """Tokens of C++ source: kinds ident, number, string, char, comment, preproc, punct."""
    toks = []
    i, n = 0, len(text)
    line, line_start = 1, 0
    at_line_start = True  # only whitespace so far on this line

    def add(kind, start, end):
        toks.append(Tok(kind, text[start:end], start, end, line, start - line_start + 1))

    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            line, line_start = line + 1, i
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:
            j = i
            while j < n:  # to the end of the line, following backslash continuations
                k = text.find("\n", j)
                if k < 0:
                    k = n
                if text[j:k].rstrip().endswith("\\") and k < n:
                    j = k + 1
                    continue
                break
            add("preproc", i, k)
            line += text.count("\n", i, k)
            i = k
            continue
        at_line_start = False
        if text.startswith("//", i):
            k = text.find("\n", i)
            k = n if k < 0 else k
            add("comment", i, k)
            i = k
            continue
        if text.startswith("/*", i):
            k = text.find("*/", i + 2)
            k = n if k < 0 else k + 2
            add("comment", i, k)
            nl = text.count("\n", i, k)
            if nl:
                line += nl
                line_start = text.rfind("\n", i, k) + 1
            i = k
            continue
        m = re.compile(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(').match(text, i)
        if m:  # raw string literal
            close = ")" + m.group(1) + '"'
            k = text.find(close, m.end())
            k = n if k < 0 else k + len(close)
            add("string", i, k)
            nl = text.count("\n", i, k)
            if nl:
                line += nl
                line_start = text.rfind("\n", i, k) + 1
            i = k
            continue
        m = re.compile(r"(?:u8|u|U|L)?([\"'])").match(text, i)
        if m:
            q = m.group(1)
            k = m.end()
            while k < n and text[k] != q and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            k = min(k + 1, n)
            add("string" if q == '"' else "char", i, k)
            i = k
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            m = NUM_RE.match(text, i) if c.isdigit() else re.compile(r"\.[0-9']+(?:[eE][+-]?[0-9]+)?[a-zA-Z]*").match(text, i)
            add("number", i, m.end())
            i = m.end()
            continue
        m = IDENT_RE.match(text, i)
        if m:
            add("ident", i, m.end())
            i = m.end()
            continue
        for p in PUNCTS:
            if text.startswith(p, i):
                add("punct", i, i + len(p))
                i += len(p)
                break
        else:
            add("punct", i, i + 1)
            i += 1
    return toks


# ---------------------------------------------------------------------------------------------
# Mutant generation


class Mutant:
    def __init__(self, file, op, start, end, replacement, text):
        self.file, self.op, self.start, self.end, self.replacement = file, op, start, end, replacement
        self.line = text.count("\n", 0, start) + 1
        self.col = start - (text.rfind("\n", 0, start) + 1) + 1
        h = hashlib.sha1(("%s\0%s" % (text[start:end], replacement)).encode()).hexdigest()[:6]
        self.id = "%s:%d:%d:%s:%s" % (file, self.line, self.col, op, h)
        first = text.rfind("\n", 0, start) + 1
        last = text.find("\n", end)
        last = len(text) if last < 0 else last
        self.before = text[first:last]
        self.after = text[first:start] + replacement + text[end:last]

    def apply(self, text):
        return text[: self.start] + self.replacement + text[self.end :]

    def as_dict(self):
        return {"id": self.id, "file": self.file, "line": self.line, "col": self.col, "operator": self.op,
                "before": self.before, "after": self.after}


REL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ARITH = {"+": "-", "-": "+", "*": "/"}
LOGIC = {"&&": "||", "||": "&&"}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
NOT_A_STATEMENT = {"return", "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
                   "goto", "using", "typedef", "namespace", "template", "static_assert", "class", "struct",
                   "enum", "union", "public", "private", "protected", "co_return", "throw", "delete", "friend",
                   "const", "constexpr", "static", "auto", "inline", "extern", "thread_local", "mutable",
                   "volatile", "unsigned", "signed", "int", "bool", "char", "long", "short", "float", "double",
                   "void"}


def _spaced(text, t):
    return t.start > 0 and text[t.start - 1] == " " and t.end < len(text) and text[t.end] == " "


def _match(code, i, open_, close):
    """Index of the token closing code[i] (which is open_), or None."""
    depth = 0
    for j in range(i, len(code)):
        if code[j].text == open_:
            depth += 1
        elif code[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return None


def _int_value(s):
    """(value, prefix, digits-base, suffix) of an integer literal, or None (floats, binary, separators)."""
    m = re.fullmatch(r"(0[xX])([0-9a-fA-F]+)([uUlLzZ]*)", s)
    if m:
        return int(m.group(2), 16), m.group(1), 16, m.group(3), m.group(2)
    m = re.fullmatch(r"([0-9]+)([uUlLzZ]*)", s)
    if m and not (len(m.group(1)) > 1 and m.group(1).startswith("0")):  # no octal
        return int(m.group(1)), "", 10, m.group(2), m.group(1)
    return None


def _format_int(value, prefix, base, suffix, digits):
    if base == 16:
        body = "%x" % value
        if digits.isupper() or (any(c.isalpha() for c in digits) and digits.upper() == digits):
            body = body.upper()
        return prefix + body.rjust(len(digits), "0") + suffix
    return "%d" % value + suffix


def skipped_lines(text, code):
    """Lines not to mutate: those mentioning a quirk or variant, and the bodies of an if taken only
    when a quirk/variant is on (condition names one, not negated, no ||)."""
    lines = text.split("\n")
    skip = {i + 1 for i, l in enumerate(lines) if SKIP_LINE.search(l)}
    for i, t in enumerate(code):
        if t.text != "if" or i + 1 >= len(code) or code[i + 1].text != "(":
            continue
        close = _match(code, i + 1, "(", ")")
        if close is None:
            continue
        cond = code[i + 2 : close]
        guarded = False
        for k, c in enumerate(cond):
            if c.kind == "ident" and SKIP_LINE.search(c.text) and k + 1 < len(cond) and cond[k + 1].text == "(":
                # walk back over the object expression (c_.Quirk, c_.HasVariant) to a '!'
                b = k - 1
                while b >= 0 and (cond[b].kind == "ident" or cond[b].text in (".", "->", "::")):
                    b -= 1
                if not (b >= 0 and cond[b].text == "!"):
                    guarded = True
        if not guarded or any(c.text == "||" for c in cond):
            continue
        if close + 1 < len(code) and code[close + 1].text == "{":
            end = _match(code, close + 1, "{", "}")
            if end is not None:
                skip.update(range(code[close + 1].line, code[end].line + 1))
        else:
            j = close + 1
            depth = 0
            while j < len(code) and not (code[j].text == ";" and depth == 0):
                depth += code[j].text in "([{"
                depth -= code[j].text in ")]}"
                j += 1
            if j < len(code):
                skip.update(range(code[close].line, code[j].line + 1))
    return skip


def _is_declaration(stmt):
    """Whether a statement's tokens (up to the first top-level =, (, {, [ or ;) declare something:
    two names in a row (`T x`, `Foo& x`, `Foo* x`, `vector<int> x`)."""
    prev = None
    for t in stmt:
        if t.text in ("=", "(", "{", "[", ";") or t.text in ASSIGN_OPS:
            return False
        if t.kind == "ident" and prev is not None:
            if prev.kind == "ident" or prev.text in (">", "&", "*", "&&") and prev is not stmt[0]:
                return True
        prev = t
    return False


def _del_stmt_candidates(text, code, file):
    out = []
    # statements start after ; { } (or at the file start); find each top-level statement
    by_line = {}
    for idx, t in enumerate(code):
        by_line.setdefault(t.line, []).append(idx)
    for line, idxs in by_line.items():
        first, last = idxs[0], idxs[-1]
        if code[last].text != ";":
            continue
        stmt = code[first : last + 1]
        if stmt[0].text in NOT_A_STATEMENT or stmt[0].text in ("}", "{", "#", ":", "~"):
            continue
        # one statement: no other ; at depth 0, balanced brackets, no braces (lambdas, blocks)
        depth, ok = 0, True
        for t in stmt[:-1]:
            if t.text in ("(", "["):
                depth += 1
            elif t.text in (")", "]"):
                depth -= 1
            elif t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
            elif t.text == ";":
                ok = False
            if depth < 0:
                ok = False
        if not ok or depth != 0:
            continue
        # it must start a statement: the previous token ends one (not a braceless if/else/for body)
        if first > 0 and code[first - 1].text not in (";", "{", "}"):
            continue
        if _is_declaration(stmt):
            continue
        top = []  # tokens at paren depth 0
        depth = 0
        for t in stmt:
            if t.text in ("(", "[", "{"):
                depth += 1
            elif t.text in (")", "]", "}"):
                depth -= 1
            elif depth == 0:
                top.append(t.text)
        updates = any(x in ASSIGN_OPS for x in top) or "++" in top or "--" in top
        is_call = False
        if len(stmt) >= 4 and stmt[-2].text == ")":
            o = _open_paren(code, last - 1)
            is_call = o > first and (code[o - 1].kind == "ident" or code[o - 1].text == ">")
        if not (updates or is_call):
            continue
        # keep the line's indentation and trailing comment
        out.append(Mutant(file, "del_stmt", stmt[0].start, stmt[-1].end, "", text))
    return out


def _open_paren(code, close):
    depth = 0
    for j in range(close, -1, -1):
        if code[j].text == ")":
            depth += 1
        elif code[j].text == "(":
            depth -= 1
            if depth == 0:
                return j
    return 0


def generate(text, file):
    """Every mutant of one source file, in source order."""
    toks = lex(text)
    code = [t for t in toks if t.kind not in ("comment", "preproc")]
    skip = skipped_lines(text, code)
    out = []
    for i, t in enumerate(code):
        if t.kind == "punct":
            if t.text in REL and _spaced(text, t):
                out.append(Mutant(file, "rel", t.start, t.end, REL[t.text], text))
            elif t.text in ARITH and _spaced(text, t):
                out.append(Mutant(file, "arith", t.start, t.end, ARITH[t.text], text))
            elif t.text in LOGIC and _spaced(text, t):
                out.append(Mutant(file, "logic", t.start, t.end, LOGIC[t.text], text))
        elif t.kind == "ident":
            if t.text in ("true", "false"):
                out.append(Mutant(file, "bool", t.start, t.end, "false" if t.text == "true" else "true", text))
            elif t.text in ("if", "while") and i + 1 < len(code) and code[i + 1].text == "(":
                close = _match(code, i + 1, "(", ")")
                if close is None or close == i + 2:
                    continue
                cond = code[i + 2 : close]
                depth, plain = 0, True
                for c in cond:
                    depth += c.text in ("(", "[", "{")
                    depth -= c.text in (")", "]", "}")
                    if depth == 0 and (c.text == ";" or c.text in ASSIGN_OPS):
                        plain = False  # init-statement or declaration/assignment in the condition
                if not plain:
                    continue
                lo, hi = code[i + 1].start, code[close].end
                inner = text[lo + 1 : hi - 1]
                out.append(Mutant(file, "neg_cond", lo, hi, "(!(" + inner + "))", text))
        elif t.kind == "number":
            v = _int_value(t.text)
            if v is None:
                continue
            value, prefix, base, suffix, digits = v
            # not an array bound in a declaration: `T name[N]`
            if (i >= 2 and code[i - 1].text == "[" and i + 1 < len(code) and code[i + 1].text == "]"
                    and code[i - 2].kind == "ident" and i >= 3 and (code[i - 3].kind == "ident" or code[i - 3].text in (">", "*", "&"))):
                continue
            out.append(Mutant(file, "int_inc", t.start, t.end, _format_int(value + 1, prefix, base, suffix, digits), text))
            if value > 0:
                out.append(Mutant(file, "int_dec", t.start, t.end, _format_int(value - 1, prefix, base, suffix, digits), text))
    out.extend(_del_stmt_candidates(text, code, file))
    kept = []
    for m in out:
        last = text.count("\n", 0, m.end) + 1
        if any(l in skip for l in range(m.line, last + 1)):
            continue
        kept.append(m)
    kept.sort(key=lambda m: (m.line, m.col, OPERATORS.index(m.op), m.replacement))
    return kept


# ---------------------------------------------------------------------------------------------
# Nearest clause


def nearest_clause(text, line):
    """The closest MROCE-XXX-NNN named in a comment at or above `line` within its enclosing
    function (outermost brace block not a namespace), else the closest anywhere in the file."""
    toks = lex(text)
    comments = [t for t in toks if t.kind == "comment"]
    # enclosing function: start line of the depth-1 (below namespaces) block holding `line`
    code = [t for t in toks if t.kind not in ("comment", "preproc")]
    stack = []  # (line, is_namespace)
    func_start = None
    for i, t in enumerate(code):
        if t.line > line:
            break
        if t.text == "{":
            j = i - 1
            is_ns = False
            while j >= 0 and code[j].text not in (";", "{", "}"):
                if code[j].text == "namespace":
                    is_ns = True
                j -= 1
            stack.append((t.line, is_ns, j + 1))
        elif t.text == "}" and stack:
            stack.pop()
    for ln, is_ns, head in stack:
        if not is_ns:
            func_start = code[head].line if head < len(code) else ln
            break
    found = []  # (line, col, id)
    for c in comments:
        for m in CLAUSE.finditer(c.text):
            cl = c.line + c.text.count("\n", 0, m.start())
            found.append((cl, c.col + m.start(), m.group(0)))
    if func_start is not None:
        inside = [f for f in found if func_start <= f[0] <= line]
        if inside:
            best = max(f[0] for f in inside)
            return [f for f in inside if f[0] == best][0][2]
    if not found:
        return ""
    best = min(found, key=lambda f: (abs(f[0] - line), f[0] > line, f[1]))
    return best[2]


# ---------------------------------------------------------------------------------------------
# Sources and selection


def git(*args, cwd=ROOT):
    return subprocess.run(["git"] + list(args), cwd=cwd, check=True, capture_output=True, text=True).stdout


def source_files(rev):
    names = git("ls-tree", "--name-only", rev, SRC_DIR + "/").split()
    out = []
    for path in sorted(names):
        base = os.path.basename(path)
        if base.endswith(".cc") and not base.endswith("_test.cc") and base not in SKIP_FILES:
            out.append(path)
    return out


def read_sources(rev):
    return {os.path.basename(p): git("show", "%s:%s" % (rev, p)) for p in source_files(rev)}


def all_mutants(sources):
    out = []
    for f in sorted(sources):
        out.extend(generate(sources[f], f))
    return out


def select(mutants, seed, count):
    """count mutants picked deterministically by seed, spread over files in proportion to their
    candidate sites (largest remainder); all of them when count is None or not smaller."""
    if count is None or count >= len(mutants):
        return list(mutants)
    by_file = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
    total = len(mutants)
    quota = {f: count * len(ms) // total for f, ms in by_file.items()}
    rest = count - sum(quota.values())
    order = sorted(by_file, key=lambda f: (-(count * len(by_file[f]) % total), f))
    for f in order[:rest]:
        quota[f] += 1
    picked = []
    for f in sorted(by_file):
        ms = sorted(by_file[f], key=lambda m: m.id)
        rng = random.Random("%s:%s" % (seed, f))
        picked.extend(rng.sample(ms, quota[f]))
    picked.sort(key=lambda m: (m.file, m.line, m.col, OPERATORS.index(m.op), m.id))
    return picked


def load_equivalent(path):
    """id -> {"reason", "line"}: a value is the reason, or a mapping with the reason and the mutated
    line's original text (whitespace collapsed), which lets resolve_equivalent follow the mutant
    when lines above it move."""
    if not os.path.exists(path):
        return {}
    import yaml

    with open(path) as f:
        data = yaml.safe_load(f) or {}
    out = {}
    for k, v in data.items():
        if isinstance(v, dict):
            out[str(k)] = {"reason": str(v.get("reason", "")), "line": v.get("line")}
            if v.get("allowed"):
                out[str(k)]["allowed"] = str(v["allowed"])
        else:
            out[str(k)] = {"reason": str(v), "line": None}
    return out


def line_text(m):
    return " ".join(m.before.split())


def resolve_equivalent(equivalent, everything):
    """Maps the listed ids onto the mutants of these sources: (id -> reason, [(old, new)] moved,
    [old] stale). An id that no longer exists moved when exactly one mutant has its file, column,
    operator and text hash, and the listed line text (of several, the one nearest the old line);
    otherwise it is stale."""
    by_id = {m.id: m for m in everything}
    by_key = {}
    for m in everything:
        f, _line, col, op, h = m.id.rsplit(":", 4)
        by_key.setdefault((f, col, op, h), []).append(m)
    resolved, moved, stale = {}, [], []
    for old, e in equivalent.items():
        if old in by_id:
            resolved[old] = e["reason"]
            continue
        parts = old.rsplit(":", 4)
        cands = by_key.get((parts[0], parts[2], parts[3], parts[4]), []) if len(parts) == 5 else []
        cands = [m for m in cands if e["line"] is not None and line_text(m) == " ".join(str(e["line"]).split())]
        if len(cands) > 1:  # the same line text more than once in the file: the nearest to where it was
            dist = sorted((abs(m.line - int(parts[1])), m.id) for m in cands)
            cands = [m for m in cands if m.id == dist[0][1]] if dist[0][0] < dist[1][0] else cands
        if len(cands) == 1 and cands[0].id not in equivalent:
            resolved[cands[0].id] = e["reason"]
            moved.append((old, cands[0].id))
        else:
            stale.append(old)
    return resolved, moved, stale


def write_equivalent(path, equivalent, moved, everything):
    """Rewrites the list with moved ids renamed and every entry's line text recorded; the leading
    comment block is kept."""
    by_id = {m.id: m for m in everything}
    rename = dict(moved)
    header = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            header.append(line)
    body = []
    for old, e in equivalent.items():
        i = rename.get(old, old)
        text = line_text(by_id[i]) if i in by_id else e["line"]
        body.append("%s:\n  reason: %s\n" % (json.dumps(i), json.dumps(e["reason"])))
        if e.get("allowed"):
            body[-1] += "  allowed: %s\n" % json.dumps(e["allowed"])
        if text is not None:
            body[-1] += "  line: %s\n" % json.dumps(text)
    with open(path + ".tmp", "w") as f:
        f.write("".join(header) + "".join(body))
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------------------------------------
# Build and run


class Stop(Exception):
    pass


STOP = threading.Event()


def _on_term(signum, frame):
    STOP.set()
    raise Stop("signal %d" % signum)


class Worker:
    """A scratch copy of the tree at `rev`, configured once; builds one mutant at a time."""

    def __init__(self, area, n, rev, sha, log):
        self.dir = os.path.join(area, "w%d" % n)
        self.src = os.path.join(self.dir, "src")
        self.build = os.path.join(self.dir, "build")
        self.rev, self.sha, self.log = rev, sha, log
        self.proc = None

    def prepare(self, sources):
        marker = os.path.join(self.dir, "source-commit")
        if not (os.path.exists(marker) and open(marker).read().strip() == self.sha and os.path.isdir(self.src)):
            self.log("%s: extracting %s" % (self.dir, self.sha[:12]))
            shutil.rmtree(self.src, ignore_errors=True)
            os.makedirs(self.src)
            archive = subprocess.run(["git", "archive", self.sha], cwd=ROOT, check=True, capture_output=True).stdout
            import io

            with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
                tf.extractall(self.src)
            # the archive's mtimes are the commit's: newer ones make ninja rebuild what an earlier
            # tree in this place may have built from other contents (ccache keeps that cheap)
            now = time.time()
            for d, _, names in os.walk(self.src):
                for name in names:
                    os.utime(os.path.join(d, name), (now, now))
            with open(marker, "w") as f:
                f.write(self.sha + "\n")
        # a previous run stopped hard may have left a mutant in place
        for f, text in sources.items():
            self.write(f, text, only_if_different=True)
        if not os.path.exists(os.path.join(self.build, "build.ninja")):
            self.log("%s: configuring" % self.dir)
            subprocess.run(["cmake", "-S", self.src, "-B", self.build, "-G", "Ninja",
                            "-DPython3_EXECUTABLE=/usr/bin/python3", "-DMROCE_PYTHON=OFF", "-DMROCE_DPDK=OFF",
                            "-DMROCE_SANITIZE=OFF", "-DMROCE_FUZZ=OFF", "-DCMAKE_BUILD_TYPE=Release"]
                           + (["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
                              if shutil.which("ccache") else []),
                           check=True, capture_output=True)
        ok, out = self.ninja()
        if not ok:
            raise SystemExit("mutate: the pristine plugin does not build in %s:\n%s" % (self.build, out[-3000:]))

    def path(self, f):
        return os.path.join(self.src, SRC_DIR, f)

    def write(self, f, text, only_if_different=False):
        p = self.path(f)
        if only_if_different and os.path.exists(p):
            with open(p) as fh:
                if fh.read() == text:
                    return
        with open(p + ".tmp", "w") as fh:
            fh.write(text)
        os.replace(p + ".tmp", p)

    def ninja(self):
        r = subprocess.run(["ninja", "-C", self.build, "-j1", TARGET], capture_output=True, text=True)
        return r.returncode == 0, r.stdout + r.stderr

    def plugin(self):
        return os.path.join(self.build, PLUGIN)


def _reap(p):
    """Waits for a killed harness; a descendant in another process group that still holds its output
    pipe (a harness without PR_SET_PDEATHSIG for its case children) must not hang the tool."""
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.stdout.close()
        p.wait()


def run_suite(harness, plugin, suite_root, out_dir, timeout):
    """Runs the suite; returns (status, failing cases [(id, verdict, clauses, checks)], seconds, detail).

    checks: the names of the case's checks that did not pass (which oracle killed the mutant)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [harness, "run", "--dut", "plugin:" + plugin, "--seed", "1", "--jobs", "1", "--quiet", "--out", out_dir,
           "--suite", os.path.join(suite_root, "testcases"),
           "--catalog", os.path.join(suite_root, "docs/spec/clauses.json")]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _reap(p)
        return "timeout", [], time.monotonic() - t0, "no result after %d s" % timeout
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        _reap(p)
        raise
    secs = time.monotonic() - t0
    tail = out.decode(errors="replace").strip().splitlines()[-3:]
    report = os.path.join(out_dir, "report.json")
    if p.returncode < 0 or not os.path.exists(report):
        sig = -p.returncode if p.returncode < 0 else None
        return "crash", [], secs, ("signal %d" % sig if sig else "exit %d, no report" % p.returncode) + ": " + " | ".join(tail)
    with open(report) as f:
        rep = json.load(f)
    failing = []
    for t in rep.get("tests", []):
        if t.get("verdict") == "pass":
            continue
        # the case's clauses, then those of its checks that did not pass (e.g. the clause monitor's)
        clauses = [c["id"] for c in t.get("clauses", [])]
        checks = []
        for ch in t.get("checks", []):
            if ch.get("verdict") not in ("pass", "skip"):
                clauses += [c for c in ch.get("clauses", []) if c not in clauses]
                checks.append(ch["check"])
        failing.append((t["id"], t["verdict"], clauses, checks))
    if failing or p.returncode != 0 or rep.get("incomplete"):
        return "killed", failing, secs, "exit %d" % p.returncode
    return "survived", [], secs, ""


# ---------------------------------------------------------------------------------------------
# Reporting


def write_json(path, data):
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


KILLED = ("killed", "timeout", "crash")


def allowed_ids(listed, moved, resolved):
    """id -> clause for the resolved ids of the listed entries marked `allowed` (the clause that
    permits what the mutant changes)."""
    rename = dict(moved)
    return {rename.get(old, old): e["allowed"] for old, e in listed.items()
            if e.get("allowed") and rename.get(old, old) in resolved}


def summarize(meta, records, equivalent, sources, allowed=None):
    """summary.md text from the measured records (dicts). `allowed`: ids of listed entries whose
    change the spec permits (spec-allowed): they count as survivors in the kill rate, and are left
    out of the second rate, the kill rate of the mutants that break the spec."""
    measured = [r for r in records if "status" in r]
    allowed = dict(allowed or {})
    eq_ids = set(equivalent) - set(allowed)
    counts = {s: 0 for s in ("killed", "survived", "stillborn", "timeout", "crash")}
    for r in measured:
        counts[r["status"]] += 1
    eq_measured = [r for r in measured if r["id"] in eq_ids and r["status"] != "stillborn"]
    killed_ne = sum(1 for r in measured if r["status"] in KILLED and r["id"] not in eq_ids)
    denom = sum(1 for r in measured if r["status"] != "stillborn" and r["id"] not in eq_ids)
    rate = lambda k, d: ("%.1f%%" % (100.0 * k / d)) if d else "n/a"
    L = []
    L.append("# Mutation score of the suite against the reference endpoint")
    L.append("")
    partial = len(measured) < len(records)
    L.append("- state: %s (%d of %d selected mutants measured)" % ("PARTIAL" if partial else "complete", len(measured), len(records)))
    for k in ("date", "commit", "seed", "count", "harness", "harness_sha256", "harness_built", "timeout_s",
              "wall_s_per_mutant"):
        if k in meta:
            L.append("- %s: %s" % (k, meta[k]))
    L.append("- total measured: %d; stillborn (does not compile): %d; equivalent (ci/mutants-equivalent.yaml): %d" % (
        len(measured), counts["stillborn"], len(eq_measured)))
    surv_ne = sum(1 for r in measured if r["status"] == "survived" and r["id"] not in eq_ids)
    L.append("- killed: %d (of which timeout %d, crash %d); survived: %d (not counting %d listed equivalent)" % (
        killed_ne, sum(r["status"] == "timeout" and r["id"] not in eq_ids for r in measured),
        sum(r["status"] == "crash" and r["id"] not in eq_ids for r in measured), surv_ne, len(eq_measured)))
    L.append("- **kill rate: %s** (%d killed / %d = total - stillborn - equivalent)" % (rate(killed_ne, denom), killed_ne, denom))
    al_measured = [r for r in measured if r["id"] in allowed and r["status"] != "stillborn"]
    al_killed = [r for r in al_measured if r["status"] in KILLED]
    if al_measured:
        k_spec = killed_ne - len(al_killed)
        d_spec = denom - len(al_measured)
        L.append("- **kill rate of the mutants that break the spec: %s** (%d killed / %d = the above less %d spec-allowed, "
                 "listed with the clause that permits each)" % (rate(k_spec, d_spec), k_spec, d_spec, len(al_measured)))
    if al_killed:
        L.append("- **FALSE FAIL: %d spec-allowed mutant(s) killed** (the suite failed behaviour the spec permits): %s" % (
            len(al_killed), ", ".join("`%s`" % r["id"] for r in al_killed)))
    # Which oracle killed: a mutant whose every failing case failed only the clause monitor would
    # have survived without it (checks are pure functions of the run: the others give the same verdicts).
    with_checks = [r for r in measured if r["status"] == "killed" and r["id"] not in eq_ids and r.get("failing") and
                   all("checks" in f for f in r["failing"])]
    if with_checks:
        only_monitor = [r for r in with_checks
                        if all(f["checks"] and set(f["checks"]) <= {"clause-monitor"} for f in r["failing"])]
        by_monitor = [r for r in with_checks if any("clause-monitor" in f["checks"] for f in r["failing"])]
        L.append("- the clause monitor failed %d killed mutant(s); %d were killed by it alone (without it: %d killed, %s)" % (
            len(by_monitor), len(only_monitor), killed_ne - len(only_monitor), rate(killed_ne - len(only_monitor), denom)))
    L.append("")

    def table(key, title):
        L.append("## Per %s" % title)
        L.append("")
        L.append("| %s | mutants | stillborn | equivalent | killed | survived | kill rate |" % title)
        L.append("|---|---:|---:|---:|---:|---:|---:|")
        groups = {}
        for r in measured:
            groups.setdefault(r[key], []).append(r)
        for g in sorted(groups):
            rs = groups[g]
            sb = sum(r["status"] == "stillborn" for r in rs)
            eq = sum(r["id"] in eq_ids and r["status"] != "stillborn" for r in rs)
            k = sum(r["status"] in KILLED and r["id"] not in eq_ids for r in rs)
            s = sum(r["status"] == "survived" and r["id"] not in eq_ids for r in rs)
            L.append("| %s | %d | %d | %d | %d | %d | %s |" % (g, len(rs), sb, eq, k, s, rate(k, k + s)))
        L.append("")

    table("file", "file")
    table("operator", "operator")
    surv = [r for r in measured if r["status"] == "survived" and r["id"] not in eq_ids and r["id"] not in allowed]
    L.append("## Survivors (%d; spec-allowed ones listed below)" % len(surv))
    L.append("")
    L.append("| id | file:line | nearest clause | mutated line |")
    L.append("|---|---|---|---|")
    for r in surv:
        shown = ("deleted: " + r["before"]) if r["operator"] == "del_stmt" else r["after"]
        L.append("| `%s` | %s:%d | %s | `%s` |" % (r["id"], r["file"], r["line"], r.get("clause") or "-",
                                                  " ".join(shown.split()).replace("|", "\\|")))
    L.append("")
    al_seen = [r for r in measured if r["id"] in allowed]
    if al_seen:
        L.append("## Spec-allowed (survivors the suite must not kill: the clause permits the change)")
        L.append("")
        for r in al_seen:
            note = "" if r["status"] in ("survived", "stillborn") else " **(killed: a false FAIL, %s)**" % r["status"]
            L.append("- `%s` (%s): %s%s" % (r["id"], allowed[r["id"]], equivalent.get(r["id"], ""), note))
        L.append("")
    eq_seen = [r for r in measured if r["id"] in eq_ids]
    if eq_seen:
        L.append("## Equivalent (excluded from the denominator)")
        L.append("")
        for r in eq_seen:
            note = "" if r["status"] in ("survived", "stillborn") else " **(listed equivalent but %s)**" % r["status"]
            L.append("- `%s`: %s%s" % (r["id"], equivalent[r["id"]], note))
        L.append("")
    all_ids = meta.get("all_ids")
    if all_ids is not None or meta.get("stale_equivalent"):
        stale = sorted(set(meta.get("stale_equivalent", [])) |
                       {i for i in equivalent if all_ids is not None and i not in all_ids})
        if stale:
            L.append("## Stale ids in ci/mutants-equivalent.yaml (no such mutant at this commit)")
            L.append("")
            L.extend("- `%s`" % i for i in stale)
            L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------------------------------------
# Main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None, help="mutants to pick (default: all)")
    ap.add_argument("--list", action="store_true", help="print the selected mutants and exit")
    ap.add_argument("--only", action="append", default=[], help="run only this mutant id (repeatable)")
    ap.add_argument("--out", default=None, help="results directory")
    ap.add_argument("--jobs", type=int, default=1, help="parallel workers (scratch trees)")
    ap.add_argument("--rev", default="HEAD", help="commit whose sources are mutated and built (default HEAD)")
    ap.add_argument("--harness", default=os.path.join(ROOT, "build/harness/cli/mroce-cts"),
                    help="pristine mroce-cts binary (copied at start)")
    ap.add_argument("--scratch", default="/work/tmp-mutate", help="scratch area for the worker trees")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per suite run")
    ap.add_argument("--equivalent", default=os.path.join(ROOT, "ci/mutants-equivalent.yaml"))
    ap.add_argument("--rewrite-equivalent", action="store_true",
                    help="rewrite the equivalent list: ids whose line moved renamed, each entry's line text "
                         "recorded; builds and runs nothing")
    ap.add_argument("--resume", action="store_true", help="keep the mutants already measured in --out")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite mutants.json and summary.md from --out's results.jsonl (e.g. after editing the "
                         "equivalent list); builds and runs nothing")
    args = ap.parse_args(argv)

    sha = git("rev-parse", args.rev).strip()
    tree = git("rev-parse", "%s:%s" % (sha, SRC_DIR)).strip()
    sources = read_sources(sha)
    everything = all_mutants(sources)
    by_id = {m.id: m for m in everything}
    if args.only:
        missing = [i for i in args.only if i not in by_id]
        if missing:
            raise SystemExit("mutate: no such mutant at %s: %s" % (sha[:12], ", ".join(missing)))
        chosen = [by_id[i] for i in args.only]
    else:
        chosen = select(everything, args.seed, args.count)
    listed = load_equivalent(args.equivalent)
    equivalent, moved, stale = resolve_equivalent(listed, everything)
    allowed = allowed_ids(listed, moved, equivalent)
    if args.rewrite_equivalent:
        write_equivalent(args.equivalent, listed, moved, everything)
        print("# %s: %d entries, %d renamed (lines moved), %d stale" % (args.equivalent, len(listed), len(moved),
                                                                           len(stale)), file=sys.stderr)
        for i in stale:
            print("# stale id in %s: %s" % (args.equivalent, i), file=sys.stderr)
        return 0
    for old, new in moved:
        print("# %s: %s moved to %s (same line text)" % (args.equivalent, old, new), file=sys.stderr)
    if args.list:
        for m in chosen:
            print("%s\t%s" % (m.id, " ".join(m.after.split())))
        print("# %d of %d candidate mutants (seed %d)" % (len(chosen), len(everything), args.seed), file=sys.stderr)
        for i in stale:
            print("# stale id in %s: %s" % (args.equivalent, i), file=sys.stderr)
        return 0
    if not args.out:
        raise SystemExit("mutate: --out DIR is needed to build and run")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    log_lock = threading.Lock()

    def log(msg):
        with log_lock:
            print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    signal.signal(signal.SIGTERM, _on_term)
    os.makedirs(args.scratch, exist_ok=True)

    results_path = os.path.join(out, "results.jsonl")
    done = {}
    if (args.resume or args.report_only) and os.path.exists(results_path):
        with open(results_path) as f:
            for l in f:
                l = l.strip()
                if l:
                    r = json.loads(l)
                    if r.get("commit") == sha or r.get("sources_tree") == tree:  # same sources, same ids
                        done[r["id"]] = r
        log("resume: %d mutants already measured" % len(done))
    elif os.path.exists(results_path):
        os.remove(results_path)

    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": sha,
            "seed": args.seed, "count": args.count if not args.only else "--only", "harness": args.harness,
            "timeout_s": args.timeout,
            "all_ids": set(by_id), "stale_equivalent": stale}
    records = []
    for m in chosen:
        d = m.as_dict()
        d["clause"] = nearest_clause(sources[m.file], m.line)
        if m.id in done:
            d.update({k: done[m.id][k] for k in ("status", "failing", "seconds", "build_s", "detail", "timeout_s")
                      if k in done[m.id]})
        records.append(d)
    rec_by_id = {r["id"]: r for r in records}
    state_lock = threading.Lock()
    t_start = time.monotonic()
    n_new = [0]

    def flush():
        with state_lock:
            if n_new[0]:
                meta["wall_s_per_mutant"] = "%.1f" % ((time.monotonic() - t_start) / n_new[0])
            write_json(os.path.join(out, "mutants.json"),
                       {"commit": sha, "seed": args.seed, "count": args.count, "mutants": records})
            with open(os.path.join(out, "summary.md.tmp"), "w") as f:
                f.write(summarize(meta, records, equivalent, sources, allowed) + "\n")
            os.replace(os.path.join(out, "summary.md.tmp"), os.path.join(out, "summary.md"))

    if args.report_only:
        meta["date"] = "%s (summary rewritten from results.jsonl)" % meta["date"]
        meta["timeout_s"] = ", ".join(sorted({str(r.get("timeout_s", "not recorded")) for r in done.values()}))
        meta["commit"] = ", ".join(sorted({r.get("commit", "?") for r in done.values()}))
        kept = os.path.join(out, "mroce-cts.pristine")
        if os.path.exists(kept):
            with open(kept, "rb") as f:
                meta["harness_sha256"] = hashlib.sha256(f.read()).hexdigest()
            meta["harness_built"] = datetime.datetime.fromtimestamp(
                os.path.getmtime(kept), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        flush()
        log("summary: %s" % os.path.join(out, "summary.md"))
        return 0
    # the main build may be relinked while this runs: one copy per results directory, kept by --resume
    harness = os.path.join(out, "mroce-cts.pristine")
    if not (args.resume and os.path.exists(harness)):
        shutil.copy2(args.harness, harness)
    with open(harness, "rb") as f:
        meta["harness_sha256"] = hashlib.sha256(f.read()).hexdigest()
    meta["harness_built"] = datetime.datetime.fromtimestamp(os.path.getmtime(harness), datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S UTC")
    workers = [Worker(args.scratch, n, args.rev, sha, log) for n in range(max(1, args.jobs))]
    todo = [m for m in chosen if m.id not in done]
    log("%d mutants selected (%d candidates at %s), %d to run, %d worker(s)" % (
        len(chosen), len(everything), sha[:12], len(todo), len(workers)))
    try:
        for w in workers:
            w.prepare(sources)
        # the pristine plugin must pass every case
        status, failing, secs, detail = run_suite(harness, workers[0].plugin(), workers[0].src,
                                                  os.path.join(workers[0].dir, "run-pristine"), args.timeout)
        if status != "survived":
            raise SystemExit("mutate: the pristine plugin does not pass the whole suite (%s; %s): %s" % (
                status, detail, ", ".join("%s=%s" % (i, v) for i, v, _, _ in failing[:20])))
        log("pristine: every case passes (%.1f s)" % secs)
        flush()

        queue = list(todo)
        qlock = threading.Lock()

        def work(w):
            while True:
                with qlock:
                    if not queue or STOP.is_set():
                        return
                    m = queue.pop(0)
                original = sources[m.file]
                t0 = time.monotonic()
                try:
                    w.write(m.file, m.apply(original))
                    ok, bout = w.ninja()
                    build_s = time.monotonic() - t0
                    if not ok:
                        status, failing, secs, detail = "stillborn", [], 0.0, _first_error(bout)
                    else:
                        status, failing, secs, detail = run_suite(harness, w.plugin(), w.src,
                                                                  os.path.join(w.dir, "run"), args.timeout)
                finally:
                    w.write(m.file, original)
                r = rec_by_id[m.id]
                r.update({"status": status, "failing": [{"case": c, "verdict": v, "clauses": cl, "checks": ck} for c, v, cl, ck in failing],
                          "seconds": round(secs, 2), "build_s": round(build_s, 2), "detail": detail,
                          "timeout_s": args.timeout})
                with state_lock:
                    n_new[0] += 1
                    with open(results_path, "a") as f:
                        f.write(json.dumps(dict(r, commit=sha, sources_tree=tree), sort_keys=True) + "\n")
                log("%-55s %-9s %s" % (m.id, status, ", ".join(c for c, _, _, _ in failing[:3]) or detail[:60]))
                flush()

        if len(workers) == 1:
            work(workers[0])
        else:
            with concurrent.futures.ThreadPoolExecutor(len(workers)) as ex:
                for f in [ex.submit(work, w) for w in workers]:
                    f.result()
    except (KeyboardInterrupt, Stop) as e:
        STOP.set()
        log("stopped (%s): results so far are in %s" % (e or "interrupt", out))
        flush()
        return 130
    finally:
        for w in workers:  # every worker tree back to the pristine sources
            for f, text in sources.items():
                try:
                    w.write(f, text, only_if_different=True)
                except OSError:
                    pass
    flush()
    log("done: %s" % os.path.join(out, "summary.md"))
    return 0


def _first_error(out):
    for l in out.splitlines():
        if "error:" in l:
            return l.strip()[:300]
    return out.strip().splitlines()[-1][:300] if out.strip() else "build failed"


if __name__ == "__main__":
    sys.exit(main())
