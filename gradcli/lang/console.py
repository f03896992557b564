"""The piped REPL (standard input not a terminal): Python's interactive interpreter protocol
without prompt, banner or colour.  A simple statement runs as soon as it is complete; a
compound statement runs at the blank line that ends it (or, more leniently than Python, at the
next unindented line); non-None expression values are echoed with repr; errors are
`Type: message`; output is flushed after each statement and the session survives errors."""

import re

from .errors import IncompleteInput, ProgramError
from .parser import parse
from .session import Session

COMPOUND = re.compile(r"(if|for|while|def|class|with|try)\b|@")
CONTINUATION = re.compile(r"(elif|else|except|finally)\b")


def is_compound(first_line):
    return bool(COMPOUND.match(first_line.lstrip()))


def _open_bracket_or_string(source):
    """Is source unfinished inside a bracket or a triple-quoted string (where blank lines do
    not end a statement)?"""
    try:
        parse(source)
    except IncompleteInput as e:
        return "never closed" in e.message or "triple-quoted" in e.message
    except ProgramError:
        return False
    return False


class _Openness:
    """Brackets, strings and continuations of the statement being read, followed line by line in
    time proportional to each line: while a bracket, a triple-quoted string or a backslash
    continuation is open, the statement cannot be complete, and grouping need not parse it
    (parsing the whole open statement at each line made a 10,000-line literal quadratic)."""

    def __init__(self):
        self.depth = 0
        self.quote = None          # the open triple quote, if any
        self.backslash = False

    def add(self, line):
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            c = line[i]
            if self.quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += 3
                    self.quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif c in "'\"":
                if line.startswith(c * 3, i):
                    self.quote = c * 3
                    i += 3
                    continue
                i = _string_end(line, i + 1, c)   # (one line: unterminated is the parser's)
                continue
            elif c == "\\" and i == n - 1:
                self.backslash = True
            i += 1

    @property
    def open(self):
        return bool(self.depth or self.quote or self.backslash)


def _string_end(line, i, quote):
    n = len(line)
    while i < n:
        if line[i] == "\\":
            i += 2
        elif line[i] == quote:
            return i + 1
        else:
            i += 1
    return n


ALWAYS_PARSED = 32   # lines: an open statement this short is parsed at every line (as before),
                     # a longer one when its length doubles (a syntax error inside a long open
                     # bracket is then found a few lines late, never missed)


def statements(lines, is_complete):
    """Group input lines (without newlines) into statements as the interactive interpreter
    reads them.  Each line costs time proportional to its length, plus a parse of the statement
    when it may be complete (and, while a long bracket stays open, at each doubling of its
    length): linear in the input."""
    buffer = []
    openness = _Openness()
    parsed_at = 0

    def may_be_complete():
        nonlocal parsed_at
        if not openness.open or len(buffer) <= ALWAYS_PARSED or len(buffer) >= 2 * parsed_at:
            parsed_at = len(buffer)
            return is_complete("\n".join(buffer))
        return False

    for number, line in enumerate(lines):
        if number == 0 and line.startswith("\ufeff"):  # a byte order mark, as Python skips it
            line = line[1:]
        blank = not line.strip() or line.lstrip().startswith("#")
        if buffer and is_compound(buffer[0]):
            if not line.strip() and not (openness.open and _open_bracket_or_string(
                    "\n".join(buffer))):
                yield "\n".join(buffer)
                buffer, openness, parsed_at = [], _Openness(), 0
                continue
            if not blank and not line[0].isspace() and not CONTINUATION.match(line) \
                    and not openness.open and is_complete("\n".join(buffer)):
                yield "\n".join(buffer)
                buffer, openness, parsed_at = [], _Openness(), 0
        if not buffer and blank:
            continue
        buffer.append(line)
        openness.add(line)
        if not is_compound(buffer[0]) and may_be_complete():
            yield "\n".join(buffer)
            buffer, openness, parsed_at = [], _Openness(), 0
    if buffer:
        yield "\n".join(buffer)


def lines_of(stream):
    while True:
        line = stream.readline()
        if not line:
            return
        yield line.rstrip("\r\n")


def run_statement(session, source, stdout, timeout=None):
    """Run one statement as the interactive interpreter does: echo values, report errors."""
    try:
        session.run(source, echo=True, filename="<stdin>", timeout=timeout)
    except ProgramError as e:
        stdout.write("\n".join(e.format()) + "\n")
    except KeyboardInterrupt:
        stdout.write("KeyboardInterrupt\n")
    stdout.flush()


def run_piped(stdin, stdout, session=None, timeout=None) -> int:
    """Run statements read from stdin in this process, writing everything to stdout; returns
    0 at EOF.  (`gradcli repl` runs them in an evaluator process: gradcli.cli.replcore.)"""
    session = session or Session(out=stdout)
    for source in statements(lines_of(stdin), session.is_complete):
        run_statement(session, source, stdout, timeout)
    return 0
