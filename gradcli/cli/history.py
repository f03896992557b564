"""REPL history in the user's state directory, degrading to memory when the file cannot be used."""

import os
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory


def history_path(environ=None):
    """`$XDG_STATE_HOME/gradcli/history`, by default `~/.local/state/gradcli/history`."""
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME")
    base = Path(state) if state and os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "gradcli" / "history"


class SafeFileHistory(FileHistory):
    """A FileHistory that never breaks the prompt: an unreadable (corrupt, binary, missing
    permission) file loads as empty, and a failed write switches to in-memory history."""

    def __init__(self, filename):
        super().__init__(str(filename))
        self.failed = None

    def load_history_strings(self):
        try:
            yield from list(super().load_history_strings())
        except (OSError, ValueError) as e:
            self.failed = f"cannot read {self.filename}: {e}"

    def store_string(self, string):
        if self.failed:
            return
        try:
            super().store_string(string)
        except (OSError, ValueError) as e:
            self.failed = f"cannot write {self.filename}: {e}"


def open_history(path=None):
    """(history, warning): the file history, or in-memory history and the reason why."""
    path = Path(path) if path is not None else history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as e:
        return InMemoryHistory(), f"history kept in memory only: cannot write {path} " \
                                  f"({e.strerror or e})"
    return SafeFileHistory(path), None


def history_warning(history: History):
    """The reason a file history stopped working, once it has (else None)."""
    return getattr(history, "failed", None)
