"""gradcli.lang.compiler: the sandbox's checks as one ast.NodeTransformer (Guarding) over the
program's tree, and what it leaves for Python's compiler."""

import ast

import pytest

from gradcli.lang.compiler import Guarding, compile_program
from gradcli.lang.errors import ProgramError
from gradcli.lang.sandbox import GUARD_NAMES
from gradcli.lang.syntax import parse_module


def guarded(source, echo=False):
    """The guarded tree's source text (Python's ast.unparse)."""
    tree = Guarding(echo, source.split("\n")).visit(parse_module(source))
    return ast.unparse(tree)


@pytest.mark.parametrize("source, expected", [
    ("y = x.grad", "y = _getattr(x, 'grad')"),
    ("x.grad = None", "_store_target(x, 'grad').grad = None"),
    ("del x.grad", "del _store_target(x, 'grad').grad"),
    ("y = f(x, k=2)", "y = _callable(f)(x, k=2)"),
    ("y = a + b", "y = _op_add(a, b)"),
    ("y = a ^ b", "y = _op_pow(a, b)"),
    ("n = n + 1", "n = n + 1"),                 # a literal its guard would let through
    ("y = w * 3.0", "y = w * 3.0"),
    ("y = w * 3", "y = _op_mul(w, 3)"),          # (int * list grows: checked)
    ("n += 1", "n += 1"),
    ("t *= w", "t = _iop_mul(t, w)"),
    ("t.data *= w", "_inplace_attr(t, 'data', _iop_mul, w)"),
    ("t[i] *= w", "_inplace_item(t, i, _iop_mul, w)"),
    ("b = x < y", "b = _compare['<'](x, y)"),
    ("b = x in y", "b = _compare['in'](x, y)"),
    ("b = x < y <= z", "b = _compared(x) < _compared(y) <= _compared(z)"),
    ("b = x is y", "b = x is y"),
    ("b = [*x]", "b = [*_each(x)]"),
    ("[a, *b] = x", "[a, *b] = _each(x)"),
    ("b = [v for v in x]", "b = [v for v in _each(x)]"),
    ("b = x < 0", "b = x < 0"),
    ("import torch.nn as nn", "nn = _import('torch.nn', True)"),
    ("from math import pi", "pi = _import_from('math', 'pi')"),
    ("from math import *", "_import_star('math')"),
    ("raise E from c", "raise _raisable(E) from _raisable(c)"),
])
def test_each_reach_goes_through_its_guard(source, expected):
    assert guarded(source).splitlines()[-1].strip() == expected


def test_an_f_string_field_and_its_spec_go_through_format_field():
    tree = Guarding(False).visit(parse_module("s = f'{x!r:>{w}}'"))
    fields = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
              and getattr(n.func, "id", "") == "_format_field"]
    assert [ast.unparse(f.args[0]) for f in fields] == ["x", "w"]
    assert [f.args[1].value for f in fields] == ["r", None]
    assert all(n.conversion == -1 and n.format_spec is None
               for n in ast.walk(tree) if isinstance(n, ast.FormattedValue))


def test_an_except_clause_catches_through_its_guards():
    text = guarded("try:\n    f()\nexcept E as e:\n    g()\n")
    assert "except _catchable(E) as e:\n    _caught()" in text


def test_top_level_expressions_are_recorded_with_their_text():
    program = compile_program(parse_module("x = 2\nx * (3 +\n 1)\n"), source="x = 2\nx * (3 +\n 1)\n")
    assert program.outputs == [("name", "x"), ("expr", "x * (3 +\n 1)")]
    assert "_expr(None, y)" in guarded("for i in r:\n    y\n", echo=True)
    assert "_expr(" not in guarded("def f():\n    y\n", echo=True)


def test_zero_argument_super_in_a_method_names_its_class_and_self():
    text = guarded("class A(B):\n    def m(me):\n        super().m()\n")
    assert "_callable(super)(__class__, me)" in text


def test_every_guard_the_tree_calls_is_a_name_programs_cannot_write():
    source = ("import torch\nfrom math import *\nclass A(B):\n    @d\n    def m(self, x):\n"
              "        try:\n            return f'{x:>3}' + x.y[0] @ z\n"
              "        except E:\n            raise\nt *= w; t.a |= 1; t[0] -= b; u = p < q\n")
    tree = Guarding(False, source.split("\n")).visit(parse_module(source))
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id.startswith("_")}
    inplace = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id.startswith("_i")}
    assert called and called | inplace <= GUARD_NAMES


@pytest.mark.parametrize("source, kind, message, column", [
    ("__x = 1", "NameError", "names starting with '__' are not allowed: '__x'", 1),
    ("y = x.__class__", "AttributeError",
     "attributes starting with '_' are not allowed: '__class__'", 7),
    ("y = x._secret", "AttributeError", "attributes starting with '_' are not allowed: '_secret'",
     7),
    ("_getattr = 1", "NameError", "'_getattr' is a name gradcli reserves for itself", 1),
    ("def f(__a): pass", "NameError", "names starting with '__' are not allowed: '__a'", 7),
    ("f(__k=1)", "NameError", "names starting with '__' are not allowed: '__k'", 3),
    ("import torch as __t", "NameError", "names starting with '__' are not allowed: '__t'", 8),
    ("t._x += 1", "AttributeError", "attributes starting with '_' are not allowed: '_x'", 3),
    ("while x:\n    try:\n        pass\n    finally:\n        break", "SyntaxError",
     "`break` in a `finally` block is not supported in gradcli programs (it would drop the "
     "exception that the block runs for)", 9),
    ("def f():\n    from math import *", "SyntaxError", "import * only allowed at module level",
     5),
])
def test_the_checks_refuse_with_a_location(source, kind, message, column):
    with pytest.raises(ProgramError) as error:
        compile_program(parse_module(source), source=source)
    assert (error.value.type_name, error.value.message, error.value.column) == \
        (kind, message, column)


def test_a_loop_inside_finally_may_break_out_of_itself():
    compile_program(parse_module("try:\n    pass\nfinally:\n    for i in x:\n        break\n"))


def test_of_two_faults_the_value_s_is_reported_before_the_target_s():
    """Checks run in the order they always ran: an assignment's value before its targets."""
    with pytest.raises(ProgramError, match="'__b'"):
        compile_program(parse_module("__a = __b"))
    with pytest.raises(ProgramError, match="'__k'"):     # a call's keywords before its arguments
        compile_program(parse_module("f(__p, __k=1)"))


def test_guard_calls_keep_the_place_of_what_they_replace():
    source = "y = 1\nz = y + w.q"
    tree = Guarding(False, source.split("\n")).visit(parse_module(source))
    getattr_call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                        and getattr(n.func, "id", "") == "_getattr")
    add = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
               and getattr(n.func, "id", "") == "_op_add")
    assert (getattr_call.lineno, getattr_call.col_offset) == (2, 10)   # at `q`
    assert (add.lineno, add.col_offset) == (2, 4)
