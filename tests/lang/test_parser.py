"""Syntax errors name the problem as Python does, with line, column, source line and caret; an
early end of input is *incomplete* (the REPLs ask for more); the parser is cached on disk."""

import sys
from pathlib import Path

import pytest

from gradcli.lang import parser
from gradcli.lang.errors import IncompleteInput, ProgramError
from tests.processes import python_output

ROOT = Path(__file__).resolve().parents[2]


def syntax_error(source):
    with pytest.raises(ProgramError) as info:
        parser.parse(source)
    return info.value


@pytest.mark.parametrize("source, kind, message, line, column", [
    ("x = (1 +\n)", "SyntaxError", "invalid syntax", 2, 1),
    ("x = 1 +", "SyntaxError", "invalid syntax", 1, 8),
    ("if x = 1:\n    pass", "SyntaxError",
     "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 6),
    ("f(a b)", "SyntaxError", "invalid syntax. Perhaps you forgot a comma?", 1, 5),
    ("if x\n    pass", "SyntaxError", "expected ':'", 1, 5),
    ("def f()\n    pass", "SyntaxError", "expected ':'", 1, 8),
    ("x = 1)", "SyntaxError", "unmatched ')'", 1, 6),
    ("(]", "SyntaxError", "closing parenthesis ']' does not match opening parenthesis '('", 1, 2),
    ("x = 'abc", "SyntaxError", "unterminated string literal (detected at line 1)", 1, 5),
    ("x = 3 $ 4", "SyntaxError", "invalid syntax", 1, 7),
    ("x = 1 €", "SyntaxError", "invalid character '€' (U+20AC)", 1, 7),
    ("  x = 1", "IndentationError", "unexpected indent", 1, 3),
    ("x = 1\n    y = 2", "IndentationError", "unexpected indent", 2, 5),
    ("for i in x:\nprint(i)", "IndentationError",
     "expected an indented block after 'for' statement on line 1", 2, 1),
    ("if x:\n        a\n    b", "IndentationError",
     "unindent does not match any outer indentation level", 3, 5),
    ("if = 3", "SyntaxError", "invalid syntax", 1, 4),
    ("x = " + "(" * 201 + ")" * 201, "SyntaxError", "too many nested parentheses (the limit is "
     "200; set GRADCLI_MAX_NESTING to raise it)", 1, 205),
])
def test_syntax_error_names_the_problem_and_its_place(source, kind, message, line, column):
    error = syntax_error(source)
    assert (error.type_name, error.message, error.line, error.column) == (kind, message, line,
                                                                          column)
    assert not error.incomplete


def test_syntax_error_shows_the_source_line_and_a_caret():
    assert syntax_error("y = (1 +\n)").format() == [
        "SyntaxError: invalid syntax (line 2, column 1)", "    )", "    ^"]
    assert syntax_error("z = 2 * * 3").format() == [
        "SyntaxError: invalid syntax (line 1, column 9)", "    z = 2 * * 3", "            ^"]


@pytest.mark.parametrize("echo", [False, True])
@pytest.mark.parametrize("source, line, column", [
    ("*x", 1, 1),
    ("y = 1\n*x", 2, 1),
    ("if True:\n    *x", 2, 5),
    ("for i in x:\n  *x", 2, 3),
    ("def f():\n    *x", 2, 5),
])
def test_a_starred_expression_statement_is_python_syntax_error(run, source, line, column, echo):
    run("x = [1, 2]")
    error = run.error(source, echo=echo)
    assert (error.type_name, error.message, error.line, error.column) == (
        "SyntaxError", "can't use starred expression here", line, column)
    assert error.format()[1:] == ["    " + source.split("\n")[line - 1],
                                  "    " + " " * (column - 1) + "^"]
    assert run.take() == ""


@pytest.mark.parametrize("source, message", [
    ("x = (1 +", "'(' was never closed"),
    ("f(a,\n  b", "'(' was never closed"),
    ("[1, 2", "'[' was never closed"),
    ("if x:", "expected an indented block after 'if' statement on line 1"),
    ("def f(x):", "expected an indented block after function definition on line 1"),
    ("class A:", "expected an indented block after class definition on line 1"),
    ("if x:\n    y\nelse:", "expected an indented block after 'else' statement on line 3"),
    ('s = """abc', "unterminated triple-quoted string literal (detected at line 1)"),
    ("x = 1 + \\", "unexpected EOF while parsing"),
])
def test_an_early_end_of_input_is_incomplete(source, message):
    error = syntax_error(source)
    assert isinstance(error, IncompleteInput) and error.incomplete
    assert error.message == message
    assert not parser.is_complete(source)


@pytest.mark.parametrize("source", ["x = 1", "for i in x:\n    pass", "x = 1 +", "x = 1)", ""])
def test_complete_or_wrong_input_is_complete(source):
    assert parser.is_complete(source)


def test_deep_nesting_is_an_error_not_a_crash(run):
    assert run.error("x = " + "-" * 5000 + "1").format() == [
        "RecursionError: maximum recursion depth exceeded during compilation (the limit is 200 "
        "levels of nesting; set GRADCLI_MAX_NESTING to raise it)"]
    assert run("x = " + "[" * 199 + "]" * 199) == ""


def test_grammar_file_is_found_from_the_source_checkout():
    assert parser.grammar_path() == str(ROOT / "grammar" / "gradcli.lark")


def _python(code, **env):
    return python_output(code, **env).strip()


def test_importing_the_language_does_not_build_the_parser():
    assert _python("import gradcli.lang.session, gradcli.lang.console, "
                   "gradcli.lang.transcript\nfrom gradcli.lang import parser\n"
                   "print(parser.lark_parser.cache_info().currsize)") == "0"


def test_parser_is_cached_under_the_user_cache_dir_replacing_stale_caches(tmp_path):
    import lark
    kind = f"grammar-py{sys.version_info[0]}{sys.version_info[1]}-lark{lark.__version__}"
    stale = tmp_path / "gradcli" / f"{kind}-0000000000000000.lark-cache"
    stale.parent.mkdir()
    stale.write_bytes(b"an earlier grammar")
    # another interpreter's cache (one user's Pythons share the directory) is left alone
    other = tmp_path / "gradcli" / "grammar-py29-lark0.1-0000000000000000.lark-cache"
    other.write_bytes(b"another Python's")
    _python("from gradcli.lang import parser\nparser.parse('x = 1')", XDG_CACHE_HOME=str(tmp_path))
    cached = list((tmp_path / "gradcli").glob(f"{kind}-*.lark-cache"))
    assert len(cached) == 1 and cached[0] != stale
    assert other.read_bytes() == b"another Python's"
    assert _python("from gradcli.lang import parser\nprint(parser.parse('x = 2').data)",
                   XDG_CACHE_HOME=str(tmp_path)) == "module"


def test_a_corrupt_cache_is_rebuilt(tmp_path):
    _python("from gradcli.lang import parser\nparser.parse('x = 1')", XDG_CACHE_HOME=str(tmp_path))
    (cached,) = (tmp_path / "gradcli").glob("grammar-*.lark-cache")
    cached.write_bytes(cached.read_bytes()[:80] + b"garbage")
    assert _python("from gradcli.lang import parser\nprint(parser.parse('x = 2').data)",
                   XDG_CACHE_HOME=str(tmp_path)) == "module"


def test_an_unwritable_cache_dir_falls_back_to_memory(tmp_path):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    assert _python("from gradcli.lang import parser\nprint(parser.cache_path('grammar'), "
                   "parser.parse('x = 2').data)", XDG_CACHE_HOME=str(blocked)) == "None module"


POSITION_SOURCES = [
    "(a + b) * 2\n", "x = ((1))\n", "f(x)[0].y\n", "if x:\n    (y)\nelif z:\n    w\nelse:\n    v\n",
    "[(a) for a in (b) if a]\n", "def f(a, *, b=1, **k):\n    return (a)\n", "g = lambda: (x)\n",
    "x = -(-(y))\n", 'f"{(x)!r:>{w}}"\n', "x[1:2, ::3]\n", "a, (b, c) = d\n", "del x[0], y\n",
    "with torch.no_grad() as g:\n    x -= 0.1 * x.grad\n", "class A(B):\n    k = 1\n",
    "import torch as T; from math import (pi, e)\n", "x = {1: 2, **d}\n", "assert x, 'm'\n",
    "for i, j in zip(a, b):\n    break\nelse:\n    pass\n", "x = 1 if y else (2)\n",
    "@staticmethod\ndef f():\n    return\n", "while not x or y and z:\n    continue\n",
    "x = a < b <= c is not d\n", "print(*args, sep='', **kw)\n", "x = [\n    1,\n    2,\n]\n",
]


def _corpus():
    """Sources to parse both ways: the examples, every statement of the transcripts in
    tests/transcripts, the grammar tests' programs and the position cases above."""
    from gradcli.lang.transcript import parse_transcript
    from test_grammar import PROGRAMS
    sources = list(POSITION_SOURCES) + list(PROGRAMS.values())
    sources += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.grad"))]
    for path in sorted((ROOT / "tests" / "transcripts").glob("**/*.txt")):
        for session in parse_transcript(path.read_text(encoding="utf-8")):
            sources += [s.source + "\n" for s in session.statements]
    return sources


def _shape(tree):
    """A tree as plain data: rule, positions and children; tokens with type, text, positions."""
    if tree is None:
        return None
    if isinstance(tree, str):
        return ("token", tree.type, str(tree), tree.start_pos, tree.line, tree.column,
                tree.end_line, tree.end_column, tree.end_pos)
    return (str(tree.data), sorted(vars(tree.meta).items()), [_shape(c) for c in tree.children])


def test_tables_parse_as_lark_does():
    """The driver running lark's exported tables (gradcli.lang.lalr) gives the trees lark's
    own runtime gives, tokens, positions and all, for every source of the corpus."""
    from lark import Lark, Token
    text = parser.grammar_text()
    reference = Lark(text, parser="lalr", postlex=parser.Indenter(Token), lexer="basic",
                     start=["module", "expression"], propagate_positions=True,
                     maybe_placeholders=True)
    tables = parser.tables_parser()
    sources = _corpus()
    assert len(sources) > 300
    for source in sources:
        source = source if source.endswith("\n") else source + "\n"
        try:
            expected = _shape(reference.parse(source, start="module"))
        except Exception:
            continue
        assert _shape(tables.parse(source, "module")) == expected, source
    assert _shape(tables.parse("x, y\n", "expression")) == _shape(
        reference.parse("x, y\n", start="expression"))


def test_sources_the_tables_reject_are_worded_by_lark():
    """The driver stops at the first token it has no action for; lark then finds the same
    error, and the message is lark's, as before the tables existed."""
    from gradcli.lang import lalr
    with pytest.raises(lalr.ParseFailed):
        parser.tables_parser().parse("x = = 1\n", "module")
    with pytest.raises(lalr.ParseFailed):
        parser.tables_parser().parse("x = $\n", "module")
    assert syntax_error("x = = 1").headline() == "SyntaxError: invalid syntax"


def test_parses_and_early_ends_do_not_import_lark(tmp_path):
    """A one-shot parse, and the REPL asking whether a block is complete, need no lark."""
    code = ("import sys\nfrom gradcli.lang import parser\nparser.parse('z = (2*x)**3')\n"
            "print(parser.is_complete('for i in x:'), parser.is_complete('if x:\\n    y = 1'),"
            " 'lark' in sys.modules)")
    _python("from gradcli.lang import parser\nparser.parse('x = 1')", XDG_CACHE_HOME=str(tmp_path))
    assert _python(code, XDG_CACHE_HOME=str(tmp_path)) == "False True False"


def test_stale_or_corrupt_tables_are_rebuilt(tmp_path):
    import marshal
    from gradcli.lang import lalr
    _python("from gradcli.lang import parser\nparser.parse('x = 1')", XDG_CACHE_HOME=str(tmp_path))
    tables = tmp_path / "gradcli" / lalr.file_name()
    good = tables.read_bytes()
    assert marshal.loads(good)["format"] == lalr.FORMAT
    for damaged in (good[:100], b"", good.replace(b"module", b"modulo", 1), b"\x00" * 50):
        tables.write_bytes(damaged)
        assert _python("from gradcli.lang import parser\nprint(parser.parse('x = 2').data)",
                       XDG_CACHE_HOME=str(tmp_path)) == "module"
        assert marshal.loads(tables.read_bytes()) == marshal.loads(good)


def test_lexer_pattern_is_loaded_compiled():
    """The tables carry the lexer pattern's compiled form, and the pattern made from it is
    re.compile's (patterns compare by their code); a form for another regular expression
    engine, or code the engine refuses, is compiled afresh."""
    import re
    from gradcli.lang import lalr
    data = lalr.export(parser.lark_parser(), parser.grammar_text())
    (pattern, flags, form), = data["patterns"]
    if sys.implementation.name == "cpython" and (3, 10) <= sys.version_info[:2] <= (3, 13):
        assert form is not None
    if form is None:
        pytest.skip("this interpreter's re internals differ: the pattern is compiled at load")
    loaded = lalr._pattern(pattern, flags, form)
    assert loaded == re.compile(pattern, flags) and loaded.groupindex == re.compile(
        pattern, flags).groupindex
    assert [m.lastgroup for m in [loaded.match("x1 = 2.5")]] == [
        re.compile(pattern, flags).match("x1 = 2.5").lastgroup]
    flags_, code, groups, groupindex, indexgroup, magic, size = form
    foreign = (flags_, code, groups, groupindex, indexgroup, magic + 1, size)
    broken = (flags_, code[:len(code) // 2] + [999999] * 3, groups, groupindex, indexgroup,
              magic, size)
    for bad in (foreign, broken, None):
        assert lalr._pattern(pattern, flags, bad) == re.compile(pattern, flags)


def test_a_source_is_parsed_once_and_its_errors_every_time():
    source = "y = (x * 2).sum()"
    assert parser.parse(source) is parser.parse(source)
    first, second = syntax_error("y = = 1"), syntax_error("y = = 1")
    assert first is not second and first.headline() == second.headline()


@pytest.mark.parametrize("source", [
    ">>> m\n", "=3\n", ". x\n", ":= 3\n", "elif x\n", "elif x = 1:\n", "assert x = 1\n",
    "y = 2\n>> 1\n", "x\n    y\n", "def f() x\n", "f(a 1)\n", "if x = 1:\n", "if x\n",
])
def test_syntax_errors_are_worded_as_cpython_words_them(source):
    """The error type and message CPython's own compiler gives for the same source (a
    statement starting with an operator is `invalid syntax`, not `expected ':'`)."""
    with pytest.raises(SyntaxError) as python:
        compile(source, "<program>", "exec")
    with pytest.raises(ProgramError) as ours:
        parser.parse(source)
    assert (ours.value.type_name, ours.value.message) == (type(python.value).__name__,
                                                          python.value.msg)
    assert ours.value.line == python.value.lineno


def test_every_friendly_example_is_worded_as_cpython_words_it():
    for (type_name, message), examples in parser.EXAMPLES.items():
        for source in examples:
            with pytest.raises(SyntaxError) as python:
                compile(source, "<program>", "exec")
            assert type(python.value).__name__ == type_name, source
            assert python.value.msg.startswith(message), source


@pytest.mark.parametrize("word", sorted(parser.RESERVED))
def test_python_keywords_the_language_lacks_are_not_names(word):
    """(`async` and `await` have no statement in the language: they are never names, and the
    error says the language lacks them)"""
    for source in (f"{word} = 3\n", f"x = {word}\n"):
        with pytest.raises(ProgramError) as e:
            parser.parse(source)
        assert (e.value.type_name, e.value.message) == (
            "SyntaxError", f"`{word}` is not supported in gradcli programs")
    parser.parse(f"{word}_x = 3\n")  # (a name that merely starts with one is fine)


@pytest.mark.parametrize("source", ["*x = [1]\n", "*a, *b = [1, 2]\n", "for *x in [[1]]:\n    pass\n",
                                    "a, *b, *c = [1, 2, 3]\n"])
def test_starred_targets_are_checked_as_cpython_checks_them(source):
    with pytest.raises(SyntaxError) as python:
        compile(source, "<program>", "exec")
    from gradcli.lang.syntax import parse_module
    with pytest.raises(ProgramError) as ours:
        parse_module(source)
    assert ours.value.message == python.value.msg


def test_lark_version_is_read_without_importing_lark():
    """prepare() runs before every evaluator: it must not pay for lark's import."""
    import lark
    assert _python("import sys\nfrom gradcli.lang import parser\nparser.prepare()\n"
                   "print(parser.lark_version(), 'lark' in sys.modules)") == \
        f"{lark.__version__} False"
