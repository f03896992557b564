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

    @property
    def in_bracket_or_string(self):
        return bool(self.depth or self.quote)


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


# The parser runs at some 10-60 us a token: grouping parses a statement only while it is short,
# to find a syntax error inside an open bracket at once (`z = [1, 2 3,` stands alone, as in
# Python's interpreter).  A longer one is grouped by its brackets, strings and indentation alone
# (its errors are the evaluator's to report when it runs), so that grouping costs time
# proportional to the input, never a parse of a long statement at each of its lines.
SMALL = 2_000         # characters of a statement grouping may parse
PARSE_BUDGET = 4_000  # characters grouping parses at most for one statement, over its lines


class TooLong:
    """What statements() gives for a statement (or a line, see lines_of) longer than its limit:
    its text is not kept; error() is the one-line error to show."""

    def __init__(self, limit):
        self.limit = limit

    def error(self):
        from .source import limit_note
        return ProgramError("MemoryError", "program too long " +
                            limit_note(f"{self.limit:,} characters", "GRADCLI_MAX_SOURCE"))


class LongLine:
    """A line of the input longer than lines_of's limit (its text is not kept)."""


class StatementReader:
    """Groups input lines into statements as the interactive interpreter reads them, a line at
    a time: add(line) gives the statements that line completes.  A simple statement ends where
    it is complete, a compound one at a blank line (or, more leniently than Python, at the next
    unindented line that does not continue it).  Each line costs time proportional to its
    length (see _Openness), plus parses of the statement while it is short (SMALL,
    PARSE_BUDGET): linear in the input.  limit: a statement longer than that many characters
    is given as a TooLong (its lines not kept) rather than as text."""

    def __init__(self, is_complete, limit=None):
        self.is_complete = is_complete
        self.limit = limit
        self.first_line = True
        self._reset()

    def _reset(self):
        self.lines = []            # the statement's lines (None once it is too long)
        self.head = None           # its first line
        self.chars = 0
        self.work = 0              # characters of it parsed so far
        self.openness = _Openness()
        self.decorators_only = False  # every unindented line so far a decorator

    @property
    def pending(self):
        """Is a statement begun and not yet complete?"""
        return self.head is not None

    @property
    def compound(self):
        return self.head is not None and is_compound(self.head)

    def _text(self):
        return "\n".join(self.lines)

    def _may_parse(self):
        if self.lines is None or self.chars > SMALL or self.work + self.chars > PARSE_BUDGET:
            return False
        self.work += self.chars
        return True

    def _take(self):
        statement = self._text() if self.lines is not None else TooLong(self.limit)
        self._reset()
        return statement

    def _simple_complete(self):
        if not self.openness.open:
            return True
        return self._may_parse() and self.is_complete(self._text())

    def _compound_complete(self):
        """A compound statement, its brackets and strings closed: complete (at an unindented
        line that does not continue it, or at the end of the input)?"""
        if self._may_parse():
            return self.is_complete(self._text())
        return not self.decorators_only  # (a decorator's def or class is still to come)

    def _blank_ends_compound(self):
        """A blank line ends a compound statement, but inside a bracket or a triple-quoted
        string (a short statement's syntax error there ends it all the same)."""
        if not self.openness.in_bracket_or_string:
            return True
        return self._may_parse() and not _open_bracket_or_string(self._text())

    def complete(self):
        """Would the statement begun be complete if the input ended here?"""
        if not self.pending:
            return True
        if self.compound:
            return not self.openness.open and self._compound_complete()
        return self._simple_complete()

    def add(self, line):
        """The statements that `line` completes (none, one or two)."""
        done = []
        if self.first_line:
            self.first_line = False
            if isinstance(line, str) and line.startswith("\ufeff"):  # (a byte order mark)
                line = line[1:]
        if isinstance(line, LongLine):
            # a line too long to keep: the statement it belongs to is too long
            if self.head is None:
                self.head = ""
            self.lines = None
            if not self.openness.open and not self.compound:
                done.append(self._take())
            return done
        blank = not line.strip() or line.lstrip().startswith("#")
        if self.pending and self.compound:
            if not line.strip() and self._blank_ends_compound():
                done.append(self._take())
                return done
            if not blank and not line[0].isspace() and not CONTINUATION.match(line) \
                    and not self.openness.open and self._compound_complete():
                done.append(self._take())
        if not self.pending and blank:
            return done
        if self.head is None:
            self.head = line
            self.decorators_only = line.lstrip().startswith("@")
        elif self.decorators_only and line and not line[0].isspace() and not blank \
                and not self.openness.open and not line.startswith("@"):
            self.decorators_only = False
        self.chars += len(line) + 1
        if self.lines is not None:
            if self.limit is not None and self.chars > self.limit:
                self.lines = None
            else:
                self.lines.append(line)
        self.openness.add(line)
        if not self.compound and self._simple_complete():
            done.append(self._take())
        return done

    def finish(self):
        """The statement left at the end of the input, if any."""
        return [self._take()] if self.pending else []


def statements(lines, is_complete, limit=None):
    """Group input lines (without newlines) into statements as the interactive interpreter
    reads them (see StatementReader): linear in the input."""
    reader = StatementReader(is_complete, limit)
    for line in lines:
        yield from reader.add(line)
    yield from reader.finish()


def lines_of(stream, limit=None):
    """The lines of a text stream, without their ends; a line longer than `limit` characters
    (GRADCLI_MAX_SOURCE by default) is read no further than that and given as a LongLine (a
    frontend's memory holds no more of it)."""
    from .source import MAX_SOURCE
    limit = MAX_SOURCE if limit is None else limit
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            while line and not line.endswith("\n"):  # (the rest of it, a piece at a time)
                line = stream.readline(1 << 20)
            yield LongLine()
            continue
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
    from .source import MAX_SOURCE
    session = session or Session(out=stdout)
    for source in statements(lines_of(stdin), session.is_complete, MAX_SOURCE):
        if isinstance(source, TooLong):
            stdout.write("\n".join(source.error().format()) + "\n")
            stdout.flush()
            continue
        run_statement(session, source, stdout, timeout)
    return 0
