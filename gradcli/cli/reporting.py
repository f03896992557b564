"""Errors as the user sees them, for every frontend and the evaluator alike: exit codes,
`Type: message` with its position, and the `hint:` line on a terminal.  Imports neither typer
nor the engine (the frontend of a one-shot command runs without NumPy)."""

import enum


class Exit(enum.IntEnum):
    OK = 0
    FAILED = 1
    ERROR = 2


def error_info(exc, source=""):
    """An exception as ErrorInfo (first line of the message, position for syntax errors)."""
    from ..render.console import ErrorInfo
    kind = getattr(exc, "type_name", None) or type(exc).__name__
    message = getattr(exc, "message", None)
    if message is None:
        message = str(exc.args[0]) if exc.args else ""
    message = str(message).split("\n")[0]
    if kind == "MemoryError" and not message:
        message = "out of memory (raise the process limit with GRADCLI_MAX_MEMORY)"
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    source_line = getattr(exc, "source_line", None)
    if source_line is None and line is not None and source:
        lines = source.splitlines()
        if 0 < line <= len(lines):
            source_line = lines[line - 1]
    return ErrorInfo(kind, message, line, column, source_line)


class Reporting:
    """report(exc) for an object with renderer, source, filename, located, at and namespace
    (the frontend's Command, the evaluator's Task)."""

    def report(self, exc):
        """Show an exception as the user's error (with a hint on a terminal); False for one
        that is not the program's to report (SystemExit, typer.Exit)."""
        from ..render.console import ErrorInfo
        if isinstance(exc, KeyboardInterrupt):
            info = ErrorInfo("KeyboardInterrupt", "interrupted")
        elif isinstance(exc, Exception):
            info = error_info(exc, self.source)
        else:
            return False
        if self.renderer.wants_hints():
            info.hint = self._hint(exc, info)
        if self.renderer.mode != "json" and (self.located or self.renderer.wants_hints()) \
                and getattr(exc, "line", None) is not None:
            # the program's position, its line and a caret (SPEC §2: in run, on a terminal)
            info.located, info.filename = True, self.filename
        self.renderer.error(info)
        return True

    def _hint(self, exc, info):
        """The `hint:` line for an error (None when there is nothing useful to add)."""
        if info.type == "NameError" and self.at == []:
            # a calculator user's first program: `gradcli eval "x**2"` with no --at
            import re
            m = re.fullmatch(r"name '(\w+)' is not defined", info.message)
            if m and m.group(1) not in ("torch", "np", "numpy", "math", "F", "nn"):
                return f"bind it: --at {m.group(1)}=..."
        try:
            from ..render.hints import hint_for
            return hint_for(info.type, info.message, info.source_line or self._failing_line(exc),
                            getattr(exc, "hint_namespace", None) or self.namespace,
                            column=info.column, program=self.source, line=info.line,
                            output=getattr(exc, "hint_output", None))
        except Exception:  # a hint is a courtesy: it must never hide the error itself
            return None

    def _failing_line(self, exc):
        line = getattr(exc, "line", None)
        lines = self.source.splitlines()
        if line and 0 < line <= len(lines):
            return lines[line - 1]
        return lines[-1] if lines else ""
