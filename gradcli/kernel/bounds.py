"""What crosses between an evaluator and its frontend, bounded: the message lines' framing and
size, JSON documents parsed only within a budget of the objects they may build
(loads_bounded), the evaluator's output kept up to MAX_CAPTURE, and text for a terminal with
every control sequence but plain colours removed (terminal_safe)."""

import io
import json
import re


MAX_MESSAGE = 256 << 20  # bytes of one message line (more: the evaluator is ended)
# the shapes of a message line (as Channel.send writes them): {"o": "..."}, {"e": "..."},
# {"r": ...}.  The patterns here are compiled at their first use (pattern(): the frontend imports
# this module before it forks a one-shot command's evaluator, whose start-up waits for it)
_OUTPUT = rb'\{[ \t\r]*"([oe])"[ \t\r]*:[ \t\r]*"'
_CLOSE = r"[ \t\r]*\}[ \t\r]*\Z"
_ANSWER = rb'\{[ \t\r]*"r"[ \t\r]*:'

# what may reach a terminal of what an evaluator prints: text, tabs, newlines, carriage
# returns, backspaces and colours (SGR: `ESC [`, numbers separated by `;`, with `:`
# sub-parameters as in 38:2::r:g:b, then `m`); no other control character or escape sequence
# (one could set the clipboard, the window title or the terminal's answerback).  A sequence
# ending in `m` with a private marker or an intermediate byte is no colour: `ESC [ > 4 ; 2 m`
# switches xterm's modifyOtherKeys on for the rest of the shell's session, `ESC [ ? 4 m` makes
# the terminal type an answer into the shell's input.
_UNSAFE = (r"(?P<sgr>\x1b\[[0-9;:]*m)|"
           r"\x1b(\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(\x07|\x1b\\)?|"
           r"[PX^_][^\x1b]*(\x1b\\)?|.?)|"
           r"[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]")


def pattern(source):
    """One of the patterns above, compiled (once: re's cache keeps it)."""
    return re.compile(source, re.S)


def terminal_safe(text):
    """text without the control characters and escape sequences a terminal should not get
    from a program (colours are kept)."""
    return pattern(_UNSAFE).sub(lambda m: m.group("sgr") or "", text)


# What the frontend parses of what an evaluator sends is bounded before json.loads builds it:
# a line of `[{},{},...]` is some 24 bytes of Python objects a byte, and a message line may be
# MAX_MESSAGE bytes.  An upper bound of the objects a parse builds (also a parse that fails
# half-way) is counted from the document's structure outside its strings, at these costs (the
# worst measured on CPython: a dict, a list and each further value or key), plus twice the
# text (the strings, and json.loads's own decoded copy of bytes).  (A dict entry, ":", costs
# most on CPython 3.10, whose dicts resize at a higher peak than 3.11's.)
_OBJECT_COST = {"{": 128, "[": 128, ",": 96, ":": 144}
PARSE_FLOOR = 64 << 20  # bytes of objects any document may build
PARSE_RATIO = 4         # and more only up to this multiple of its length
_WINDOW = 1 << 20       # (the exact count reads the document a window at a time)


class DocumentTooLarge(ValueError):
    """A JSON document from an evaluator that would build too many objects in the frontend."""


def parsed_size(data):
    """An upper bound of the bytes of objects json.loads(data) builds (str or bytes)."""
    def cost(text):
        return sum(text.count(c) * n for c, n in costs)

    kind = type(data)
    costs = [(c if kind is str else c.encode(), n) for c, n in _OBJECT_COST.items()]
    size = cost(data)  # (counted in the strings too: exact when they hold none of these)
    if size + 2 * len(data) <= _parse_budget(data):
        return size + 2 * len(data)
    # exactly: without the strings.  An escaped backslash, then an escaped quote, is no
    # string's end; every other quote opens or closes one (as a parser reads valid JSON, and
    # an invalid document's parse stops where this reading and the parser's could part)
    backslash, quote = ("\\", '\\"') if kind is str else (b"\\", b'\\"')
    plain = data.replace(backslash + backslash, backslash[:0]).replace(quote, quote[:0])
    inside, size = False, 0
    for start in range(0, len(plain), _WINDOW):
        parts = plain[start:start + _WINDOW].split(quote[1:])
        size += cost(quote[:0].join(parts[1 if inside else 0::2]))
        inside ^= len(parts) % 2 == 0
    return size + 2 * len(data)


def _parse_budget(data):
    return max(PARSE_FLOOR, PARSE_RATIO * len(data))


def loads_bounded(data):
    """json.loads(data) for a document from an evaluator (untrusted): DocumentTooLarge when
    the objects it would build are more than PARSE_RATIO times its length (PARSE_FLOOR at
    least); ValueError or RecursionError when it is no JSON."""
    if parsed_size(data) > _parse_budget(data):
        raise DocumentTooLarge(f"a document of {len(data):,} bytes that would build more than "
                               f"{_parse_budget(data) >> 20} MiB of objects")
    return json.loads(data)


MAX_CAPTURE = 64 << 20  # characters of an evaluator's output the frontend keeps (CapturedOutput)


class CapturedOutput(io.StringIO):
    """What an evaluator prints, kept for the frontend (graph -o, plot -o), at most `limit`
    characters: `overflowed` tells when more came (the rest is dropped)."""

    def __init__(self, limit=None):
        super().__init__()
        self.limit = MAX_CAPTURE if limit is None else limit
        self.overflowed = False

    def write(self, text):
        if self.overflowed or self.tell() + len(text) > self.limit:
            self.overflowed = True
            return len(text)
        return super().write(text)
