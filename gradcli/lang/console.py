"""The piped REPL (standard input not a terminal): Python's interactive interpreter protocol
without prompt, banner or colour.  A simple statement runs as soon as it is complete; a
compound statement runs at the blank line that ends it (or, more leniently than Python, at the
next unindented line); non-None expression values are echoed with repr; errors are
`Type: message`; output is flushed after each statement and the session survives errors."""

import re

from .errors import IncompleteInput, ProgramError
from .parser import parse
from .session import Session

COMPOUND = re.compile(r"(if|for|while|def|class|with)\b|@")
CONTINUATION = re.compile(r"(elif|else)\b")


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


def statements(lines, is_complete):
    """Group input lines (without newlines) into statements as the interactive interpreter
    reads them."""
    buffer = []
    for number, line in enumerate(lines):
        if number == 0 and line.startswith("\ufeff"):  # a byte order mark, as Python skips it
            line = line[1:]
        blank = not line.strip() or line.lstrip().startswith("#")
        if buffer and is_compound(buffer[0]):
            source = "\n".join(buffer)
            if not line.strip() and not _open_bracket_or_string(source):
                yield source
                buffer = []
                continue
            if not blank and not line[0].isspace() and not CONTINUATION.match(line) \
                    and is_complete(source):
                yield source
                buffer = []
        if not buffer and blank:
            continue
        buffer.append(line)
        if not is_compound(buffer[0]) and is_complete("\n".join(buffer)):
            yield "\n".join(buffer)
            buffer = []
    if buffer:
        yield "\n".join(buffer)


def _lines(stream):
    while True:
        line = stream.readline()
        if not line:
            return
        yield line.rstrip("\r\n")


def run_statement(session, source, stdout):
    """Run one statement as the interactive interpreter does: echo values, report errors."""
    try:
        session.run(source, echo=True, filename="<stdin>")
    except ProgramError as e:
        stdout.write("\n".join(e.format()) + "\n")
    except KeyboardInterrupt:
        stdout.write("KeyboardInterrupt\n")
    stdout.flush()


def run_piped(stdin, stdout, session=None) -> int:
    """Run statements read from stdin, writing everything to stdout; returns 0 at EOF."""
    session = session or Session(out=stdout)
    for source in statements(_lines(stdin), session.is_complete):
        run_statement(session, source, stdout)
    return 0
