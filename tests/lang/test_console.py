"""The piped REPL: Python's interactive interpreter protocol, without prompt or colour."""

import io

from gradcli.lang.console import run_piped, statements


def piped(text):
    out = io.StringIO()
    assert run_piped(io.StringIO(text), out) == 0
    return out.getvalue()


def test_simple_statements_run_as_soon_as_complete_and_echo():
    assert piped("x = 2\nx * 3\nprint('p')\nNone\n") == "6\np\n"


def test_a_compound_statement_runs_at_the_blank_line():
    assert piped("for i in range(2):\n    i\n\n'after'\n") == "0\n1\n'after'\n"


def test_blank_lines_inside_brackets_do_not_end_a_statement():
    assert piped("if True:\n    y = (1,\n\n         2)\n\ny\n") == "(1, 2)\n"


def test_the_session_survives_errors():
    assert piped("a = 5\n1/0\na + 1\n") == "ZeroDivisionError: division by zero\n6\n"


def test_syntax_errors_show_position_source_and_caret():
    assert piped("x = (1 +\n)\n") == ("SyntaxError: invalid syntax (line 2, column 1)\n"
                                       "    )\n    ^\n")


def test_a_block_left_empty_is_an_indentation_error():
    assert piped("if True:\n\n1\n").splitlines()[0] == (
        "IndentationError: expected an indented block after 'if' statement on line 1 "
        "(line 1, column 9)")


def test_output_is_flushed_after_each_statement():
    class Recorder(io.StringIO):
        flushed = []

        def flush(self):
            self.flushed.append(self.getvalue())

    out = Recorder()
    run_piped(io.StringIO("1\n2\n"), out)
    assert out.flushed == ["1\n", "1\n2\n"]


def test_statements_are_grouped_as_the_interpreter_reads_them():
    lines = ["x = (1,", "  2)", "# comment", "", "def f():", "    return 1", "", "@staticmethod",
             "def g():", "    pass", "", "if x:", "    a", "else:", "    b", "", "y = 3"]
    assert list(statements(lines, _complete)) == [
        "x = (1,\n  2)", "def f():\n    return 1", "@staticmethod\ndef g():\n    pass",
        "if x:\n    a\nelse:\n    b", "y = 3"]


def test_an_unindented_line_also_ends_a_compound_statement():
    assert list(statements(["for i in x:", "    pass", "y = 1"], _complete)) == [
        "for i in x:\n    pass", "y = 1"]


def _complete(source):
    from gradcli.lang.parser import is_complete
    return is_complete(source)


def _counting():
    from gradcli.lang.parser import is_complete
    seen = []

    def counting(source):
        seen.append(len(source))
        return is_complete(source)
    return counting, seen


def test_a_wide_statement_is_grouped_without_parsing_it_whole():
    """(20 lines of 4,000 characters in a bracket: the parser took some 5 s a parse of the
    whole, and it ran at every line.)"""
    lines = ["x = ("] + ["1+" * 2000] * 20 + ["1)", "print(x)"]
    counting, seen = _counting()
    assert list(statements(lines, counting)) == ["\n".join(lines[:-1]), "print(x)"]
    assert sum(seen) < 10_000


def test_a_syntax_error_in_a_short_open_bracket_still_ends_the_statement():
    assert list(statements(["z = [1, 2 3,", "print(5)"], _complete)) == ["z = [1, 2 3,",
                                                                         "print(5)"]


def test_a_line_too_long_is_not_kept_and_is_one_error():
    from gradcli.lang.console import LongLine, TooLong, lines_of
    found = list(lines_of(io.StringIO("a = 1\n" + "b" * 100 + "\nc = (\n" + "d" * 50 + "\n"
                                      + "1)\n"), limit=40))
    assert found[0] == "a = 1" and isinstance(found[1], LongLine)
    grouped = list(statements(found, _complete, 40))
    assert grouped[0] == "a = 1" and isinstance(grouped[1], TooLong)
    assert isinstance(grouped[2], TooLong) and len(grouped) == 3  # (c = (... is 57 long)
    assert grouped[1].error().format() == [
        "MemoryError: program too long (the limit is 40 characters; set GRADCLI_MAX_SOURCE "
        "to raise it)"]


def test_a_decorated_definition_is_one_statement_however_long():
    long_decorator = "@dec(" + "1, " * 1000 + "1)"
    lines = [long_decorator, "def f():", "    pass", "g = 1"]
    assert list(statements(lines, _complete)) == ["\n".join(lines[:3]), "g = 1"]
