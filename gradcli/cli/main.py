"""Entry point of the `gradcli` script: no arguments on a terminal opens the REPL; otherwise the
typer app.  Kept tiny so that start-up imports only what the chosen command needs."""

import gc
import os
import signal
import sys

CLOSED_STDOUT = "OSError: standard output is closed"
MEMORY_SETTING = "GRADCLI_MAX_MEMORY"


def memory_limit():
    """The process's data limit in bytes: GRADCLI_MAX_MEMORY (a number, with an optional K, M
    or G), else half the machine's memory; 0 means none."""
    text = os.environ.get(MEMORY_SETTING, "").strip().upper()
    if text:
        scale = {"K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30}.get(text[-1:], 1)
        try:
            return int(float(text.rstrip("KMG")) * scale)
        except ValueError:
            pass  # a malformed setting is ignored, as the language's limits ignore theirs
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 0


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


# The collector's thresholds in a gradcli process (Python's defaults: 700, 10, 10).  The graph a
# program builds is acyclic and freed by reference counting (PyTorch's lives in C++, where no
# collector walks it), but while it is alive each of CPython's full collections walks all of it,
# and on a growing graph they come back every 25% of growth: a 1M-op graph is walked some five
# times, which more than doubles the forward pass (1.6 -> 4.2 us/op).  Here a full collection
# waits for 10M allocations (500 collections of the middle generation, each after 10 of the
# youngest, each after 2,000 allocations) where it waited for 70k; short-lived cycles are still
# collected by the young generations.
COLLECTOR_THRESHOLDS = (2_000, 10, 500)


def tune_collector():
    """Set the process's collector up for gradcli, as mypy does for its own: what start-up
    imported (NumPy, the engine, typer) lives as long as the process, so gc.freeze() takes it
    out of every later collection (the console script imports it with the collector paused:
    _gradcli_console); then COLLECTOR_THRESHOLDS.  Only the console script calls this: the
    Python API leaves the collector of its host process alone."""
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


# glibc malloc's settings in a gradcli process.  By default it serves blocks up to a threshold
# from the heap and trims the heap's free top back to the system once it passes twice that
# threshold, which adapts to the biggest block freed so far (up to 32 MiB).  A program on big
# tensors frees and allocates arrays of the same sizes all the time, and each trim makes the
# next allocations fault their pages in again: on a 20-op chain over 1e6 elements, 2,580 page
# faults and 10% of the time per pass, or none, depending on where the arrays happened to lie.
# Fixed settings instead: blocks up to 32 MiB from the heap, and up to 128 MiB of free heap
# kept for reuse (given back at exit).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
ALLOCATOR_SETTINGS = ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 128 << 20))
# the user's own settings, which the allocator read at start-up, win
ALLOCATOR_ENVIRONMENT = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
                         "GLIBC_TUNABLES")


def tune_allocator():
    """Apply ALLOCATOR_SETTINGS to glibc's malloc (as tune_collector, for the console script
    only); True if applied.  Nothing on other C libraries, or when the environment has
    settings of its own."""
    if any(os.environ.get(name) for name in ALLOCATOR_ENVIRONMENT):
        return False
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in ALLOCATOR_SETTINGS)


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
    limit_memory()
    from .app import run_app
    return run_app(argv)


def run():
    """The `gradcli` console script: its process's collector and allocator set up for it
    (the app imported with the collector paused, then tune_collector, tune_allocator), main(),
    then, for a one-shot command, exit at once with
    its output flushed, skipping the interpreter's teardown of NumPy, the op table and typer
    (some 40 ms of every `gradcli eval` in a shell loop; nothing of a command's is left to
    clean up).  The REPL exits the usual way: prompt-toolkit and its history clean up then."""
    gc.disable()  # (paused since the console script started: _gradcli_console)
    try:
        from . import app  # noqa: F401  (typer: imported now, frozen with the rest)
    finally:
        tune_collector()
        gc.enable()
    tune_allocator()
    argv = sys.argv[1:]
    code = main(argv)
    if not argv or argv[0] == "repl":
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # a closed stream: nothing more can be said on it
    os._exit(code if isinstance(code, int) else 0 if code is None else 2)


if __name__ == "__main__":
    run()
