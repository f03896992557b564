"""Entry point of the `gradcli` script: no arguments on a terminal opens the REPL; otherwise the
typer app.  Kept tiny so that start-up imports only what the chosen command needs."""

import os
import signal
import sys

CLOSED_STDOUT = "OSError: standard output is closed"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        argv = ["repl"]
    # `gradcli … | head`: a reader that goes away ends the process quietly, as it ends cat or
    # grep, instead of a BrokenPipeError at the next write
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.stdout is None or sys.stdout.closed:  # started with `>&-`
        if sys.stderr is not None and not sys.stderr.closed:
            print(CLOSED_STDOUT, file=sys.stderr)
        return 2
    if sys.stdin is None:  # started with `<&-`: read end of input at once
        sys.stdin = open(os.devnull, encoding="utf-8")
    from .app import run_app
    return run_app(argv)


if __name__ == "__main__":
    sys.exit(main())
