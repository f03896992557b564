"""Transcripts (SPEC §6): parse them, replay each session through a fresh piped session, and
compare what gradcli prints with what PyTorch printed.

Format: `## title` starts a session (a fresh interpreter); `>>> ` starts a statement and `... `
continues it; a lone `...` ends a compound statement (a blank line in piped mode); the lines up
to the next `>>>` or `##` are the expected output.  Lines are compared after trailing spaces
are stripped; `0x...` matches any hexadecimal address; a number with decimals matches a number
that differs by at most one unit in its last printed digit."""

import contextlib
import difflib
import io
import re
import sys
from dataclasses import dataclass, field
from decimal import Decimal

from .console import run_statement
from .source import read_files
from .session import Session

TOKEN = re.compile(r"0x\.\.\.|0x[0-9a-fA-F]+"
                   r"|(?<![\w.])-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])"
                   r"|\s+|.")
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@dataclass
class Statement:
    lines: list                      # input lines, without `>>> ` / `... `
    expected: list = field(default_factory=list)

    @property
    def source(self):
        return "\n".join(self.lines).rstrip("\n")

    def prompt_lines(self):
        return [(">>> " if i == 0 else "... ") + line if line or i == 0 else "..."
                for i, line in enumerate(self.lines)]


@dataclass
class TranscriptSession:
    title: str
    statements: list = field(default_factory=list)

    def text_lines(self, outputs=None):
        """The session as transcript lines, with the expected outputs or the given ones."""
        lines = [f"## {self.title}"]
        for i, s in enumerate(self.statements):
            lines += s.prompt_lines() + (s.expected if outputs is None else outputs[i])
        return lines


def parse_transcript(text, default_title="session"):
    """The sessions of a transcript."""
    sessions, statement = [], None
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("## "):
            sessions.append(TranscriptSession(line[3:].strip()))
            statement = None
        elif line.startswith(">>>"):
            if not sessions:
                sessions.append(TranscriptSession(default_title))
            statement = Statement([line[4:]])
            sessions[-1].statements.append(statement)
        elif statement is not None and (line.startswith("... ") or line == "...") \
                and not statement.expected:
            statement.lines.append(line[4:])
        elif statement is not None:
            statement.expected.append(line)
    for s in sessions:
        if s.statements:
            _strip_trailing_blank_lines(s.statements[-1].expected)
    return sessions


def _strip_trailing_blank_lines(lines):
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


# ---------------------------------------------------------------------- comparison

def _unit(number):
    """One unit in the last printed decimal digit (None for a number printed without
    decimals: it must match exactly)."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return Decimal(1).scaleb(int(exponent or 0) - decimals) if decimals else None


def numbers_match(expected, actual):
    """Equal, or (both printed with decimals) within one unit of the last printed digit."""
    if expected == actual:
        return True
    units = [u for u in (_unit(expected), _unit(actual)) if u is not None]
    return len(units) == 2 and abs(Decimal(expected) - Decimal(actual)) <= max(units)


def lines_match(expected, actual):
    """Does an output line match the expected line (SPEC §6)?"""
    expected, actual = expected.rstrip(), actual.rstrip()
    if expected == actual:
        return True
    want, got = TOKEN.findall(expected), TOKEN.findall(actual)
    if len(want) != len(got):
        return False
    for w, g in zip(want, got):
        if w == g:
            continue
        if w == "0x...":
            if not re.fullmatch(r"0x[0-9a-fA-F]+", g):
                return False
        elif not (NUMBER.fullmatch(w) and NUMBER.fullmatch(g) and numbers_match(w, g)):
            return False
    return True


def outputs_match(expected, actual):
    return len(expected) == len(actual) and all(map(lines_match, expected, actual))


# ---------------------------------------------------------------------- replay

@contextlib.contextmanager
def fresh_interpreter():
    """The engine's global state as a new interpreter has it (restored afterwards)."""
    from ..engine import dtypes
    from ..engine.graph import AnomalyMode
    from ..engine.grad_mode import GradMode
    from ..engine.printing import get_printoptions, set_printoptions
    saved = (dtypes.get_default_dtype(), GradMode.enabled, AnomalyMode.enabled,
             AnomalyMode.check_nan, get_printoptions())
    from ..engine.tensor import Tensor
    dtypes.set_default_dtype(dtypes.float32)
    GradMode.enabled, AnomalyMode.enabled, AnomalyMode.check_nan = True, False, True
    Tensor._warned_scalar = False  # PyTorch's once-per-process warnings warn again
    from ..engine import autograd
    from ..ops import shape
    from ..ops.scatter import WARNED as WARNED_SCATTER
    autograd._warned_create_graph = False
    hooks = sys.modules.get("gradcli.nn.hooks")  # (torch.nn.modules.module's global hooks;
    if hooks is not None:                          # torch.nn loads at a program's first use)
        hooks._GlobalHooks.clear()
    shape.WARNED_T.clear()
    WARNED_SCATTER.clear()
    set_printoptions(profile="default")
    try:
        yield
    finally:
        dtype, GradMode.enabled, AnomalyMode.enabled, AnomalyMode.check_nan, options = saved
        dtypes.set_default_dtype(dtype)
        set_printoptions(**options)
        close_dual_level()


def close_dual_level():
    """Leave a forward AD level a program entered and never left (`enter_dual_level()`: the
    next session's would be refused as nested)."""
    from ..autograd.forward_ad import exit_dual_level
    from ..engine.tangents import ForwardAD
    if ForwardAD.level is not None:
        exit_dual_level()


def replay(session, timeout=None):
    """Run a transcript session in a fresh piped session: the output lines of each statement
    (each stopped after `timeout` seconds, as the piped REPL's with --timeout)."""
    out = io.StringIO()
    program = Session(out=out)
    outputs = []
    with fresh_interpreter():
        for statement in session.statements:
            run_statement(program, statement.source, out, timeout)
            outputs.append(out.getvalue().splitlines())
            out.seek(0)
            out.truncate()
    if outputs:
        _strip_trailing_blank_lines(outputs[-1])
    return outputs


def _as_expected(expected, actual):
    """actual, where each line that matches its expected line is shown as expected."""
    return [expected[i] if i < len(expected) and lines_match(expected[i], a) else a
            for i, a in enumerate(actual)]


def compare(session, outputs, name="transcript"):
    """None when every statement's output matches, else a unified diff (expected -> actual)
    in which lines that match within tolerance show as expected."""
    if all(outputs_match(s.expected, o) for s, o in zip(session.statements, outputs)):
        return None
    shown = [_as_expected(s.expected, o) for s, o in zip(session.statements, outputs)]
    return "\n".join(difflib.unified_diff(
        session.text_lines(), session.text_lines(shown), f"{name} (expected)",
        f"{name} (gradcli)", lineterm=""))


def replay_files(paths, out, texts=None, timeout=None) -> int:
    """Replay every session of the transcript files (read here, or given as read_files()
    gave them), each statement for at most `timeout` seconds; print a diff per mismatching
    session, a `N/M sessions match` line per file and a total.  Returns 0 if all match, else
    1."""
    matched = total = 0
    texts = read_files(paths) if texts is None else texts
    for path in paths:
        if isinstance(texts[path], dict):  # (read_files: {"error": why})
            out.write(f"{path}: cannot read: {texts[path]['error']}\n")
            total += 1
            continue
        sessions = parse_transcript(texts[path])
        if not sessions:  # (a mistyped name or another file would otherwise pass unnoticed)
            out.write(f"{path}: no transcript sessions in it (statements start with `>>> `, "
                      f"sessions with `## title`)\n")
            total += 1
            continue
        file_matched = 0
        for session in sessions:
            diff = compare(session, replay(session, timeout), f"{path}: {session.title}")
            if diff is None:
                file_matched += 1
            else:
                out.write(diff + "\n")
        out.write(f"{path}: {file_matched}/{len(sessions)} sessions match\n")
        matched += file_matched
        total += len(sessions)
    out.write(f"total: {matched}/{total} sessions match\n")
    out.flush()
    return 0 if matched == total else 1
