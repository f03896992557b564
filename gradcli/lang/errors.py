"""The one error type of the language: `Type: message`, with a position for syntax errors."""

SYNTAX_TYPES = ("SyntaxError", "IndentationError", "TabError")


def error_lines(type_name, message, line=None, column=None, source_line=None, located=False,
                filename=None):
    """`Type: message`, and for a syntax error (IndentationError and TabError included) its
    position, the source line and a caret under the column.

    located: a runtime error is shown with its position too (on a terminal, in `run`);
    filename: the position is a prefix, `file.grad:5:12: Type: message`, as compilers write it."""
    headline = f"{type_name}: {message}" if message else type_name
    if line is None or not (located or type_name in SYNTAX_TYPES):
        return [headline]
    if filename:
        lines = [f"{filename}:{line}:{column}: {headline}" if column else
                 f"{filename}:{line}: {headline}"]
    elif column:
        lines = [f"{headline} (line {line}, column {column})"]
    else:
        lines = [f"{headline} (line {line})"]
    if source_line is not None:
        lines.append("    " + source_line.rstrip("\n"))
        if column:
            lines.append("    " + " " * max(column - 1, 0) + "^")
    return lines


MAX_MESSAGE = 10_000  # characters of an error message shown


class ProgramError(Exception):
    """An error of a gradcli program, as the user sees it.

    type_name is Python's or PyTorch's exception type (`RuntimeError`, `SyntaxError`, ...);
    message is the first line of the message; line and column (1-based) locate it in the
    source, and source_line is that line of the source (for the caret of syntax errors)."""

    incomplete = False

    def __init__(self, type_name, message="", line=None, column=None, source_line=None):
        self.type_name = type_name
        self.message = str(message).split("\n", 1)[0]
        if len(self.message) > MAX_MESSAGE:  # (`raise ValueError("x" * 10**7)`: one line, sane)
            self.message = self.message[:MAX_MESSAGE] + " [...]"
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self.headline())

    def headline(self):
        """`Type: message`, or `Type` alone when there is no message (as Python prints it)."""
        return f"{self.type_name}: {self.message}" if self.message else self.type_name

    @property
    def is_syntax_error(self):
        return self.type_name in SYNTAX_TYPES

    def format(self):
        """The lines shown to the user (see error_lines)."""
        return error_lines(self.type_name, self.message, self.line, self.column,
                           self.source_line)

    def __str__(self):
        return self.headline()


class IncompleteInput(ProgramError):
    """The source ended where more was expected (an open bracket, a block header, a triple
    quote, a trailing backslash): an interactive reader asks for a continuation line."""

    incomplete = True


def too_deep():
    """A program nested more deeply than the compiler can follow."""
    from .limits import nesting_message
    return ProgramError("RecursionError", nesting_message())


def from_exception(exc, line=None, column=None):
    """A ProgramError for an exception raised while a program ran."""
    if isinstance(exc, ProgramError):
        return exc
    if isinstance(exc, RecursionError):
        from .limits import recursion_message
        return ProgramError("RecursionError", recursion_message(), line, column)
    return ProgramError(type(exc).__name__, exception_message(exc), line, column)


def exception_message(exc):
    """str(exc), which never raises: a KeyError's text is the repr of its key, which may fail
    (Python then prints `<exception str() failed>` too)."""
    try:
        message = str(exc)
        return message if type(message) is str else "<exception str() failed>"
    except Exception:
        return "<exception str() failed>"
