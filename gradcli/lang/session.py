"""The evaluation API shared by the CLI, both REPLs and the tests: a Session holds a program
namespace that persists across runs, runs sources in it, and reports errors as ProgramError."""

import contextlib
import re
import itertools
import signal
import sys
import warnings

import numpy as np

from ..engine.printing import budgeted
from ..serialization import CURRENT as CURRENT_STORE, Store
from ..engine.pyversion import instruction_column
from . import limits, parser
from .syntax import parse_expression, parse_module
from .compiler import compile_expression, compile_program
from .errors import ProgramError, from_exception
from .generators import unraisable
from .sandbox import program_builtins
from .classes import public_members


# (a list's text: its tensors' texts metered as one, printing.TextBudget)
_PRINT, _REPR = budgeted(print), budgeted(repr)


def shown(value):
    """value, or what prints as PyTorch and Python print it where the object a program holds
    would print otherwise: a method of Tensor (`<built-in method sin of Tensor object at
    0x...>`: gradcli.ops.reprs), the program's print (`<built-in function print>`)."""
    if not callable(value) or isinstance(value, type):
        return value
    from ..ops.reprs import Shown, printable
    if getattr(value, "__func__", None) is Session._print:
        return Shown("<built-in function print>")
    return printable(value)


class ProgramTimeout(BaseException):
    """Raised by the alarm when a program runs out of time (a BaseException, so that no
    `except Exception` in the engine swallows it)."""


class Session:
    """One program namespace: `torch` is not imported until the program imports it, but the op
    table's names and pi, e, inf, nan are always there (and may be shadowed).

    out: where print(), echoed values and `UserWarning: ...` lines go (default sys.stdout).
    warnings_to: where warnings go instead, as Python shows them (`file:line: UserWarning:
    ...`), when given: `gradcli run` writes them to stderr, as python writes a program's.
    namespace: the program's global names (its only other key is `__builtins__`).
    last_name: the program's default output, for `gradcli eval`: the last name assigned or, if
    the program ends with an expression statement of non-None value, that expression's text
    (value_of() gives its value).  assigned: the names the last run assigned, in order."""

    _runs = itertools.count(1)

    def __init__(self, out=None, warnings_to=None):
        self.out = out if out is not None else sys.stdout
        self.warnings_to = warnings_to
        self.namespace = {"__builtins__": program_builtins(self._print, self._expression,
                                                           self._import_star)}
        self.last_name = None
        self.last_value = None
        self.assigned = []
        self._echo = False
        self._values = {}
        self._sources = {}
        self.store = Store(_note)   # torch.save's files (gradcli.serialization)

    # ------------------------------------------------------------------ running
    def run(self, source, *, echo=False, timeout=None, filename="<program>"):
        """Run a whole program.  echo=True prints each expression statement's non-None value
        with repr, as Python's interactive mode does.  Returns the value of the last top-level
        expression statement (or None).  Raises ProgramError; a KeyboardInterrupt (Ctrl-C)
        propagates after the session is restored.  The timeout (seconds) covers parsing too."""
        code_name = f"{filename}:{next(self._runs)}"
        compiled = []

        def compile_and_run():
            program = compile_program(parse_module(source), echo, code_name, source)
            self._sources[code_name] = source.split("\n")
            compiled.append(program)
            with limits.program_recursion():
                exec(program.code, self.namespace)

        self._echo, self._values = echo, {}
        try:
            self._execute(compile_and_run, timeout)
            return self._note_outputs(compiled[0])
        finally:
            self._values = {}

    def eval(self, text, timeout=None):
        """The value of one expression (a --at value, an --expect value, the REPL's `x?` and
        `:graph EXPR`), stopped after `timeout` seconds as a statement is."""
        return self.call(lambda: eval(compile_expression(parse_expression(text.strip())),
                                      self.namespace), timeout)

    def call(self, function, timeout=None):
        """function() run as the program's statements run, for what runs the program's code
        outside them (an expression; the backward pass that the REPL's :graph and :explain
        trace, which calls the program's hooks and Functions): stopped after `timeout`
        seconds, within the program's recursion budget, its errors the program's."""
        def run():
            with limits.program_recursion():
                return function()
        return self._execute(run, timeout)

    def is_complete(self, source):
        """False when source ends where more input is expected (a REPL then reads on)."""
        return parser.is_complete(source)

    def value_of(self, name):
        """The value of a name of the namespace, or of the last expression (see last_name)."""
        if name in self.namespace:
            return self.namespace[name]
        if name == self.last_name:
            return self.last_value
        raise KeyError(name)

    def current_line(self):
        """The line of the program running now (None when none is)."""
        frame = next(self._program_frames(sys._getframe(1)), None)
        return None if frame is None else frame.f_lineno

    # ------------------------------------------------------------------ internals
    def _execute(self, action, timeout):
        from ..engine.graph import AnomalyMode
        from ..engine.tangents import Unbatchable
        previous_location, previous_store = AnomalyMode.location, CURRENT_STORE[0]
        previous_hook = sys.unraisablehook
        AnomalyMode.location = self._describe_location
        CURRENT_STORE[0] = self.store
        sys.unraisablehook = unraisable(previous_hook)
        try:
            # NumPy's floating-point warnings (divide by zero, overflow, invalid value) never reach
            # the user: PyTorch computes inf and nan silently
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                # the warnings the interactive interpreter shows (UserWarning, FutureWarning and a
                # DeprecationWarning attributed to the program's own line: its frames have no
                # __name__ global, so Python names their module "<string>"), each time, as
                # the shared transcripts show them
                warnings.simplefilter("always", UserWarning)
                warnings.simplefilter("always", FutureWarning)
                warnings.filterwarnings("always", category=DeprecationWarning, module="<string>")
                warnings.showwarning = self._show_warning
                with _alarm(timeout):
                    return action()
        except ProgramTimeout:
            raise ProgramError("TimeoutError", f"program ran longer than {timeout:g} s (raise "
                               f"the limit with --timeout)") from None
        except (ProgramError, Unbatchable):  # (a batched Jacobian falls back column by column)
            raise
        except Exception as e:
            raise self._error(e) from None
        finally:
            AnomalyMode.location = previous_location
            CURRENT_STORE[0] = previous_store
            sys.unraisablehook = previous_hook

    def _error(self, exc):
        """The program's error (see _located_error); converting an error never raises."""
        try:
            return self._located_error(exc)
        except Exception:
            return from_exception(exc)

    def _note_outputs(self, program):
        """Record the run's assigned names and default output; return its last value."""
        self.assigned = list(dict.fromkeys(what for kind, what in program.outputs
                                           if kind == "name"))
        for index in reversed(range(len(program.outputs))):
            kind, what = program.outputs[index]
            if kind == "name" and what in self.namespace:
                self.last_name = what
                break
            if kind == "expr" and self._values.get(index) is not None:
                self.last_name, self.last_value = what, self._values[index]
                break
        return self._values[max(self._values)] if self._values else None

    def _expression(self, index, value):
        if index is not None:
            self._values[index] = value
        if self._echo and value is not None:
            self.out.write(_REPR(shown(value)) + "\n")

    def _print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:  # (print would call the object's write and flush, unchecked)
            raise TypeError("print(file=...) is not supported in gradcli programs")
        _PRINT(*map(shown, args), sep=sep, end=end, file=self.out, flush=flush)

    def _import_star(self, module):
        self.namespace.update(public_members(module))

    def _show_warning(self, message, category, filename, lineno, file=None, line=None):
        if self.warnings_to is None:
            self.out.write(f"{category.__name__}: {message}\n")
            return
        frame = next(self._program_frames(sys._getframe(1)), None)
        where = "" if frame is None else \
            f"{frame.f_code.co_filename.rpartition(':')[0]}:{frame.f_lineno}: "
        self.out.flush()
        self.warnings_to.write(f"{where}{category.__name__}: {message}\n")
        self.warnings_to.flush()

    def _program_frames(self, frame):
        while frame is not None:
            if frame.f_globals is self.namespace:
                yield frame
            frame = frame.f_back

    def _describe_location(self):
        """The program's stack (for anomaly detection), innermost call last, as Python's
        traceback prints it: with each line's text, except for code read from standard input
        (Python has no source for `<stdin>`)."""
        lines = []
        for frame in reversed(list(self._program_frames(sys._getframe(1)))):
            code = frame.f_code
            where = code.co_filename.rpartition(":")[0]
            source = self._sources.get(code.co_filename, []) if where != "<stdin>" else []
            text = source[frame.f_lineno - 1].strip() if frame.f_lineno <= len(source) else ""
            lines.append(f'  File "{where}", line {frame.f_lineno}, in {code.co_name}\n'
                         + (f'    {text}\n' if text else ""))
        return "".join(lines)

    def _located_error(self, exc):
        """A ProgramError located at the innermost program frame of the traceback."""
        line = column = None
        source_line = None
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_globals is self.namespace:
                line, column = tb.tb_lineno, instruction_column(frame.f_code, tb.tb_lasti)
                source = self._sources.get(frame.f_code.co_filename, [])
                source_line = source[line - 1] if line and line <= len(source) else None
                if column is None:
                    column = _name_column(exc, source_line)
            tb = tb.tb_next
        error = from_exception(exc, line, column)
        error.source_line = source_line
        return error


def _note(text):
    """A note of the session's (not the program's output): on standard error."""
    sys.stderr.write(text + "\n")


def _name_column(exc, source_line):
    """The column of an unknown name (a NameError) where the code has no column table
    (Python 3.10): the name's place in the line, if it stands there once as a name."""
    name = getattr(exc, "name", None) if isinstance(exc, NameError) else None
    if not name or source_line is None:
        return None
    found = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", source_line)]
    return found[0] + 1 if len(found) == 1 else None


MAX_ALARM = 2 ** 31  # seconds: setitimer's limit (time_t) on every platform
RETRY = 0.05   # seconds between the alarms that follow a timeout, until the program has ended


@contextlib.contextmanager
def _alarm(seconds):
    """Raise ProgramTimeout in the main thread after `seconds` (SIGALRM), and again every RETRY
    seconds until the program has ended (a finally block may be running an endless loop); from
    then on a program's `except` catches nothing (limits.Stopping)."""
    if not seconds or seconds > MAX_ALARM:  # (a longer one is no limit at all)
        yield
        return
    import threading  # (only with a time limit: not every start-up)
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal,
                                                                                 "setitimer"):
        raise ProgramError("ValueError", "a timeout needs the main thread of a POSIX system")

    def on_alarm(signum, frame):
        limits.Stopping.exception = ProgramTimeout
        raise ProgramTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, RETRY)
    try:
        yield
    finally:
        while True:
            try:  # (an alarm may come before the timer is off: it has done its work)
                signal.setitimer(signal.ITIMER_REAL, 0)
                break
            except ProgramTimeout:
                continue
        signal.signal(signal.SIGALRM, previous)
        limits.Stopping.exception = None
