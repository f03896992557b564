"""Entry point of the `gradcli` script: no arguments on a terminal opens the REPL; otherwise the
typer app.  Kept tiny so that start-up imports only what the chosen command needs."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        argv = ["repl"]
    from .app import run_app
    return run_app(argv)


if __name__ == "__main__":
    sys.exit(main())
