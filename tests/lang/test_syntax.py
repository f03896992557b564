"""gradcli.lang.syntax: the parse tree as Python's own `ast` nodes, placed where gradcli's
errors point, with the syntax rules the grammar leaves open checked there."""

import ast
import contextlib
import io

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.syntax import parse_expression, parse_module


def _text(source, node):
    """The source text between node's start and end (columns count characters)."""
    lines = source.split("\n")
    if node.lineno == node.end_lineno:
        return lines[node.lineno - 1][node.col_offset:node.end_col_offset]
    return "\n".join([lines[node.lineno - 1][node.col_offset:],
                      *lines[node.lineno:node.end_lineno - 1],
                      lines[node.end_lineno - 1][:node.end_col_offset]])


def test_a_program_is_a_module_of_python_s_own_nodes():
    tree = parse_module("import torch\ny = x ^ 2 if x else [v for v in w]\n")
    assert isinstance(tree, ast.Module)
    assign = tree.body[1]
    assert isinstance(assign, ast.Assign) and isinstance(assign.targets[0].ctx, ast.Store)
    assert isinstance(assign.value, ast.IfExp)
    assert isinstance(assign.value.body.op, ast.Pow)          # `^` is power
    assert isinstance(assign.value.orelse, ast.ListComp)


PYTHON_PROGRAMS = [
    "def f(a, b=2, *args, c, d=4, **kw):\n    return a, b, args, c, d, sorted(kw)\n"
    "print(f(1, c=3), f(1, 2, 3, c=5, e=6))\n",
    "xs = [i * i for i in range(6) if i % 2]\nd = {k: v for k, v in zip('ab', xs)}\n"
    "print(xs, d, {*xs}, (*xs, 0), [*xs][1:3:1])\n",
    "class A:\n    k = 1\n    def m(self, x=-1):\n        return self.k + x\n"
    "print(A().m(), A().m(x=2))\n",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)\nelse:\n    pass\n"
    "finally:\n    print('done')\n",
    "a, *b = 1, 2, 3\nn = 0\nwhile n < 3:\n    n += 1\nelse:\n    print(a, b, n)\n"
    "del a\nprint(not n, n is not None, 1 < n <= 3, n if n else 0)\n",
    "v = 3.5\nprint(f'{v!r:>8} {v:.{2}f} {v=} {{x}}', 'a' 'b', (lambda: v is not None)())\n",
]


@pytest.mark.parametrize("source", PYTHON_PROGRAMS)
def test_the_tree_compiles_to_what_python_runs(source):
    """Unguarded, the tree is an ordinary Python program: it prints what Python prints."""
    def run(tree):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<program>", "exec"), {})
        return out.getvalue()
    tree = parse_module(source)
    ast.fix_missing_locations(tree)
    assert run(tree) == run(ast.parse(source))


@pytest.mark.parametrize("source, expected", [
    ("y = (a + b) * c\n", ["y = (a + b) * c", "y", "a + b", "c"]),
    ("z = f(x, k=2)[0]\n", ["z = f(x, k=2)[0]", "f(x, k=2)[0]", "f(x, k=2)", "x", "k=2", "2"]),
    ("é = [1,\n     2]\n", ["é = [1,\n     2]", "é", "[1,\n     2]"]),
])
def test_nodes_end_where_their_text_ends(source, expected):
    texts = {_text(source, n) for n in ast.walk(parse_module(source))
             if hasattr(n, "end_col_offset")}
    assert set(expected) <= texts


def test_columns_count_characters_not_bytes():
    tree = parse_module("é = 'ü'; x.grad\n")
    expr = tree.body[1]
    assert (expr.lineno, expr.col_offset) == (1, 9)


def test_an_attribute_starts_at_its_name():
    """Where gradcli's errors point: `x.fo` fails at `fo`."""
    node = parse_expression("x.fo")
    assert isinstance(node, ast.Attribute) and node.col_offset == 2
    assert node.end_col_offset == 4


def test_an_operation_starts_where_its_left_operand_starts():
    """Inside a parenthesis, as gradcli's errors always pointed: `(a + b) * c` fails at `a`."""
    node = parse_expression("(a + b) * c")
    assert isinstance(node, ast.BinOp) and (node.col_offset, node.end_col_offset) == (1, 11)


def test_an_f_string_field_lies_where_its_string_lies():
    tree = parse_module("s = 1\nt = f'{s + 1}'\n")
    fields = [n for n in ast.walk(tree.body[1]) if isinstance(n, ast.BinOp)]
    assert [(n.lineno, n.col_offset) for n in fields] == [(2, 4)]
    formatted = next(n for n in ast.walk(tree) if isinstance(n, ast.FormattedValue))
    assert formatted.conversion == -1


def test_a_dotted_import_and_from_import_star():
    tree = parse_module("import torch.nn as nn\nfrom math import *\n")
    assert [(a.name, a.asname) for a in tree.body[0].names] == [("torch.nn", "nn")]
    assert isinstance(tree.body[1], ast.ImportFrom) and tree.body[1].names == []


@pytest.mark.parametrize("source, message, column", [
    ("1 = x", "cannot assign to 1", 1),
    ("f() = 1", "cannot assign to function call", 1),
    ("x, *a, *b = y", "multiple starred expressions in assignment", 8),
    ("del f()", "cannot delete function call", 5),
    ("f(x) += 1", "'function call' is an illegal expression for augmented assignment", 1),
    ("def f(a, a): pass", "duplicate argument 'a' in function definition", 10),
    ("def f(a=1, b): pass", "non-default argument follows default argument", 12),
    ("lambda *: 0", "named arguments must follow bare *", 8),
    ("f(a=1, b)", "positional argument follows keyword argument", 8),
    ("f(a=1, a=2)", "keyword argument repeated: a", 8),
    ("f(x for x in y, 1)", "Generator expression must be parenthesized", 3),
    ("f(x.y=1)", 'expression cannot contain assignment, perhaps you meant "=="?', 5),
    ("try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass", "default 'except:' must be last",
     1),
])
def test_the_rules_the_grammar_leaves_open_are_python_s(source, message, column):
    with pytest.raises(ProgramError) as error:
        parse_module(source)
    assert (error.value.type_name, error.value.message) == ("SyntaxError", message)
    assert error.value.column == column


def test_a_bytes_literal_and_a_bad_f_string_are_refused():
    with pytest.raises(ProgramError, match="bytes literals are not supported"):
        parse_module("b'x'")
    with pytest.raises(ProgramError, match="f-string: single '}' is not allowed"):
        parse_module("f'}'")
    with pytest.raises(ProgramError, match="f-string: empty expression not allowed"):
        parse_module("f'{}'")
