"""gradcli.lang.fstrings: an f-string token split into Python's JoinedStr parts, each field's
expression parsed by gradcli's own parser."""

import ast

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.syntax import parse_expression


def parts(source):
    node = parse_expression(source)
    assert isinstance(node, ast.JoinedStr)
    return node.values


def test_literal_text_and_fields_alternate():
    literal, field, tail = parts("f'a{x}b'")
    assert literal.value == "a" and tail.value == "b"
    assert isinstance(field, ast.FormattedValue) and field.value.id == "x"


def test_conversion_and_nested_spec():
    (field,) = parts("f'{x!r:>{w}.3}'")
    assert field.conversion == ord("r")
    spec = field.format_spec
    assert isinstance(spec, ast.JoinedStr)
    assert [type(p).__name__ for p in spec.values] == ["Constant", "FormattedValue", "Constant"]


def test_self_documenting_field_shows_its_text_then_repr():
    text, field = parts("f'{x + 1=}'")
    assert text.value == "x + 1=" and field.conversion == ord("r")
    assert isinstance(field.value, ast.BinOp)


def test_doubled_braces_and_escapes_are_literal_text():
    (only,) = parts("f'{{a}}\\t'")
    assert only.value == "{a}\t"
    (raw,) = parts("rf'\\t{{'")
    assert raw.value == "\\t{"


def test_a_field_is_gradcli_s_language():
    (field,) = parts("f'{x ^ 2}'")
    assert isinstance(field.value.op, ast.Pow)          # `^` is power there too


def test_every_node_of_a_field_lies_where_the_string_lies():
    from gradcli.lang.syntax import parse_module
    node = parse_module("y = 1\nz = f'{a.b(c)}'").body[1].value
    places = {(n.lineno, n.col_offset) for n in ast.walk(node) if hasattr(n, "lineno")}
    assert places == {(2, 4)}


@pytest.mark.parametrize("source, message", [
    ("f'{x'", "f-string: expecting '}'"),
    ("f'{x!z}'", "f-string: invalid conversion character: expected 's', 'r', or 'a'"),
    ("f'{ }'", "f-string: empty expression not allowed"),
    ("f'}'", "f-string: single '}' is not allowed"),
    ("f'{x y}'", "f-string: invalid syntax. Perhaps you forgot a comma?"),
])
def test_a_bad_field_is_a_syntax_error_at_the_string(source, message):
    with pytest.raises(ProgramError) as error:
        parse_expression(source)
    assert (error.value.type_name, error.value.message, error.value.column) == \
        ("SyntaxError", message, 1)


def test_an_invalid_escape_is_warned_alike_on_every_python(run):
    """`"a\\c"` is a SyntaxWarning from Python 3.12 and a hidden DeprecationWarning before;
    a program's output says it on every version (once for each literal), and the value keeps
    the backslash as Python's does."""
    out = run('s = "a\\c"\nprint(len(s), f"x\\d", "\\n" == chr(10))\n')
    assert out.splitlines() == ["SyntaxWarning: invalid escape sequence '\\c'",
                                "SyntaxWarning: invalid escape sequence '\\d'", "3 x\\d True"]
