"""The one place where gradcli asks which interpreter runs it.

gradcli runs on CPython 3.10 to 3.13 (pyproject's requires-python) and gives the same results
on each.  Nothing in it depends on one interpreter's internals (bytecode, reference counts,
frame offsets, allocator size classes); what differs between the versions it supports, and
only changes where a message is located or which module holds a documented function, is here:

- re_internals(): the regular expression compiler's parser and code generator, whose output
  the lexer's compiled pattern is saved as (lang.lalr.compiled_form): re._parser and
  re._compiler from 3.11, sre_parse and sre_compile (the same functions) on 3.10.
- instruction_column(code, offset): the column of an instruction, from the code's position
  table (3.11+); 3.10 has none, and lang.session then finds an unknown name's column in its
  source line instead.

Python 3.10 also gets an older NumPy (2.2: 2.3 needs 3.11), whose ufuncs do not take out=...;
ops.registry detects that itself (_UFUNC_OUT) and makes the 0-d result an array instead."""

import sys

VERSION = sys.version_info[:2]


def re_internals():
    """(parser module, compiler module) of the re package on this Python; ImportError where
    neither layout is there."""
    if VERSION >= (3, 11):
        from re import _compiler, _parser
    else:
        import sre_compile as _compiler
        import sre_parse as _parser
    return _parser, _compiler


# whether code objects keep each instruction's column (3.11+): where they do not (3.10), a
# runtime error is located by its line alone (a NameError by its name, found in the line)
COLUMNS = hasattr((lambda: None).__code__, "co_positions")


def instruction_column(code, offset):
    """The 1-based column of the instruction at byte offset `offset` of code (a traceback's
    tb_lasti), or None where the interpreter keeps no columns (3.10) or has none for it."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return None
    for i, (_, _, column, _) in enumerate(positions()):
        if i == offset // 2:
            return None if column is None else column + 1
    return None


def describe():
    """What this interpreter gets, for `gradcli --version`-like reports and the tests."""
    return {"python": ".".join(map(str, sys.version_info[:3])),
            "implementation": sys.implementation.name, "columns": COLUMNS}
