"""The REPL's session as the evaluator holds it (gradcli.kernel): a language Session, its
recording, tracer and transcript, the meta-commands that read them, and the request loop the
frontend (gradcli.cli.repl, which holds the prompt, the history and the user's files) talks to.
Nothing here imports prompt-toolkit."""

import contextlib
import sys

from ..engine import autograd, dtypes
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor
from ..lang.console import statements
from ..render.console import ErrorInfo, Renderer
from . import meta


def split_statements(text, is_complete):
    """The statements of `text` as the piped REPL reads them (a simple statement ends where it
    is complete, a compound one at a blank or the next unindented line)."""
    return list(statements(text.split("\n"), is_complete))


# ---------------------------------------------------------------------- output

class EchoStream:
    """The session's output stream: written to the terminal (highlighted on a colour terminal)
    and captured for the transcript."""

    def __init__(self, out, console=None):
        self.out = out
        self.console = console
        self.captured = []
        self.partial = ""
        self.muted = False
        self.highlighter = None

    def write(self, text):
        if self.muted:
            return len(text)
        self.captured.append(text)
        if self.console is None:
            self.out.write(text)
            return len(text)
        self.partial += text
        *complete, self.partial = self.partial.split("\n")
        for line in complete:
            self._print(line + "\n")
        return len(text)

    def _print(self, text):
        from rich.text import Text
        if self.highlighter is None:
            from rich.highlighter import ReprHighlighter
            self.highlighter = ReprHighlighter()
        if text.startswith(("UserWarning:", "Warning:")):
            styled = Text(text, style="yellow")
        else:
            styled = self.highlighter(Text(text))
        self.console.print(styled, end="", soft_wrap=True)

    def flush(self):
        if self.partial and self.console is not None:
            self._print(self.partial)
            self.partial = ""
        self.out.flush()

    def take(self):
        """What was written since the last take()."""
        self.flush()
        text = "".join(self.captured)
        self.captured = []
        return text

    def isatty(self):
        return False


def _default_session(out):
    from ..analysis.evaluate import new_session
    return new_session(None, out)


class ReplCore:
    """One interactive session as the evaluator holds it: the language Session, its recording
    (for :graph/:explain), its transcript (for :save); it runs statements and the
    meta-commands that read the session.  The prompt is the frontend's (gradcli.cli.repl)."""

    def __init__(self, out=None, color=False, session_factory=None, unicode=None):
        self.out = out or sys.stdout
        self.color = color
        self.unicode = unicode if unicode is not None else \
            (getattr(self.out, "encoding", None) or "").lower().startswith("utf")
        self.columns = None  # the frontend's terminal width, sent with each request
        self.timeout = None  # seconds a statement may run (gradcli repl --timeout)
        self.renderer = Renderer("rich" if self.color else "plain", out=self.out, err=self.out)
        self.stream = EchoStream(self.out, self.renderer.console if self.color else None)
        self.session_factory = session_factory or _default_session
        self.initial_dtype = dtypes.get_default_dtype()
        self.transcript = meta.Transcript()
        self._new_session()
        self.initial_names = set(self.namespace)  # (a session's own: not the program's)

    # ------------------------------------------------------------------ session state
    def _new_session(self):
        from ..analysis.record import Recording
        from ..analysis.trace import PassTracer
        self.session = self.session_factory(self.stream)
        self.recording = Recording()
        self.recording.location = getattr(self.session, "current_line", None)
        self.tracer = PassTracer()  # the program's backward passes, for :explain afterwards

    @property
    def namespace(self):
        return self.session.namespace

    def width(self):
        """The terminal's width in columns (80 when it cannot be told)."""
        if self.columns:
            return self.columns
        if self.color:
            return self.renderer.console.width
        import shutil
        return shutil.get_terminal_size((80, 24)).columns

    def is_complete(self, source):
        return self.session.is_complete(source)

    def reset(self):
        from ..lang.transcript import close_dual_level
        dtypes.set_default_dtype(self.initial_dtype)
        GradMode.enabled = True
        close_dual_level()
        hooks = sys.modules.get("gradcli.nn.hooks")  # (torch.nn.modules.module's global hooks)
        if hooks is not None:
            hooks._GlobalHooks.clear()
        self._new_session()
        self.transcript.new_session()

    @contextlib.contextmanager
    def quiet_program_output(self):
        """Mute the program's own prints (tensor hooks) while a meta-command re-runs backward."""
        self.stream.muted = True
        try:
            yield
        finally:
            self.stream.muted = False

    # ------------------------------------------------------------------ running input
    def execute(self, text):
        """Run one accepted input (code or a meta-command); False when the REPL should exit."""
        if not text.strip():
            return True
        habit = python_habit(text.strip(), self.namespace)
        if habit is not None:
            return self.run_habit(*habit)
        if text.lstrip().startswith(":"):
            try:
                return meta.dispatch(self, text.strip())
            except meta.MetaError as e:
                self.show_error(e, text)
            except KeyboardInterrupt:
                self._interrupted()
            except Exception as e:  # a meta-command must never end the session
                self.show_error(e, text)
            return True
        self.run_source(text)
        return True

    def run_source(self, text):
        """Run program text statement by statement, as the piped REPL reads it.  An input of
        several lines (a paste) shows an error's position in it: line numbers count from the
        input's first line.  Pasted doctest text runs with its prompts stripped and its
        expected output ignored; blank lines inside a pasted block do not end it."""
        doctest = doctest_statements(text)
        if doctest is not None:
            self.run_statements(doctest)
            return
        text = bridge_blank_lines(text)
        sources = split_statements(text.rstrip(), self.is_complete)
        if "\n" not in text.strip():
            self.run_statements(sources)
            return
        offsets, position = [], 0
        for source in sources:
            first = source.split("\n", 1)[0]
            found = text.find(first, position) if first else -1
            if found >= 0:
                position = found + len(first)
            offsets.append(text.count("\n", 0, found if found >= 0 else position))
        for source, offset in zip(sources, offsets):
            if not self.run_statement(source, offset):
                break

    def run_statements(self, sources):
        """Run statements in turn; stop at Ctrl-C, go on after errors (as Python's REPL)."""
        for source in sources:
            if not self.run_statement(source):
                break

    def run_statement(self, statement, line_offset=None):
        """Run one statement, echoing its value; record it for :save.  False if interrupted.
        line_offset: the statement's first line in a pasted input (its errors then show their
        position in that input); None for a statement typed alone."""
        self.stream.take()
        error = None
        try:
            with self.recording, autograd.observing(pass_observer=self.tracer):
                value = self.session.run(statement, echo=True, filename="<stdin>",
                                         timeout=self.timeout)
            if value is not None:  # `_`: the last value echoed, as Python's REPL keeps it
                self.namespace["_"] = value
        except KeyboardInterrupt:
            self.stream.take()
            self.transcript.interrupted += 1
            self._interrupted()
            return False
        except (Exception, RecursionError, MemoryError) as e:
            error = self.show_error(e, statement, line_offset)
        finally:
            self._prune_recording()
        output = self.stream.take()
        if error is not None:  # as the piped REPL prints it: no hint
            output += "\n".join(error.text_lines()) + "\n"
        self.transcript.add(statement, output)
        return True

    def _interrupted(self):
        self.renderer.text("KeyboardInterrupt", "bold red")

    def run_habit(self, kind, text):
        """A Python REPL habit typed as a whole line (see python_habit); False to exit."""
        if kind == "exit":
            return False
        try:
            value = self.session.eval(text, self.timeout)
        except KeyboardInterrupt:
            self._interrupted()
            return True
        except (Exception, RecursionError, MemoryError) as e:
            self.show_error(e, text)
            return True
        if kind == "type":
            self.renderer.text(type_text(value))
        elif kind == "dir":
            self.renderer.text(repr(public_names(value)))
        else:
            self.renderer.text(describe(value, text))
        return True

    def _prune_recording(self):
        """Keep records only for nodes still reachable from a tensor in scope."""
        from ..analysis.trace import reachable_nodes
        roots = [v.grad_fn for v in self.namespace.values()
                 if isinstance(v, Tensor) and v.grad_fn is not None]
        live = set(reachable_nodes(roots))
        self.recording.records = {n: r for n, r in self.recording.records.items() if n in live}
        # of the traced backward passes, the last one from each tensor still in scope
        in_scope = [v for v in self.namespace.values() if isinstance(v, Tensor)]
        kept, seen = [], []
        for roots, steps in reversed(self.tracer.passes):
            if any(r is v for r in roots for v in in_scope) and \
                    not any(r is s for r in roots for s in seen):
                kept.append((roots, steps))
                seen.extend(roots)
        self.tracer.passes = kept[::-1]

    def show_error(self, exc, source, line_offset=None):
        """`Type: message` (a caret under syntax errors) and a `hint:` line; returns the info."""
        from ..render.hints import hint_for
        from .reporting import error_info
        self.stream.flush()
        info = error_info(exc, source) if not isinstance(exc, ErrorInfo) else exc
        lines = source.split("\n")
        failing = getattr(exc, "hint_source", None) or (
            lines[info.line - 1] if info.line and 0 < info.line <= len(lines) else source)
        earlier = [st.source for st in self.transcript.sessions[-1].statements]
        program = "\n".join(earlier + [source])
        hint_line = None if getattr(exc, "hint_source", None) or not info.line else \
            len("\n".join(earlier).splitlines()) + info.line
        try:
            info.hint = hint_for(info.type, info.message, failing, self.namespace,
                                 column=None if getattr(exc, "hint_source", None) else info.column,
                                 program=program, line=hint_line)
        except Exception:
            info.hint = None
        # an error in a statement of several lines, or in a paste, shows its position in that
        # input and a caret too (SPEC §2); the transcript keeps the piped REPL's line alone
        shown = info
        multi_line = "\n" in source.strip() or line_offset is not None
        if info.line is not None and multi_line and not isinstance(exc, meta.MetaError):
            shown = info.replace(located=True, line=info.line + (line_offset or 0))
        self.renderer.error(shown)  # (with the hint)
        return info


    # ------------------------------------------------------------------ for the frontend
    def state(self):
        """What the frontend shows between statements: grad mode and dtype (the toolbar) and
        the names the program holds (said when a crash loses them)."""
        return {"grad": bool(GradMode.enabled), "dtype": dtypes.get_default_dtype().name,
                "names": sorted(n for n in self.namespace
                                if not n.startswith("__") and n != "_"
                                and n not in self.initial_names)}

    def complete(self, text, cursor):
        from .completer import MAX_CANDIDATES, complete
        return [[c.text, c.start, c.meta]
                for c in complete(text, cursor, self.namespace, meta.COMMANDS)[:MAX_CANDIDATES]]


# ---------------------------------------------------------------------- Python habits

import re

_HABITS = [("exit", re.compile(r"(?:exit|quit)(?:\(\s*\))?$")),
           ("help", re.compile(r"help\((.+)\)$", re.S)),
           ("help", re.compile(r"([^?]+?)\?$", re.S)),
           ("type", re.compile(r"type\((.+)\)$", re.S)),
           ("dir", re.compile(r"dir\((.+)\)$", re.S))]


def python_habit(text, namespace):
    """(kind, expression text) for a whole line that is a Python REPL habit the language does
    not run itself: `exit`, `quit()`, `help(x)`, `x?`, `type(x)`, `dir(x)`; None otherwise
    (or when the program bound that name itself)."""
    for kind, pattern in _HABITS:
        m = pattern.match(text)
        if m is None:
            continue
        if not text.endswith("?") and text.split("(")[0].strip() in namespace:
            return None  # (the program's own help, type, dir, exit; `x?` means nothing else)
        return kind, (m.group(1).strip() if m.groups() else "")
    return None


def type_text(value):
    """type(value) as PyTorch's Python prints it."""
    from ..lang.namespace import Facade
    if isinstance(value, Tensor):
        return "<class 'torch.Tensor'>"
    if isinstance(value, Facade):
        return "<class 'module'>"
    cls = type(value)
    module = cls.__module__
    if module == "builtins":
        return f"<class '{cls.__name__}'>"
    if module.startswith("gradcli"):
        module = "torch" + module[len("gradcli"):].split(".engine")[0].split(".ops")[0]
    return f"<class '{module}.{cls.__name__}'>"


def public_names(value):
    """dir(value) as a program may use it: the public names it can reach."""
    from .completer import _public_attributes
    from ..lang.namespace import Facade
    if isinstance(value, Facade):
        return sorted(n for n in value._members if not n.startswith("_"))
    return _public_attributes(value)


def describe(value, text):
    """help(value) / value?: an op's signature, doc and derivative; a tensor's shape, dtype and
    autograd state; else the value's type and its public names."""
    from ..analysis.evaluate import UsageError
    from ..analysis.optable import op_rows
    from ..lang.namespace import Facade
    from ..render.values import short_value
    if isinstance(value, Tensor):
        grad_fn = value.grad_fn.name() if value.grad_fn is not None else None
        lines = [f"{text}: Tensor of shape {list(value._data.shape)}, {value.dtype}",
                 f"  value: {short_value(value)}",
                 f"  requires_grad={value.requires_grad}, is_leaf={value.is_leaf}, "
                 f"grad_fn={grad_fn}",
                 f"  grad: {short_value(value._grad) if value._grad is not None else None}",
                 "  dir(" + text + ") lists its methods; :vars, :graph and :why tell more"]
        return "\n".join(lines)
    if isinstance(value, Facade):
        names = public_names(value)
        return f"module {value._name if hasattr(value, '_name') else text}: " + ", ".join(names)
    name = text.rsplit(".", 1)[-1]
    if callable(value):
        try:
            rows = op_rows(name)
        except UsageError:
            rows = []
        if rows:
            out = []
            for r in rows:
                out += [r["signature"], f"  {r['doc']}"]
                if r["formula"]:
                    out.append(f"  derivative: {r['formula']}")
                if r["grad_fn"]:
                    out.append(f"  grad_fn: {r['grad_fn']}")
            return "\n".join(out)
        doc = (getattr(value, "__doc__", None) or "").strip().split("\n")[0]
        return f"{name}: {doc or 'a function'}"
    return f"{text}: {type_text(value)} {short_value(value) if not isinstance(value, str) else repr(value)}"


# ---------------------------------------------------------------------- pastes

_DOCTEST = re.compile(r"\s*>>>(?: |$)")


def doctest_statements(text):
    """The statements of pasted doctest text (`>>> ` and `... ` prompts stripped, expected
    output left out), or None when text is not doctest text."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    if not _DOCTEST.match(first):
        return None
    statements, current = [], None
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(">>> ") or stripped == ">>>":
            if current is not None:
                statements.append(current)
            current = [stripped[4:]]
        elif current is not None and (stripped.startswith("... ") or stripped == "..."):
            current.append(stripped[4:])
        elif current is not None:  # expected output: the statement is over
            statements.append(current)
            current = None
    if current is not None:
        statements.append(current)
    sources = []
    for lines_ in statements:
        while len(lines_) > 1 and not lines_[-1].strip():
            lines_.pop()
        source = "\n".join(lines_)
        if source.strip():
            sources.append(source)
    return sources


def bridge_blank_lines(text):
    """A paste's blank lines inside an indented block (followed by a more indented line, not
    inside a bracket or string) as comment lines at the next line's indentation, so that the
    block runs as one unit (IPython and ptpython do so); line numbers are kept."""
    lines = text.split("\n")
    if len(lines) < 3 or not any(not line.strip() for line in lines):
        return text
    from ..lang.console import _open_bracket_or_string
    out = []
    for i, line in enumerate(lines):
        if not line.strip() and out:
            following = next((n for n in lines[i + 1:] if n.strip()), None)
            if following is not None and following[0] in " \t" and \
                    not _open_bracket_or_string("\n".join(out)):
                out.append(following[:len(following) - len(following.lstrip())] + "#")
                continue
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------------- the request loop

def _requests(fd):
    """The frontend's requests: JSON documents, one a line, until the pipe closes."""
    import json
    import os
    buffer = b""
    while True:
        while b"\n" not in buffer:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def _handle(core, message, timeout):
    op = message.get("op")
    if isinstance(message.get("columns"), int):
        core.columns = message["columns"]
    if op == "execute":        # a line or block typed at the prompt, or a meta-command
        return core.execute(str(message.get("text", "")))
    if op == "statements":     # :load's statements, or a pasted transcript's
        core.run_statements([str(s) for s in message.get("sources", [])])
        return True
    if op == "run":            # the piped REPL: one statement, as Python's interpreter runs it
        from ..lang.console import run_statement
        source = str(message.get("source", ""))
        habit = python_habit(source.strip(), core.namespace)
        if habit is not None and habit[0] == "exit":  # exit, quit(): the input is over
            return False
        run_statement(core.session, source, core.stream, timeout)
        core.stream.take()
        return True
    if op == "complete":
        return core.complete(str(message.get("text", "")), int(message.get("cursor", 0)))
    if op == "transcript":
        return core.transcript.to_json()
    if op == "interrupted":    # the frontend ended a statement the evaluator would not stop
        core.transcript.interrupted += 1
        return True
    return None


def serve(channel, requests_fd, core_factory, timeout=None):
    """The evaluator's loop: answer each request with {"r": {"value": ..., "state": ...}}.

    Ctrl-C (which the frontend forwards while it waits) interrupts a request only: one that
    comes while the session starts, while no request runs (before the evaluator has read the
    one sent, or after it answered the one interrupted) or while the answer is written is
    dropped, as between statements, rather than end the evaluator with its session or cut an
    answer in two.  (Each switch of the handler is the first call of its block: a Ctrl-C due
    before it runs the handler set by it.)"""
    import signal
    from ..kernel.child import dropped
    signal.signal(signal.SIGINT, dropped)
    core = core_factory()
    core.timeout = timeout
    for message in _requests(requests_fd):
        try:
            try:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                value = _handle(core, message, timeout)
            finally:
                signal.signal(signal.SIGINT, dropped)
        except KeyboardInterrupt:  # (between statements: the request is simply over)
            signal.signal(signal.SIGINT, dropped)
            core.stream.take()
            value = None
        core.stream.flush()
        sys.stdout.flush()
        channel.send({"r": {"value": value, "state": core.state()}})
    return 0


# ---------------------------------------------------------------------- the piped REPL

def program_names(names):
    """The names an evaluator reported (untrusted data): identifiers only, so that nothing
    else reaches the terminal."""
    return [n for n in names if isinstance(n, str) and n.isidentifier()][:1000] \
        if isinstance(names, list) else []


class PipedSession:
    """`gradcli repl` with standard input not a terminal: statements are read and grouped in
    the frontend and run one by one in an evaluator, as Python's interactive interpreter runs
    them.  An evaluator that crashes (or overruns --timeout, or ignores Ctrl-C) is one line;
    a fresh one goes on with the next statement, and a line names what was lost."""

    def __init__(self, out, timeout=None):
        self.out = out
        self.timeout = timeout
        self.names = []
        self.evaluator = None
        self._start()

    def _start(self):
        from ..kernel.process import Evaluator

        def core():
            core = ReplCore(sys.stdout, False)
            # (its standard error is its standard output, which must stay PyTorch's: no note
            # that torch.save keeps its files in memory)
            core.session.store.note = None
            return core

        self.evaluator = Evaluator(lambda channel, fd: serve(channel, fd, core, self.timeout),
                                   requests=True, out=self.out, err=self.out)

    def run(self, source):
        """Run one statement; False when it ended the session (exit, quit())."""
        from ..kernel.process import EvaluatorGone
        try:
            answer = self.evaluator.request({"op": "run", "source": source}, self.timeout)
        except EvaluatorGone as e:
            self.evaluator.kill()
            lines = ErrorInfo(e.type_name, e.message).text_lines()
            lost = program_names(self.names)
            lines.append("gradcli: a new session started" +
                         (f"; lost: {', '.join(lost)}" if lost else ""))
            self.out.write("\n".join(lines) + "\n")
            self.out.flush()
            self.names = []
            self._start()
            return
        state = answer.get("state") if isinstance(answer, dict) else None
        if isinstance(state, dict):
            self.names = program_names(state.get("names"))
        return not (isinstance(answer, dict) and answer.get("value") is False)

    def close(self):
        self.evaluator.kill()


def run_piped_in_evaluator(stdin, stdout, timeout=None) -> int:
    """The piped REPL (see PipedSession); returns 0 at the end of input."""
    from ..lang.console import TooLong, lines_of
    from ..lang.parser import is_complete
    from ..lang.source import MAX_SOURCE
    piped = PipedSession(stdout, timeout)
    try:
        for source in statements(lines_of(stdin), is_complete, MAX_SOURCE):
            if isinstance(source, TooLong):  # (not kept: the frontend reads it no further)
                stdout.write("\n".join(source.error().format()) + "\n")
                stdout.flush()
                continue
            if piped.run(source) is False:
                break
    finally:
        piped.close()
    return 0
