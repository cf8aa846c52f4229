"""Tests of the mutant generator of ci/mutate.py (run: /usr/bin/python3 -m pytest ci/mutate_test.py)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402


def mutated(src, op=None):
    """The mutated texts of src (each mutant applied alone), for one operator or all."""
    return [m.apply(src) for m in mutate.generate(src, "t.cc") if op is None or m.op == op]


def ops(src):
    return sorted((m.op, m.replacement) for m in mutate.generate(src, "t.cc"))


# --- each operator produces exactly the expected text -----------------------------------------


def test_relational_swaps():
    src = "bool f(int a, int b) { return a < b; }\n"
    assert mutated(src, "rel") == ["bool f(int a, int b) { return a <= b; }\n"]
    assert mutated("x = a <= b;\n", "rel") == ["x = a < b;\n"]
    assert mutated("x = a > b;\n", "rel") == ["x = a >= b;\n"]
    assert mutated("x = a >= b;\n", "rel") == ["x = a > b;\n"]
    assert mutated("x = a == b;\n", "rel") == ["x = a != b;\n"]
    assert mutated("x = a != b;\n", "rel") == ["x = a == b;\n"]


def test_arithmetic_swaps():
    assert mutated("y = a + b;\n", "arith") == ["y = a - b;\n"]
    assert mutated("y = a - b;\n", "arith") == ["y = a + b;\n"]
    assert mutated("y = a * b;\n", "arith") == ["y = a / b;\n"]
    assert mutated("y = a / b;\n", "arith") == []  # only * -> /


def test_unary_and_unspaced_operators_are_not_touched():
    assert mutated("y = -a;\nz = *p;\nw = a+b;\n", "arith") == []
    assert mutated("void f(T&& x, int* p);\n", "logic") == []


def test_logic_swaps():
    assert mutated("y = a && b;\n", "logic") == ["y = a || b;\n"]
    assert mutated("y = a || b;\n", "logic") == ["y = a && b;\n"]


def test_bool_literals():
    assert mutated("bool y = true;\n", "bool") == ["bool y = false;\n"]
    assert mutated("bool y = false;\n", "bool") == ["bool y = true;\n"]


def test_integer_literals():
    src = "int y = 4;\n"
    assert mutated(src, "int_inc") == ["int y = 5;\n"]
    assert mutated(src, "int_dec") == ["int y = 3;\n"]
    assert mutated("int y = 0;\n", "int_dec") == []  # N > 0 only
    assert mutated("int y = 0;\n", "int_inc") == ["int y = 1;\n"]
    assert mutated("auto y = 0xFF;\n", "int_inc") == ["auto y = 0x100;\n"]
    assert mutated("auto y = 0x0a;\n", "int_dec") == ["auto y = 0x09;\n"]
    assert mutated("auto y = 10u;\n", "int_dec") == ["auto y = 9u;\n"]
    assert mutated("double y = 1.5;\n", "int_inc") == []


def test_array_bounds_in_declarations_are_not_mutated():
    assert mutated("uint8_t buf[64];\n", "int_inc") == []
    assert mutated("y = buf[3];\n", "int_inc") == ["y = buf[4];\n"]


def test_negated_conditions():
    assert mutated("void f() {\n  if (a < b) g();\n}\n", "neg_cond") == ["void f() {\n  if (!(a < b)) g();\n}\n"]
    assert mutated("void f() {\n  while (x) g();\n}\n", "neg_cond") == ["void f() {\n  while (!(x)) g();\n}\n"]
    multi = "void f() {\n  if (a &&\n      b) {\n  }\n}\n"
    assert mutated(multi, "neg_cond") == ["void f() {\n  if (!(a &&\n      b)) {\n  }\n}\n"]


def test_conditions_with_declarations_or_init_statements_are_not_negated():
    assert mutated("void f() {\n  if (auto* p = g()) h();\n}\n", "neg_cond") == []
    assert mutated("void f() {\n  if (int x = g(); x > 1) h();\n}\n", "neg_cond") == []


def test_statement_deletion():
    src = "void f() {\n  x = 1;  // note\n  y += 2;\n  ++z;\n  v.push_back(3);\n  g(a, b);\n}\n"
    assert mutated(src, "del_stmt") == [
        "void f() {\n    // note\n  y += 2;\n  ++z;\n  v.push_back(3);\n  g(a, b);\n}\n",
        "void f() {\n  x = 1;  // note\n  \n  ++z;\n  v.push_back(3);\n  g(a, b);\n}\n",
        "void f() {\n  x = 1;  // note\n  y += 2;\n  \n  v.push_back(3);\n  g(a, b);\n}\n",
        "void f() {\n  x = 1;  // note\n  y += 2;\n  ++z;\n  \n  g(a, b);\n}\n",
        "void f() {\n  x = 1;  // note\n  y += 2;\n  ++z;\n  v.push_back(3);\n  \n}\n",
    ]


def test_statement_deletion_spares_declarations_returns_and_braceless_bodies():
    src = (
        "int f() {\n"
        "  const int a = 1;\n"
        "  std::vector<int> v;\n"
        "  Foo& r = g();\n"
        "  Foo* p = h();\n"
        "  int n;\n"
        "  if (c)\n"
        "    x = 2;\n"
        "  else\n"
        "    x = 3;\n"
        "  g(a,\n"
        "    b);\n"
        "  return a;\n"
        "}\n"
    )
    assert mutated(src, "del_stmt") == []


# --- what is never mutated ---------------------------------------------------------------------


def test_comments_strings_and_preprocessor_lines_are_never_mutated():
    src = (
        '#include <vector>\n'
        '#if A < B && C == 1\n'
        '#endif\n'
        '// a < b + 1 && true\n'
        '/* a == b\n   x - y */\n'
        'const char* s = "a < b + 1 && true";\n'
        "const char c = '1';\n"
        'const char* r = R"(a < b)";\n'
    )
    assert mutate.generate(src, "t.cc") == []


def test_templates_arrows_and_shifts_are_never_mutated():
    src = (
        "std::vector<std::pair<int, int>> v;\n"
        "auto q = static_cast<uint32_t>(x);\n"
        "y = p->next;\n"
        "z = a << b;\n"
        "w = a >> b;\n"
        "template <typename T> struct S;\n"
    )
    assert [o for o in ops(src) if o[0] != "del_stmt"] == []


def test_quirk_and_variant_lines_and_guarded_bodies_are_skipped():
    src = (
        "void f() {\n"
        "  if (c_.Quirk(Quirk::kX)) {\n"
        "    y = a + b;\n"
        "  }\n"
        "  if (!c_.Quirk(Quirk::kY)) {\n"
        "    z = a + b;\n"
        "  }\n"
        "  if (c_.HasVariant(Variant::kZ)) w = a + b;\n"
        "}\n"
    )
    lines = sorted({m.line for m in mutate.generate(src, "t.cc")})
    assert lines == [6]  # only the body taken when the quirk is off


# --- ids and selection -------------------------------------------------------------------------


def test_ids_are_stable_and_unique():
    src = "int f(int a, int b) {\n  if (a < b) x = a + 1;\n  return a == b;\n}\n"
    a = [m.id for m in mutate.generate(src, "t.cc")]
    b = [m.id for m in mutate.generate(src, "t.cc")]
    assert a == b
    assert len(set(a)) == len(a)
    assert "t.cc:2:9:rel:" in a[1] or any(i.startswith("t.cc:2:9:rel:") for i in a)
    for i in a:
        f, line, col, op, h = i.split(":")
        assert f == "t.cc" and int(line) > 0 and int(col) > 0 and op in mutate.OPERATORS and len(h) == 6


def test_seeded_selection_is_deterministic_and_proportional():
    files = {
        "big.cc": "void f() {\n" + "".join("  x%d = a + %d;\n" % (i, i + 1) for i in range(30)) + "}\n",
        "small.cc": "void g() {\n" + "".join("  y%d = b + %d;\n" % (i, i + 1) for i in range(10)) + "}\n",
    }
    everything = mutate.all_mutants(files)
    one = [m.id for m in mutate.select(everything, 7, 20)]
    two = [m.id for m in mutate.select(mutate.all_mutants(files), 7, 20)]
    assert one == two
    assert len(one) == 20 and len(set(one)) == 20
    assert [m.id for m in mutate.select(everything, 8, 20)] != one
    big = sum(i.startswith("big.cc") for i in one)
    n_big = sum(m.file == "big.cc" for m in everything)
    assert abs(big - 20 * n_big / len(everything)) <= 1
    assert len(mutate.select(everything, 7, None)) == len(everything)


def test_list_of_the_real_sources_is_reproducible():
    cmd = [sys.executable, os.path.join(mutate.ROOT, "ci/mutate.py"), "--list", "--seed", "3", "--count", "25"]
    a = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    b = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert a == b and len(a.splitlines()) == 25
    for line in a.splitlines():
        f = line.split(":")[0]
        assert f.endswith(".cc") and not f.endswith("_test.cc") and f not in ("quirks.cc", "variants.cc")
        assert "quirk" not in line.lower() and "variant" not in line.lower()


# --- nearest clause ----------------------------------------------------------------------------


def test_nearest_clause_in_the_enclosing_function():
    src = (
        "// MROCE-FILE-001: file header\n"
        "namespace x {\n"
        "void f() {\n"
        "  // MROCE-ACK-002: first\n"
        "  a = 1;\n"
        "  b = 2;  // MROCE-ACK-003\n"
        "  c = 3;\n"
        "}\n"
        "void g() {\n"
        "  d = 4;\n"
        "}\n"
        "// MROCE-LOSS-009 below g\n"
        "}  // namespace x\n"
    )
    assert mutate.nearest_clause(src, 5) == "MROCE-ACK-002"
    assert mutate.nearest_clause(src, 6) == "MROCE-ACK-003"  # at the line itself
    assert mutate.nearest_clause(src, 7) == "MROCE-ACK-003"
    # none inside g: the closest in the file
    assert mutate.nearest_clause(src, 10) == "MROCE-LOSS-009"
    assert mutate.nearest_clause("void h() {\n  x = 1;\n}\n", 2) == ""


def test_clause_in_a_string_is_not_a_comment():
    src = 'void f() {\n  s = "MROCE-ACK-001";\n  // MROCE-ACK-005\n  x = 1;\n}\n'
    assert mutate.nearest_clause(src, 2) == "MROCE-ACK-005"


# --- summary -----------------------------------------------------------------------------------


def test_summary_excludes_stillborn_and_equivalent_from_the_denominator():
    recs = [
        {"id": "a", "file": "x.cc", "line": 1, "operator": "rel", "after": "a", "status": "killed"},
        {"id": "b", "file": "x.cc", "line": 2, "operator": "rel", "after": "b", "status": "survived"},
        {"id": "c", "file": "x.cc", "line": 3, "operator": "rel", "after": "c", "status": "stillborn"},
        {"id": "d", "file": "y.cc", "line": 4, "operator": "bool", "after": "d", "status": "survived"},
        {"id": "e", "file": "y.cc", "line": 5, "operator": "bool", "after": "e", "status": "timeout"},
        {"id": "f", "file": "y.cc", "line": 6, "operator": "bool", "after": "f"},
    ]
    md = mutate.summarize({"all_ids": {"a", "b", "c", "d", "e", "f"}}, recs, {"d": "same value", "zz": "gone"}, {})
    assert "PARTIAL" in md
    assert "**kill rate: 66.7%** (2 killed / 3" in md
    assert "`zz`" in md  # stale equivalent id reported
    assert "| `b` | x.cc:2 |" in md and "| `d` |" not in md


def test_spec_allowed_mutants_count_as_survivors_and_are_left_out_of_the_spec_rate():
    recs = [
        {"id": "a", "file": "x.cc", "line": 1, "operator": "rel", "after": "a", "status": "killed"},
        {"id": "b", "file": "x.cc", "line": 2, "operator": "rel", "after": "b", "status": "survived"},
        {"id": "d", "file": "y.cc", "line": 4, "operator": "bool", "after": "d", "status": "survived"},
        {"id": "e", "file": "y.cc", "line": 5, "operator": "bool", "after": "e", "status": "killed"},
    ]
    eq = {"d": "MROCE-STRM-009 lets a sender spray in any order", "e": "any port in range"}
    md = mutate.summarize({}, recs, eq, {}, {"d": "MROCE-STRM-009", "e": "MROCE-ENC-004"})
    assert "**kill rate: 50.0%** (2 killed / 4" in md  # both allowed ones in the denominator
    # 1 killed (a) / 2 (a, b): e's kill is a false FAIL, not a kill
    assert "**kill rate of the mutants that break the spec: 50.0%** (1 killed / 2" in md
    assert "FALSE FAIL: 1 spec-allowed mutant(s) killed" in md and "`e`" in md
    assert "- `d` (MROCE-STRM-009): MROCE-STRM-009 lets a sender spray in any order" in md
    assert "| `d` |" not in md and "| `b` |" in md


def test_allowed_entries_keep_their_clause_when_rewritten(tmp_path):
    src = "int f(int a) {\n  return a + 1;\n}\n"
    ms = mutate.generate(src, "t.cc")
    i = [m.id for m in ms if m.op == "int_inc"][0]
    path = tmp_path / "eq.yaml"
    path.write_text("%s:\n  reason: \"r\"\n  allowed: MROCE-X-001\n" % i)
    listed = mutate.load_equivalent(str(path))
    resolved, moved, _ = mutate.resolve_equivalent(listed, ms)
    assert mutate.allowed_ids(listed, moved, resolved) == {i: "MROCE-X-001"}
    mutate.write_equivalent(str(path), listed, moved, ms)
    assert mutate.load_equivalent(str(path))[i]["allowed"] == "MROCE-X-001"


def test_equivalent_ids_follow_their_line_when_lines_above_move(tmp_path):
    before = "int f(int a) {\n  return a + 1;\n}\nint g(int b) {\n  return b + 1;\n}\n"
    after = "// a new first line\n" + before
    old = {m.id: m for m in mutate.generate(before, "t.cc")}
    new = mutate.generate(after, "t.cc")
    g_inc = [i for i, m in old.items() if m.op == "int_inc" and m.line == 5][0]
    f_inc = [i for i, m in old.items() if m.op == "int_inc" and m.line == 2][0]
    path = tmp_path / "eq.yaml"
    path.write_text("# header kept\n%s:\n  reason: \"r1\"\n  line: \"return b + 1;\"\n%s: \"r2\"\n" % (g_inc, f_inc))
    listed = mutate.load_equivalent(str(path))
    resolved, moved, stale = mutate.resolve_equivalent(listed, new)
    g_new = [m.id for m in new if m.op == "int_inc" and m.line == 6][0]
    assert moved == [(g_inc, g_new)] and resolved == {g_new: "r1"}
    assert stale == [f_inc]  # no line text recorded: not followed
    # Rewritten, both carry their line text from now on (the stale one keeps what it had).
    mutate.write_equivalent(str(path), listed, moved, new)
    text = path.read_text()
    assert text.startswith("# header kept\n")
    again = mutate.load_equivalent(str(path))
    assert again[g_new] == {"reason": "r1", "line": "return b + 1;"}
    assert again[f_inc] == {"reason": "r2", "line": None}
    # A line whose text changed is not followed.
    changed = mutate.generate(after.replace("return b + 1;", "return b  +  1; // x"), "t.cc")
    _, moved2, stale2 = mutate.resolve_equivalent({g_inc: {"reason": "r1", "line": "return b + 1;"}}, changed)
    assert moved2 == [] and stale2 == [g_inc]
