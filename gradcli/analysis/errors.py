"""The error of a bad option value, raised by the frontends and by the analyses alike (this
module imports nothing: the frontend of a one-shot command runs without the engine)."""


class UsageError(Exception):
    """A bad option value (exit code 2, reported as `UsageError: message`)."""

    type_name = "UsageError"
