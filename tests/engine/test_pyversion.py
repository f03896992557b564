"""gradcli.engine.pyversion, the one place where gradcli asks which interpreter runs it: what
it answers on the interpreter that runs the tests."""

import sys

from gradcli.engine import pyversion


def test_describe():
    d = pyversion.describe()
    assert d["python"].startswith(f"{sys.version_info[0]}.{sys.version_info[1]}.")
    assert d["columns"] is pyversion.COLUMNS


def test_re_internals_parse_and_compile():
    parser, compiler = pyversion.re_internals()
    assert compiler.compile(parser.parse("a+"), 0)  # (the code the lexer's pattern is saved as)


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
