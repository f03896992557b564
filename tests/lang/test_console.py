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
