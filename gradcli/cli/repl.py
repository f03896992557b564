"""The interactive REPL: a prompt-toolkit PromptSession over one language Session.

Enter runs the input when the parser says it is complete (a compound statement ends at an empty
line) and continues it otherwise; a pasted snippet runs statement by statement, as Python's
interactive interpreter runs it.  Results are echoed as PyTorch prints them; errors as
`Type: message` plus a `hint:` line, never a traceback.  prompt-toolkit is imported here only,
so that other commands never load it."""

import contextlib
import os
import sys

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from ..engine import autograd, dtypes
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor
from ..lang.console import is_compound, statements
from ..render.console import ErrorInfo, Renderer
from . import meta
from .completer import ReplCompleter
from .history import history_warning, open_history
from .lexer import ReplLexer
from .toolbar import bottom_toolbar

STYLE = Style.from_dict({
    "prompt": "ansigreen bold", "prompt.continuation": "ansigreen",
    "meta.command": "ansicyan bold", "meta.argument": "ansiyellow",
    "bottom-toolbar": "noreverse bg:#303030 #d0d0d0", "toolbar": "",
    "toolbar.on": "ansigreen bold", "toolbar.off": "ansired bold", "toolbar.value": "ansicyan",
})


@Condition
def _at_indentation():
    """Tab indents (instead of completing) where only whitespace precedes the cursor."""
    line = get_app().current_buffer.document.current_line_before_cursor
    return not line.strip()


# ---------------------------------------------------------------------- statements

def split_statements(text, is_complete):
    """The statements of `text` as the piped REPL reads them (a simple statement ends where it
    is complete, a compound one at a blank or the next unindented line)."""
    return list(statements(text.split("\n"), is_complete))


def input_is_ready(text, is_complete):
    """Should Enter run `text` (True) or start a continuation line (False)?"""
    if not text.strip() or text.lstrip().startswith(":"):
        return True
    try:
        complete = is_complete(text)
    except Exception:
        complete = True
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1].strip():
        # an empty line ends a compound statement (even an unfinished one, which then reports
        # its error as Python does); inside an open bracket or string it is just a line
        return complete or is_compound(text)
    if not complete:
        return False
    found = split_statements(text, is_complete)
    return not (found and is_compound(found[-1]))


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


# ---------------------------------------------------------------------- the REPL

def _default_session(out):
    from ..analysis.evaluate import new_session
    return new_session(None, out)


def use_color(no_color, out):
    return not (no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb"
                or not getattr(out, "isatty", lambda: False)())


class Repl:
    """One interactive session: the language Session, its recording (for :graph/:explain),
    its transcript (for :save), and the prompt."""

    def __init__(self, out=None, color=None, input=None, output=None, history_file=None,
                 session_factory=None):
        self.out = out or sys.stdout
        self.color = use_color(False, self.out) if color is None else color
        self.unicode = (getattr(self.out, "encoding", None) or "").lower().startswith("utf")
        self.renderer = Renderer("rich" if self.color else "plain", out=self.out, err=self.out)
        self.stream = EchoStream(self.out, self.renderer.console if self.color else None)
        self.session_factory = session_factory or _default_session
        self.initial_dtype = dtypes.get_default_dtype()
        self.transcript = meta.Transcript()
        self._new_session()
        self.history, self.history_note = open_history(history_file)
        self.prompt = PromptSession(
            message=[("class:prompt", ">>> ")],
            prompt_continuation=lambda width, line, soft: [("class:prompt.continuation",
                                                            "... ".rjust(width))],
            multiline=True, key_bindings=self._key_bindings(),
            lexer=ReplLexer() if self.color else None,
            completer=ReplCompleter(lambda: self.namespace, meta.COMMANDS),
            complete_while_typing=False, auto_suggest=AutoSuggestFromHistory(),
            history=self.history, bottom_toolbar=bottom_toolbar, style=STYLE,
            color_depth=None if self.color else ColorDepth.MONOCHROME,
            include_default_pygments_style=self.color, search_ignore_case=True,
            input=input, output=output, tempfile_suffix=".py")

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
        if self.color:
            return self.renderer.console.width
        import shutil
        return shutil.get_terminal_size((80, 24)).columns

    def is_complete(self, source):
        return self.session.is_complete(source)

    def reset(self):
        dtypes.set_default_dtype(self.initial_dtype)
        GradMode.enabled = True
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
        """Run program text statement by statement, as the piped REPL reads it."""
        self.run_statements(split_statements(text.rstrip(), self.is_complete))

    def run_statements(self, sources):
        """Run statements in turn; stop at Ctrl-C, go on after errors (as Python's REPL)."""
        for source in sources:
            if not self.run_statement(source):
                break

    def run_statement(self, statement):
        """Run one statement, echoing its value; record it for :save.  False if interrupted."""
        self.stream.take()
        error = None
        try:
            with self.recording, autograd.observing(pass_observer=self.tracer):
                self.session.run(statement, echo=True, filename="<stdin>")
        except KeyboardInterrupt:
            self.stream.take()
            self.transcript.interrupted += 1
            self._interrupted()
            return False
        except (Exception, RecursionError, MemoryError) as e:
            error = self.show_error(e, statement)
        finally:
            self._prune_recording()
        output = self.stream.take()
        if error is not None:  # as the piped REPL prints it: no hint
            output += "\n".join(error.text_lines()) + "\n"
        self.transcript.add(statement, output)
        return True

    def _interrupted(self):
        self.renderer.text("KeyboardInterrupt", "bold red")

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

    def show_error(self, exc, source):
        """`Type: message` (a caret under syntax errors) and a `hint:` line; returns the info."""
        from ..render.hints import hint_for
        from .app import error_info
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
        self.renderer.error(info)  # (with the hint, in either mode)
        return info

    # ------------------------------------------------------------------ the prompt
    def _key_bindings(self):
        kb = KeyBindings()
        default_focused = has_focus(DEFAULT_BUFFER)

        @kb.add("enter", filter=default_focused)
        def _enter(event):
            buf = event.current_buffer
            state = buf.complete_state
            if state is not None and state.current_completion is not None:
                buf.apply_completion(state.current_completion)
                return
            self._enter(buf)

        @kb.add(Keys.BracketedPaste, filter=default_focused)
        def _paste(event):
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            buf = event.current_buffer
            if data.endswith("\n"):
                buf.insert_text(data[:-1])
                self._enter(buf)
            else:
                buf.insert_text(data)

        @kb.add("escape", "enter", filter=default_focused)
        def _newline(event):
            event.current_buffer.insert_text("\n")

        @kb.add("tab", filter=default_focused & _at_indentation)
        def _indent(event):
            event.current_buffer.insert_text("    ")

        return kb

    def _enter(self, buf):
        doc = buf.document
        multi_line = "\n" in doc.text
        if multi_line and not doc.is_cursor_at_the_end and doc.text[doc.cursor_position:].strip():
            buf.insert_text("\n" + _indent_after(doc.text_before_cursor))
            return
        if input_is_ready(doc.text, self.is_complete):
            buf.text = _strip_trailing_blank_lines(buf.text)
            buf.validate_and_handle()
        else:
            buf.insert_text("\n" + _indent_after(doc.text_before_cursor))

    def banner(self):
        from .. import __version__
        self.renderer.text(f"gradcli {__version__}: PyTorch autograd on NumPy. "
                           f":help for commands, Ctrl-D to exit.", "bold" if self.color else None)
        if self.history_note:
            self.renderer.text(self.history_note, "yellow")

    def loop(self):
        """Read, run, print until Ctrl-D or :quit; returns the exit status."""
        self.banner()
        warned = False
        while True:
            try:
                text = self.prompt.prompt()
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                if not self.execute(text):
                    break
            except KeyboardInterrupt:
                self._interrupted()
            except Exception as e:  # a bug in the REPL itself still must not end the session
                self.show_error(e, text)
            note = history_warning(self.history)
            if note and not warned:
                warned = True
                self.renderer.text(f"{note}; history kept in memory only", "yellow")
        return 0


def _indent_after(text):
    line = text.rsplit("\n", 1)[-1]
    indent = line[:len(line) - len(line.lstrip())]
    code = line.split("#", 1)[0].rstrip()
    return indent + "    " if code.endswith(":") else indent


def _strip_trailing_blank_lines(text):
    lines = text.split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def run_interactive(no_color: bool = False) -> int:
    """The `gradcli repl` command on a terminal."""
    repl = Repl(color=use_color(no_color, sys.stdout))
    return repl.loop()
