"""The interactive REPL: a prompt-toolkit PromptSession over one language Session.

Enter runs the input when the parser says it is complete (a compound statement ends at an empty
line) and continues it otherwise; a pasted snippet runs statement by statement, as Python's
interactive interpreter runs it.  Results are echoed as PyTorch prints them; errors as
`Type: message` plus a `hint:` line, never a traceback.  prompt-toolkit is imported here only,
so that other commands never load it."""

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

from ..lang.console import StatementReader, is_compound
from ..lang.parser import is_complete as source_is_complete
from ..render.console import ErrorInfo, Renderer
from . import meta
from .completer import MAX_CANDIDATES, Candidate, ReplCompleter, complete
from .history import history_warning, open_history
from .lexer import ReplLexer
from .replcore import ReplCore, _default_session, program_names, split_statements  # noqa: F401
from .toolbar import toolbar_fragments

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

def input_is_ready(text, is_complete):
    """Should Enter run `text` (True) or start a continuation line (False)?  The statements
    are grouped as the piped REPL groups them (StatementReader: linear in the text, parsing
    only short statements), not by parsing the whole text at every Enter."""
    if not text.strip() or text.lstrip().startswith(":"):
        return True
    lines = text.split("\n")
    blank_end = len(lines) > 1 and not lines[-1].strip()
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    reader = StatementReader(is_complete)
    try:
        for line in lines:
            reader.add(line)
        if blank_end:
            # an empty line ends a compound statement (even an unfinished one, which then
            # reports its error as Python does); inside an open bracket or string it is just
            # a line
            return is_compound(text) or reader.complete()
    except Exception:  # (the session reports what its parser could not take)
        return True
    # a compound statement waits for its empty line
    return not reader.pending


# ---------------------------------------------------------------------- the REPL

class FrontendRenderer(Renderer):
    """The REPL frontend's own lines (its errors, :save's note), which quote what the user typed
    (a file name) and what the system said of it: through terminal_safe, as an evaluator's
    output is, so that no escape sequence in them reaches the terminal (colours are the
    renderer's own)."""

    def text(self, text, style=None, highlights=(), ansi=False):
        from ..kernel.bounds import terminal_safe
        super().text(terminal_safe(text), style, highlights, ansi)

    def error(self, info):
        from ..kernel.bounds import terminal_safe
        super().error(info.replace(**{
            name: terminal_safe(getattr(info, name))
            for name in ("type", "message", "source_line", "hint", "filename")
            if isinstance(getattr(info, name), str)}))


def use_color(no_color, out):
    return not (no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb"
                or not getattr(out, "isatty", lambda: False)())


class Repl:
    """The interactive REPL's frontend: the prompt, its history, key bindings, completion and
    toolbar, and the user's files (:load, :save).  The session lives in an evaluator process
    (gradcli.kernel) behind the operating system's wall, which runs what is typed and answers
    completion and the meta-commands that read the session (gradcli.cli.replcore).  An
    evaluator that crashes is replaced by a fresh one, and the REPL says which names were
    lost."""

    def __init__(self, out=None, color=None, input=None, output=None, history_file=None,
                 session_factory=None, timeout=None):
        self.out = out or sys.stdout
        self.color = use_color(False, self.out) if color is None else color
        self.unicode = (getattr(self.out, "encoding", None) or "").lower().startswith("utf")
        self.renderer = FrontendRenderer("rich" if self.color else "plain", out=self.out,
                                         err=self.out)
        self.session_factory = session_factory or _default_session
        self.timeout = timeout
        self.state = {"grad": True, "dtype": "float32", "names": []}
        self.evaluator = self.zygote = None
        self._start_evaluator()  # (and the zygote of every evaluator: before the history)
        self.history, self.history_note = open_history(history_file)
        self.prompt = PromptSession(
            message=[("class:prompt", ">>> ")],
            prompt_continuation=lambda width, line, soft: [("class:prompt.continuation",
                                                            "... ".rjust(width))],
            multiline=True, key_bindings=self._key_bindings(),
            lexer=ReplLexer() if self.color else None,
            completer=ReplCompleter(self.complete),
            complete_while_typing=False, auto_suggest=AutoSuggestFromHistory(),
            history=self.history, bottom_toolbar=self._toolbar, style=STYLE,
            enable_history_search=True,  # Up with a prefix typed: the history lines it starts
            color_depth=None if self.color else ColorDepth.MONOCHROME,
            include_default_pygments_style=self.color, search_ignore_case=True,
            input=input, output=output, tempfile_suffix=".py")

    # ------------------------------------------------------------------ the evaluator
    def _start_evaluator(self):
        from ..kernel.process import Evaluator
        from .replcore import serve
        color, unicode, factory = self.color, self.unicode, self.session_factory

        def core():
            return ReplCore(sys.stdout, color, factory, unicode)

        def task(channel, fd):
            return serve(channel, fd, core, self.timeout)

        if self.zygote is None:
            # every evaluator is forked from this clean copy of the frontend, made before it
            # reads the history: a replacement holds no more of the user's than the first
            from ..kernel.zygote import Zygote
            self.zygote = Zygote(task, requests=True)
        self.evaluator = Evaluator(task, requests=True, out=self.out, err=self.out,
                                   on_unanswered=self._unanswered, zygote=self.zygote)
        self._ask({"op": "transcript"})  # (the evaluator's first answer: its state)

    def _unanswered(self):
        self.renderer.text("the session does not answer Ctrl-C: press Ctrl-C again to end it "
                           "(its names are lost)", "yellow" if self.color else None)

    def _ask(self, message):
        """A request to the evaluator; its answer's value.  An evaluator that dies (or is
        ended) is reported in one line and replaced; the answer is then None."""
        from ..kernel.process import EvaluatorGone
        message = dict(message, columns=self.width())
        try:
            answer = self.evaluator.request(message, self.timeout)
        except EvaluatorGone as e:
            self._replace(e)
            return None
        if isinstance(answer, dict):
            state = answer.get("state")
            if isinstance(state, dict):
                self.state = {"grad": state.get("grad") is not False,
                              "dtype": state.get("dtype") if state.get("dtype") in
                              ("float32", "float64", "float16", "bfloat16") else "float32",
                              "names": program_names(state.get("names"))}
            return answer.get("value")
        return None

    def _replace(self, gone):
        """The evaluator is gone: say why and what was lost, start a fresh session."""
        lost = program_names(self.state.get("names"))
        self.renderer.error(ErrorInfo(gone.type_name, "the session was ended"
                                      if gone.kind == "interrupt" else gone.message))
        self.evaluator.kill()
        self._start_evaluator()
        self.renderer.text("a new session started" + (f"; lost: {', '.join(lost)}" if lost
                                                      else ""),
                           "yellow" if self.color else None)

    def close(self):
        """End the evaluator (the REPL is over); its transcript stays readable."""
        if self.evaluator is not None and self.evaluator.status is None:
            self._final_transcript = self.transcript
            self.evaluator.kill()
        if self.zygote is not None:
            self.zygote.close()

    # ------------------------------------------------------------------ what the prompt asks
    def width(self):
        """The terminal's width in columns (80 when it cannot be told)."""
        if self.color:
            return self.renderer.console.width
        import shutil
        return shutil.get_terminal_size((80, 24)).columns

    def is_complete(self, source):
        return source_is_complete(source)

    def complete(self, text, cursor):
        """Completions: a file argument of :load/:save from the user's files (here), all else
        from the session (the evaluator)."""
        before = text[:cursor].lstrip()
        if before.startswith(":"):
            name, space, _ = before.partition(" ")
            command = meta.COMMANDS.get(name)
            if space and command is not None and command.argument == "file":
                return complete(text, cursor, {}, meta.COMMANDS)
        found = self._ask({"op": "complete", "text": text, "cursor": cursor})
        return completions_of(found, cursor)

    def _toolbar(self):
        from prompt_toolkit.application import get_app_or_none
        app = get_app_or_none()
        width = app.output.get_size().columns if app is not None else 80
        return toolbar_fragments(width, self.state.get("grad", True),
                                 self.state.get("dtype", "float32"))

    _final_transcript = None

    @property
    def transcript(self):
        """The session's transcript (for :save), from the evaluator."""
        if self._final_transcript is not None:
            return self._final_transcript
        data = self._ask({"op": "transcript"})
        return meta.Transcript.from_json(data) if isinstance(data, dict) else meta.Transcript()

    # ------------------------------------------------------------------ running input
    def execute(self, text):
        """Run one accepted input (code or a meta-command); False when the REPL should exit."""
        if not text.strip():
            return True
        if text.lstrip().startswith(":"):
            name = text.strip().partition(" ")[0]
            command = meta.COMMANDS.get(name)
            if command is not None and command.frontend:
                try:
                    return meta.dispatch(self, text.strip())
                except meta.MetaError as e:
                    self.show_error(e)
                return True
        return self._ask({"op": "execute", "text": text}) is not False

    def run_source(self, text):
        """Run program text statement by statement (:load of a program file)."""
        self.run_statements(split_statements(text.rstrip(), self.is_complete))

    def run_statements(self, sources):
        self._ask({"op": "statements", "sources": list(sources)})

    def run_statement(self, statement):
        self._ask({"op": "statements", "sources": [statement]})
        return True

    def show_error(self, exc):
        """A frontend error (a meta-command's): `Type: message`."""
        from .reporting import error_info
        self.renderer.error(error_info(exc) if not isinstance(exc, ErrorInfo) else exc)

    def _interrupted(self):
        self.renderer.text("KeyboardInterrupt", "bold red")

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
        try:
            return self._loop()
        finally:
            self.close()

    def _loop(self):
        self.banner()
        warned = False
        while True:
            try:
                text = self.prompt.prompt()
            except KeyboardInterrupt:  # (the line, or lines, typed so far are dropped)
                self._interrupted()  # as Python's REPL says it, before a new prompt
                continue
            except EOFError:
                break
            try:
                if not self.execute(text):
                    break
            except KeyboardInterrupt:
                self._interrupted()
            except Exception as e:  # a bug in the REPL itself still must not end the session
                self.show_error(e)
            note = history_warning(self.history)
            if note and not warned:
                warned = True
                self.renderer.text(f"{note}; history kept in memory only", "yellow")
        return 0


def completions_of(found, cursor):
    """The candidates in an evaluator's answer to a completion request (untrusted data): at
    most MAX_CANDIDATES of [text, start, meta] triples of strings of at most 200 characters and
    a start within the text before the cursor; anything else is left out."""
    if not isinstance(found, list):
        return []
    candidates = []
    for item in found[:MAX_CANDIDATES]:
        if isinstance(item, list) and len(item) == 3:
            text, start, meta_text = item
            if isinstance(text, str) and isinstance(meta_text, str) and type(start) is int \
                    and -cursor <= start <= 0 and len(text) <= 200:
                candidates.append(Candidate(text, start, meta_text[:200]))
    return candidates


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


def run_interactive(no_color: bool = False, timeout=None) -> int:
    """The `gradcli repl` command on a terminal."""
    repl = Repl(color=use_color(no_color, sys.stdout), timeout=timeout)
    return repl.loop()
