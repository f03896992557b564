"""The grammar, its parser and parse errors as ProgramError.

lark builds the LALR parser from grammar/gradcli.lark (once, cached on disk); its tables are
exported to gradcli.lang.lalr, which parses without importing lark.  A source those tables
reject goes to lark itself, whose exception is worded here as Python words the error.  Nothing
is built at import."""

import os
import re
import sys
from functools import lru_cache

from . import lalr, limits
from .errors import IncompleteInput, ProgramError
from .source import python_name

GRAMMAR_FILE = "gradcli.lark"
# Python's keywords the grammar has no statement for: never names, and a program that uses one
# is told that gradcli does not support it (`async` is not supported in gradcli programs)
RESERVED = frozenset({"async", "await"})
TAB_SIZE = 8
BOM = "\ufeff"
OPEN = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
CLOSE = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
TRIPLE_QUOTE = r"[a-zA-Z]{0,2}('''|\"\"\")"  # (patterns: compiled at their first use)
QUOTE = r"[a-zA-Z]{0,2}['\"]"

# Friendly messages for parser errors, recognised by lark's match_examples: label -> examples.
EXAMPLES = {
    ("SyntaxError", "expected ':'"): [
        "if x\n", "if x\n    pass\n", "for i in x\n", "while x\n", "def f()\n",
        "def f(x)\n", "class A\n", "class A(B)\n", "with a\n", "with a as b\n",
        "if x:\n    pass\nelse\n"],
    ("SyntaxError", "invalid syntax. Maybe you meant '==' or ':=' instead of '='?"): [
        "if x = 1:\n", "while x = 1:\n"],
    ("SyntaxError", "invalid syntax. Perhaps you forgot a comma?"): [
        "f(a b)\n", "[a b]\n", "(a b)\n", "{a b}\n", "f(a, b c)\n", "[a, b c]\n"],
    ("IndentationError", "unexpected indent"): ["x\n    y\n", "if x:\n    y\n        z\n"],
    ("IndentationError", "expected an indented block"): [
        "if x:\ny\n", "for i in x:\ny\n", "while x:\ny\n", "def f():\ny\n", "class A:\ny\n",
        "with a:\ny\n", "if x:\n    y\nelse:\nz\n"],
}


def grammar_path():
    """The grammar file: inside the installed package, else at the source checkout's root.
    (os.path, not pathlib: an evaluator imports nothing else that needs pathlib, 4 ms.)"""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    packaged = os.path.join(package, "grammar", GRAMMAR_FILE)
    return packaged if os.path.isfile(packaged) else \
        os.path.join(os.path.dirname(package), "grammar", GRAMMAR_FILE)


@lru_cache(maxsize=None)
def grammar_text():
    with open(grammar_path(), encoding="utf-8") as f:
        return f.read()


def cache_dir():
    """gradcli's directory under the user's cache directory (created), or None if unusable."""
    try:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME")
                            or os.path.join(os.path.expanduser("~"), ".cache"), "gradcli")
        os.makedirs(base, exist_ok=True)
    except (OSError, RuntimeError):
        return None
    return base


def cache_path(grammar_text):
    """Where lark's built parser is cached (keyed by the grammar's hash), or None if
    unwritable."""
    base = cache_dir()
    if base is None:
        return None
    import zlib  # (hashlib's import loads OpenSSL: 3 ms of every run)
    version = lark_version()
    key = f"{zlib.crc32(grammar_text.encode()):08x}{zlib.adler32(grammar_text.encode()):08x}"
    # each Python and lark keeps its own (one user's several interpreters share the directory)
    kind = f"grammar-py{sys.version_info[0]}{sys.version_info[1]}-lark{version}"
    path = os.path.join(base, f"{kind}-{key}.lark-cache")
    if os.path.isfile(path):
        return path
    if not os.access(base, os.W_OK):
        return None
    try:
        for name in os.listdir(base):  # caches of earlier grammars
            if name.startswith(f"{kind}-") and name.endswith(".lark-cache"):
                try:
                    os.unlink(os.path.join(base, name))
                except FileNotFoundError:
                    pass
    except OSError:  # (an evaluator, behind its wall, writes nothing)
        return None
    return path


@lru_cache(maxsize=None)
def lark_version():
    """lark's version, read from its package without importing it (the import takes some
    30 ms, which only a syntax error needs: prepare() asks on every run)."""
    if "lark" in sys.modules:
        return sys.modules["lark"].__version__
    import importlib.util
    try:
        with open(importlib.util.find_spec("lark").origin, encoding="utf-8") as f:
            for line in f:  # __version__: str = "1.3.1"
                if line.startswith("__version__"):
                    return line.split("=", 1)[1].strip().strip("\"'")
    except (OSError, AttributeError, TypeError, ValueError, IndexError):
        pass
    import lark
    return lark.__version__


def prepare():
    """Before an evaluator starts (it can write nothing, so cannot cache): the tables loaded,
    lark's cache written if it is missing (lark words the errors of rejected sources), and the
    language's modules imported, so that their bytecode is cached where an installation did
    not compile it (an editable install) and the evaluator does not import them again.  (The
    bytecode of the modules that load at first use: gradcli.lazy_modules, from the frontend.)"""
    from . import calculator, session  # noqa: F401  (syntax, compiler and sandbox too)
    tables_parser()
    path = cache_path(grammar_text())
    if path is not None and not os.path.isfile(path):
        lark_parser()


@lru_cache(maxsize=None)
def lark_parser():
    """The Lark LALR parser (start symbols `module` and `expression`): it builds the tables
    that `tables_parser` runs, and words the errors of sources those tables reject."""
    from lark import Lark, Token
    text = grammar_text()
    return Lark(text, parser="lalr", postlex=Indenter(Token), start=["module", "expression"],
                lexer="basic", propagate_positions=True, maybe_placeholders=True,
                cache=cache_path(text) or False)


@lru_cache(maxsize=None)
def tables_parser():
    """The parser that runs lark's tables without lark (gradcli.lang.lalr): loaded from the
    cache directory, or exported from lark_parser() and saved there.  None if lark's
    internals are not as lalr.export expects (lark then parses everything)."""
    text = grammar_text()
    base = cache_dir()
    path = None if base is None else os.path.join(base, lalr.file_name())
    data = None if path is None else lalr.load(path, text)
    if data is None:
        try:
            data = lalr.export(lark_parser(), text)
        except (AttributeError, TypeError, ValueError, ImportError):
            return None
        if path is not None:
            lalr.save(path, data)
    return lalr.Parser(data, Indenter(lalr.Token))


class Indenter:
    """Turns newlines into _NEWLINE/_INDENT/_DEDENT tokens outside brackets (as lark's
    Indenter does), keeping its state per parse so that parses may nest (f-string fields),
    and reporting bracket errors as Python does.  Token: the class of the tokens it makes."""

    always_accept = ("_NEWLINE",)

    def __init__(self, token_class):
        self.token_class = token_class

    def process(self, stream):
        return self._tokens(stream)

    def _tokens(self, stream):
        Token = self.token_class
        brackets, levels, seen = [], [0], False
        for token in stream:
            kind = token.type
            if kind == "_NEWLINE":
                if brackets:
                    continue
                yield token
                indent_text = token.value.rsplit("\n", 1)[1]
                indent = indent_text.count(" ") + indent_text.count("\t") * TAB_SIZE
                place = (token.end_pos, token.end_line, token.end_column)
                if indent > levels[-1]:
                    levels.append(indent)
                    if len(levels) > limits.MAX_NESTING:
                        raise ProgramError("IndentationError", "too many levels of indentation "
                                           + _nesting_limit(), token.end_line, token.end_column)
                    yield _token_at(Token, "_INDENT", indent_text, place)
                while indent < levels[-1]:
                    levels.pop()
                    yield _token_at(Token, "_DEDENT", indent_text, place)
                if indent != levels[-1]:
                    raise ProgramError("IndentationError", "unindent does not match any outer "
                                       "indentation level", token.end_line, token.end_column)
                continue
            if not seen and token.column > 1:
                raise ProgramError("IndentationError", "unexpected indent", token.line,
                                   token.column)
            if kind == "NAME":
                if not token.value.isascii():  # Python's identifiers are NFKC-normalised
                    token = Token.new_borrow_pos("NAME", python_name(token.value), token)
                if token.value in RESERVED:
                    raise unsupported(token.value, token.line, token.column)
            seen = True
            if kind in CLOSE:
                _close_bracket(brackets, token)
            yield token
            if kind in OPEN:
                brackets.append(token)
                if len(brackets) > limits.MAX_NESTING:
                    raise ProgramError("SyntaxError", "too many nested parentheses " +
                                       _nesting_limit(), token.line, token.column)
        if brackets:
            first = brackets[-1]
            raise IncompleteInput("SyntaxError", f"'{first.value}' was never closed",
                                  first.line, first.column)
        while len(levels) > 1:
            levels.pop()
            yield Token("_DEDENT", "", 0, 0, 0, 0, 0, 0) if token is None else \
                Token.new_borrow_pos("_DEDENT", "", token)


def unsupported(what, line=None, column=None):
    """The error of a Python statement outside gradcli's subset."""
    return ProgramError("SyntaxError", f"`{what}` is not supported in gradcli programs", line,
                        column)


# Python statements the grammar has no rule for, told by the start of their line (the parser
# fails further on: at `x` in `match x:`, at `*` in `except* E:`)
UNSUPPORTED_LINES = ((r"\s*(match|case)\b[^=]*:\s*(#.*)?$", "match"),
                     (r"\s*except\s*\*", "except*"))


def _unsupported_line(text, line):
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return None
    for pattern, what in UNSUPPORTED_LINES:
        if re.match(pattern, lines[line - 1]):
            return unsupported(what, line, len(lines[line - 1]) -
                               len(lines[line - 1].lstrip()) + 1)
    return None


def _nesting_limit():
    return limits.limit_note(f"{limits.MAX_NESTING:,}", "GRADCLI_MAX_NESTING")


def _token_at(token_class, kind, value, place):
    pos, line, column = place
    return token_class(kind, value, pos, line, column, line, column, pos)


def _close_bracket(brackets, token):
    if not brackets:
        raise ProgramError("SyntaxError", f"unmatched '{token.value}'", token.line, token.column)
    opening = brackets.pop()
    if opening.value != CLOSE[token.type]:
        raise ProgramError("SyntaxError", f"closing parenthesis '{token.value}' does not match "
                           f"opening parenthesis '{opening.value}'", token.line, token.column)


CACHED_SOURCE = 10_000     # characters: shorter sources keep their tree (a REPL parses each
                           # statement twice: to know it is complete, then to run it)


def parse(source, start="module"):
    """Parse source into a lark Tree; raises ProgramError (IncompleteInput at a premature end).
    The tree is shared with earlier parses of the same source: treat it as read-only."""
    if len(source) > limits.MAX_SOURCE:
        raise ProgramError("MemoryError", str(limits.source_too_long(len(source))))
    if source.startswith(BOM):  # (a UTF-8 file's byte order mark, which Python skips)
        source = source[1:]
    if "\0" in source:
        before = source[:source.index("\0")]
        line = before.count("\n") + 1
        raise ProgramError("SyntaxError", "source code cannot contain null bytes", line,
                           len(before) - before.rfind("\n"),
                           source.split("\n")[line - 1].replace("\0", ""))
    text = source if source.endswith("\n") else source + "\n"
    if len(text) <= CACHED_SOURCE:
        return _cached_parse(text, start)
    return _parse(text, start)


@lru_cache(maxsize=64)
def _cached_parse(text, start):
    return _parse(text, start)


def _parse(text, start):
    fast = tables_parser()
    if fast is not None:
        try:
            return fast.parse(text, start)
        except lalr.ParseFailed as e:
            if e.token is not None and e.token.type == "$END":
                raise _token_error(e, text, start) from None
            # lark finds the same error and says more about it
        except ProgramError as e:
            raise _with_source(e, text) from None
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken
    try:
        return lalr.from_lark(lark_parser().parse(text, start=start))
    except UnexpectedToken as e:
        raise _token_error(e, text, start) from None
    except UnexpectedCharacters as e:
        raise _character_error(e, text) from None
    except ProgramError as e:
        raise _with_source(e, text) from None


def _with_source(error, text):
    if error.line is not None and error.source_line is None:
        lines = text.split("\n")
        if 0 < error.line <= len(lines):
            error.source_line = lines[error.line - 1]
    return error


BLOCK_OWNERS = {"def": "function definition", "class": "class definition"}


def _missing_block(text, line):
    """Python's wording: `expected an indented block after 'for' statement on line 3`."""
    lines = text.split("\n")[:line]
    for number in range(len(lines), 0, -1):
        header = lines[number - 1].split("#")[0].strip()
        if header.endswith(":"):
            keyword = header.lstrip("@").split()[0].rstrip(":")
            owner = BLOCK_OWNERS.get(keyword, f"'{keyword}' statement")
            return f"expected an indented block after {owner} on line {number}"
    return "expected an indented block"


def _token_error(e, text, start):
    """The error of an unexpected token (lark's UnexpectedToken, or the tables' ParseFailed
    at the end of the source, which needs no more than its expected terminals)."""
    token = e.token
    if token.type == "$END":
        lines = text.rstrip("\n").split("\n")
        if "_INDENT" in e.expected:
            error = IncompleteInput("IndentationError", _missing_block(text, len(lines)))
        else:
            error = IncompleteInput("SyntaxError", "unexpected EOF while parsing")
        error.line, error.column = len(lines), len(lines[-1]) + 1
        return _with_source(error, text)
    named = _unsupported_line(text, token.line)
    if named is not None:
        return _with_source(named, text)
    kind, message = _match_example(e, start) or ("SyntaxError", "invalid syntax")
    if message == "expected an indented block":
        message = _missing_block(text, token.line - 1)
    return _with_source(ProgramError(kind, message, token.line, token.column), text)


@lru_cache(maxsize=None)
def _example_errors(start):
    """The parse error of each example of EXAMPLES, with its label (parsed once)."""
    from lark.exceptions import UnexpectedInput
    found = []
    for label, sources in EXAMPLES.items():
        for source in sources:
            try:
                lark_parser().parse(source, start=start)
            except UnexpectedInput as e:
                found.append((label, e))
            except ProgramError:
                pass
    return found


_UNEXPECTED_INDENT = ("IndentationError", "unexpected indent")


def _match_example(error, start):
    """The label of the example failing as error fails (lark's match_examples with use_accepts,
    whose debug logging breaks on LALR states in lark 1.3, and which re-parses every example
    at every error)."""
    from lark.exceptions import UnexpectedToken
    candidate = None
    for label, example in _example_errors(start):
        if example.state != error.state:
            continue
        if isinstance(error, UnexpectedToken) and isinstance(example, UnexpectedToken):
            if example.accepts != error.accepts:
                continue
            if example.token == error.token:
                return label
            if label == _UNEXPECTED_INDENT and error.token.type != "_INDENT":
                continue  # (`>> 1` fails where `x\n    y` does, but it is no indent)
        if candidate is None:
            candidate = label
    return candidate


def _character_error(e, text):
    rest = text[e.pos_in_stream:]
    if re.match(TRIPLE_QUOTE, rest):
        error = IncompleteInput("SyntaxError", "unterminated triple-quoted string literal "
                                f"(detected at line {text.count(chr(10))})", e.line, e.column)
    elif re.match(QUOTE, rest):
        error = ProgramError("SyntaxError", f"unterminated string literal (detected at line "
                             f"{e.line})", e.line, e.column)
    elif not rest[0].isascii() and not rest[0].isprintable():
        error = ProgramError("SyntaxError", f"invalid non-printable character U+{ord(rest[0]):04X}",
                             e.line, e.column)
    elif not rest[0].isascii():
        error = ProgramError("SyntaxError", f"invalid character '{rest[0]}' "
                             f"(U+{ord(rest[0]):04X})", e.line, e.column)
    else:
        error = ProgramError("SyntaxError", "invalid syntax", e.line, e.column)
    return _with_source(error, text)


def is_complete(source):
    """False when the source ends where more input is expected (see IncompleteInput)."""
    try:
        parse(source)
    except IncompleteInput:
        return False
    except ProgramError:
        return True
    return True
