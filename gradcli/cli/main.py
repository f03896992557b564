"""Entry point of the `gradcli` script: no arguments on a terminal opens the REPL; otherwise the
typer app.  Kept tiny so that start-up imports only what the chosen command needs."""

import gc
import os
import signal
import sys

from ..process import memory_limit, tune_allocator, tune_blas, tune_collector

CLOSED_STDOUT = "OSError: standard output is closed"
COMPLETE_VAR = "_GRADCLI_COMPLETE"  # set by the completion script typer installs
def limit_memory():
    """A backstop under the language's own limits: a program that still grows without bound
    (a list doubling itself) meets MemoryError, a one-line error, before the machine swaps."""
    limit = memory_limit()
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if limit and (soft == resource.RLIM_INFINITY or soft > limit):
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass  # no such limit on this platform


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv and not os.environ.get(COMPLETE_VAR):
        # (a shell asking for completions runs gradcli with no arguments too: the app answers)
        argv = ["repl"]
    # `gradcli … | head`: a reader that goes away ends the process quietly, as it ends cat or
    # grep, instead of a BrokenPipeError at the next write
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.stdout is None or sys.stdout.closed:  # started with `>&-`
        if sys.stderr is not None and not sys.stderr.closed:
            print(CLOSED_STDOUT, file=sys.stderr)
        return 2
    if sys.stderr is None:  # started with `2>&-`: errors go unseen, their exit codes stay
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdin is None:  # started with `<&-`: read end of input at once
        sys.stdin = open(os.devnull, encoding="utf-8")
    limit_memory()
    from .app import run_app
    return run_app(argv)


def _prestart(argv):
    """For a command that runs a program (eval, run, check, ...), start its evaluator now,
    before this process imports typer and the evaluator NumPy and the engine: the two import
    side by side (kernel.process.prestart).  Not for --help, shell completion, or a command
    line the frontend will refuse before it runs anything; True if started."""
    from .tasks import PROGRAM_COMMANDS
    if not argv or argv[0] not in PROGRAM_COMMANDS or os.environ.get(COMPLETE_VAR):
        return False
    options = argv[:argv.index("--")] if "--" in argv else argv
    if "--help" in options or "-h" in options:
        return False
    if sys.stdout is None or sys.stdout.closed or sys.stdin is None:
        return False
    from ..kernel.process import prestart
    from .tasks import load, run_task
    command = argv[0]

    def load_evaluator():
        load(command)
        tune_collector()  # (as run() does in the frontend: what it imported, frozen)
        gc.enable()
        tune_allocator()

    prestart(load_evaluator, run_task)
    return True


def interrupted(argv):
    """Ctrl-C in the frontend while no program runs (its imports, typer, reading standard
    input, Graphviz drawing a picture): what an interrupted program gives, at once: the line
    `KeyboardInterrupt: interrupted` (a JSON error document with --json/--jsonl), exit 2."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # (interrupted in the middle of a write: what was written stays)
            pass
    if "--json" in argv or "--jsonl" in argv:
        os.write(1, INTERRUPTED_JSON)
    else:
        os.write(2, b"KeyboardInterrupt: interrupted\n")
    os._exit(2)


# The document Renderer.error writes for an interrupt, as constant bytes: interrupted runs in a
# signal handler, which may come while `json` itself is half imported (import nothing there)
INTERRUPTED_JSON = (b'{\n  "error": {\n    "type": "KeyboardInterrupt",\n    "message": '
                    b'"interrupted",\n    "line": null,\n    "column": null\n  }\n}\n')


def run(interrupts=()):
    """The `gradcli` console script: its process's collector, allocator and BLAS set up for it
    (tune_blas before anything imports NumPy, the app imported with the collector paused, then
    tune_collector, tune_allocator), main(),
    then, for a one-shot command, exit at once with
    its output flushed, skipping the interpreter's teardown of NumPy, the op table and typer
    (some 40 ms of every `gradcli eval` in a shell loop; nothing of a command's is left to
    clean up).  The REPL exits the usual way: prompt-toolkit and its history clean up then.

    A command that runs a program has its evaluator started first (_prestart): this process,
    the frontend, then imports typer but never NumPy or the engine.  interrupts: the SIGINTs
    the console script received before this could take Ctrl-C over (interrupted)."""
    gc.disable()  # (paused since the console script started: _gradcli_console)
    argv = sys.argv[1:]
    # (click would print "Aborted!" and exit 1; while a program runs, the evaluator's
    # frontend forwards Ctrl-C to it instead, and the REPL's prompt reads it as a key)
    signal.signal(signal.SIGINT, lambda number, frame: interrupted(argv))
    if interrupts:  # (the console script kept a Ctrl-C that came while this module loaded)
        interrupted(argv)
    tune_blas()  # (before the evaluator, or this process, imports NumPy)
    try:
        prestarted = _prestart(argv)
        if prestarted:  # (while the evaluator imports NumPy: see gradcli.lazy_modules)
            from ..lazy_modules import cache_bytecode
            cache_bytecode()
        from . import app  # noqa: F401  (typer: imported now, frozen with the rest)
        if not prestarted:
            # what every other command that runs a program imports before it forks its
            # evaluator (the REPL's, and a command started without one)
            import gradcli
            gradcli._load()
            from ..analysis import evaluate  # noqa: F401
            from ..kernel import process, zygote  # noqa: F401
            from ..lang import session  # noqa: F401  (the language: lang.parser.prepare)
    finally:
        tune_collector()
        gc.enable()
    tune_allocator()
    if not argv or argv[0] == "repl":
        # the REPL reads Ctrl-C as a key at its prompt and interrupts a statement by its
        # evaluator: between them, as in Python's REPL, it is a KeyboardInterrupt
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            code = main(argv)
        except KeyboardInterrupt:
            interrupted(argv)
        # the session is over: a Ctrl-C in the interpreter's teardown (which gives SIGINT its
        # default action back) ended the process by the signal, with no word.  (A handler
        # first, so that a Ctrl-C already due finds one, not "Signal 2 ignored due to race
        # condition".)
        signal.signal(signal.SIGINT, lambda number, frame: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(code)
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # a closed stream: nothing more can be said on it
    os._exit(code if isinstance(code, int) else 0 if code is None else 2)


if __name__ == "__main__":
    run()
