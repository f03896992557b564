"""gradcli.engine.pyversion, the one place where gradcli depends on the interpreter, on the
interpreter that runs the tests: each speed-up it gates applies on every tested CPython, and a
Python where one cannot apply fails here by name instead of running slower without a word."""

import dis
import sys
from sys import getrefcount

import pytest

from gradcli.engine import graph, pyversion
from gradcli.ops import elision

on_tested_cpython = pytest.mark.skipif(
    not (pyversion.CPYTHON and pyversion.VERSION in pyversion.TESTED),
    reason=f"{sys.implementation.name} {sys.version_info[:2]}: not a tested CPython")


@on_tested_cpython
def test_reference_counts_work_here():
    assert pyversion.REFERENCE_COUNTS
    assert graph._COUNTS_REFERENCES
    # forward temporary elision measured its operand counts at import: every path known
    assert elision.EXPECTED_REFS is not None
    assert set(elision.EXPECTED_REFS) == {(), ("method",), ("function",)}


@on_tested_cpython
def test_call_references_are_measured():
    assert pyversion.CALL_REFERENCES == (3 if pyversion.VERSION == (3, 10) else 2)
    t = object()
    assert graph._private.__code__  # (graph._private counts with it)

    def private(x, refs):
        return getrefcount(x) == refs + pyversion.CALL_REFERENCES
    assert private(t, 1)


def _between(source, first, last):
    """The names of the instructions after the first instruction named in `first` up to and
    including the last one named in `last`, in the code of source's lambda."""
    fn = eval(source)
    ins = [i for i in dis.get_instructions(fn) if i.opname != "CACHE"]
    start = next(k for k, i in enumerate(ins) if i.opname in first)
    end = max(k for k, i in enumerate(ins) if i.opname in last)
    return [i.opname for i in ins[start + 1:end]]


BINARY = {"BINARY_OP", "BINARY_ADD", "BINARY_MULTIPLY", "BINARY_SUBTRACT"}


@on_tested_cpython
@pytest.mark.parametrize("source", [
    "lambda x, c: x * 0.5 + 0.1",       # a constant
    "lambda x, c: x * 0.5 + c",         # a local
    "lambda x, c: x * 0.5 + C",         # a global
    "lambda x, c: x * 0.5 + c.real",    # an attribute
])
def test_what_lies_between_a_temporary_and_its_operator_is_known_to_be_passive(source):
    names = _between(source, BINARY, BINARY)
    assert names and set(names) <= pyversion.PASSIVE_INSTRUCTIONS, names


@on_tested_cpython
def test_an_operation_between_is_not_passive():
    # `x * 0.5 - (c + c)`: the inner addition runs between the product and the subtraction
    names = _between("lambda x, c: x * 0.5 - (c + c)", BINARY, BINARY)
    assert not set(names) <= pyversion.PASSIVE_INSTRUCTIONS, names
    # (3.13 loads c twice as one LOAD_FAST_LOAD_FAST, which is passive)
    assert not set(names) - pyversion.PASSIVE_INSTRUCTIONS - BINARY, names


@on_tested_cpython
def test_a_method_call_s_window_is_passive():
    names = _between("lambda x: (x * 2).exp()", BINARY, {"CALL", "CALL_METHOD"})
    assert set(names) <= pyversion.PASSIVE_INSTRUCTIONS, names


def test_describe():
    d = pyversion.describe()
    assert d["python"].startswith(f"{sys.version_info[0]}.{sys.version_info[1]}.")


def test_instruction_column():
    def f():
        return undefined_name  # noqa: F821
    try:
        f()
    except NameError as e:
        tb = e.__traceback__.tb_next
    column = pyversion.instruction_column(tb.tb_frame.f_code, tb.tb_lasti)
    if hasattr(f.__code__, "co_positions"):
        assert column == len("        return ") + 1
    else:  # 3.10: no column table (lang.session finds the name in the line instead)
        assert column is None
