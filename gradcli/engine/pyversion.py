"""The one place where gradcli depends on the interpreter's version.

gradcli runs on CPython 3.10 to 3.13 (pyproject's requires-python) and gives the same results
on each.  Two speed-ups rest on facts that CPython keeps but does not promise, and this module
says, for the interpreter that runs, whether they hold; tests/engine/test_pyversion.py checks
on each version that they do, so a new Python that breaks one fails a test instead of running
slower without a word:

- REFERENCE_COUNTS: sys.getrefcount of an object referred to only by the evaluation stack is
  a fixed number (the engine's gradient buffers, engine.graph._private; forward temporary
  elision, ops.elision).  True for CPython 3.10-3.13; a later CPython may borrow references
  on the evaluation stack (3.14 does for some loads), so the counts would prove nothing there
  until measured again.
- CALL_REFERENCES: what sys.getrefcount(x), inside a Python function, counts beyond the
  caller's own references to the argument x: 2 on 3.11-3.13 (the parameter and getrefcount's
  argument), 3 on 3.10, whose caller's evaluation stack keeps the argument during the call.
  Measured at import (_call_references), not assumed.
- re_internals(): the regular expression compiler's parser and code generator, whose output
  the lexer's compiled pattern is saved as (lang.lalr.compiled_form): re._parser and
  re._compiler from 3.11, sre_parse and sre_compile (the same functions) on 3.10.
- instruction_column(code, offset): the column of an instruction, from the code's position
  table (3.11+); 3.10 has none, and lang.session then finds an unknown name's column in its
  source line instead.
- PASSIVE_INSTRUCTIONS: the names (as `dis` gives them) of the instructions that only push a
  value, on any of those versions: what may lie between the instruction that made a temporary
  and the operator that reads it for ops.elision to take the temporary as the evaluation
  stack's alone.  Names from other versions do no harm (dis never gives them here).

Python 3.10 also gets an older NumPy (2.2: 2.3 needs 3.11), whose ufuncs do not take out=...;
ops.registry detects that itself (_UFUNC_OUT) and makes the 0-d result an array instead.

The VJP fast paths do not depend on the version at all (ops.formulas decides them by running
the formulas on stand-ins)."""

import sys
from sys import getrefcount

CPYTHON = sys.implementation.name == "cpython"
VERSION = sys.version_info[:2]
TESTED = ((3, 10), (3, 11), (3, 12), (3, 13))

REFERENCE_COUNTS = CPYTHON and TESTED[0] <= VERSION <= TESTED[-1]


def _call_references():
    def callee(x):
        return getrefcount(x)

    def caller():
        held = object()  # one reference: this variable
        return callee(held) - 1
    return caller()


CALL_REFERENCES = _call_references()

PASSIVE_INSTRUCTIONS = frozenset({
    "NOP", "EXTENDED_ARG", "LOAD_CONST", "LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL",
    "LOAD_NAME", "LOAD_ATTR",
    "LOAD_METHOD",                                   # 3.10, 3.11
    "CACHE", "PRECALL", "KW_NAMES", "PUSH_NULL",     # 3.11 (CACHE, PUSH_NULL: and later)
    "LOAD_FAST_CHECK",                               # 3.12+
    "LOAD_FAST_LOAD_FAST",                           # 3.13+
    "LOAD_SMALL_INT",                                # 3.14
})


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
            "implementation": sys.implementation.name,
            "reference_counts": REFERENCE_COUNTS, "call_references": CALL_REFERENCES}
