"""The evaluator's side of the process pair: what a forked evaluator does before it runs
anything (its descriptors, its environment cut to an allow-list, its limits, the message
stream to the frontend) and its main loop; the frontend's side is gradcli.kernel.process."""

import io
import json
import os
import signal
import sys


GRACE = 1.0  # seconds an evaluator has, after its timeout or Ctrl-C, before SIGKILL


class MessageStream(io.TextIOBase):
    """sys.stdout / sys.stderr of an evaluator: each write is a message to the frontend.
    isatty() answers as the frontend's stream does, so that output is formatted for where it
    lands (rich on a terminal, plain when piped)."""

    def __init__(self, channel, key, tty, encoding="utf-8"):
        super().__init__()
        self._channel, self._key, self._tty, self._encoding = channel, key, tty, encoding

    @property
    def encoding(self):
        return self._encoding

    def writable(self):
        return True

    def isatty(self):
        return self._tty

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._channel.send({self._key: text})
        return len(text)


class Channel:
    """One direction of messages: JSON documents in ASCII, one a line."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, message, allow_nan=False):
        # (ASCII: text with lone surrogates, from input that was not UTF-8, goes through too;
        # allow_nan: a task document's options, from the frontend, may be inf or nan)
        data = (json.dumps(message, allow_nan=allow_nan) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


def _child_setup(keep, tty_out, tty_err, timeout, messages_w, raw_w, requests=False):
    """In the new evaluator: its own process group (the terminal's Ctrl-C reaches the
    frontend, which passes it on), /dev/null as input, pipes as output, no other descriptor of
    the frontend's, none of the user's environment, then the wall.  An evaluator of requests
    (the REPL's) drops Ctrl-C until a request runs (gradcli.cli.replcore.serve)."""
    from ..process import memory_limit
    from .wall import raise_wall
    channel = _detach(keep, tty_out, tty_err, messages_w, raw_w,
                      interrupt=dropped if requests else signal.default_int_handler)
    _keep_environment()
    raise_wall(memory=memory_limit(), cpu_seconds=timeout + 2 * GRACE if timeout else None)
    return channel


def _detach(keep, tty_out, tty_err, messages_w, raw_w, interrupt=signal.default_int_handler):
    """_child_setup but the wall: the evaluator's process group (before the wall, which then
    refuses setpgid), a count of its own threads (while it has one: the wall bounds them),
    descriptors, streams and signals (SIGINT's handler: interrupt); its channel to the
    frontend."""
    from .wall import count_tasks_apart
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    # gradcli's cache found while the process is still its user's: an evaluator of root's
    # gives up its real uid (count_tasks_apart), after which `~` without HOME would be the
    # overflow user's home (/nonexistent), made by the file-system uid that stays root's
    if not os.environ.get("XDG_CACHE_HOME"):
        os.environ["XDG_CACHE_HOME"] = os.path.join(os.path.expanduser("~"), ".cache")
    count_tasks_apart()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(raw_w, 1)
    os.dup2(raw_w, 2)
    keep = sorted({0, 1, 2, messages_w, *keep})
    start = 3
    for fd in keep + [os.sysconf("SC_OPEN_MAX")]:
        if fd >= start:
            os.closerange(start, fd)
            start = fd + 1
    channel = Channel(messages_w)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = MessageStream(channel, "o", tty_out)
    sys.stderr = MessageStream(channel, "e", tty_err)
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return channel


def dropped(number, frame):
    """SIGINT's handler in a REPL's evaluator while no request runs: a Ctrl-C is dropped."""


# what an evaluator keeps of the frontend's environment (the rest is the user's: tokens, keys,
# paths): the locale, the terminal's kind, size and colours, the time zone, gradcli's settings,
# the BLAS libraries' and glibc malloc's (gradcli.process.ALLOCATOR_ENVIRONMENT)
KEPT_ENVIRONMENT = frozenset((
    "LANG", "LANGUAGE", "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR",
    "CLICOLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "TZ", "XDG_CACHE_HOME",
    "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES"))
KEPT_ENVIRONMENT_PREFIXES = ("LC_", "GRADCLI_", "OPENBLAS_", "OMP_", "MKL_")


def _keep_environment():
    """Give up the user's environment, all but KEPT_ENVIRONMENT: in os.environ, in the C
    library's environ (unsetenv) and in memory, where the strings of the variables given up
    are overwritten with zeros: those environ points to (which glibc never frees) and all
    of the block the process started with (what /proc/self/environ shows; a variable set
    again since is no longer in environ, but still there).  XDG_CACHE_HOME is set to
    gradcli's cache's parent, so that HOME is not needed to find it.  Before the wall: the
    block's place is read from /proc.  (What the frontend's Python objects held of the
    environment before the fork, freed or not, is not wiped.)"""
    import ctypes
    from .wall import _libc
    kept = {name: value for name, value in os.environ.items()
            if name in KEPT_ENVIRONMENT or name.startswith(KEPT_ENVIRONMENT_PREFIXES)}
    kept["XDG_CACHE_HOME"] = os.environ.get("XDG_CACHE_HOME") or \
        os.path.join(os.path.expanduser("~"), ".cache")

    def given_up(text):
        return text and text.split(b"=", 1)[0].decode("utf-8", "surrogateescape") not in kept

    strings = []  # (address, length) of each C string of a variable given up
    try:
        environ = ctypes.POINTER(ctypes.c_void_p).in_dll(_libc, "environ")
        i = 0
        while environ and environ[i]:
            text = ctypes.string_at(environ[i])
            if given_up(text):
                strings.append((environ[i], len(text)))
            i += 1
    except (ValueError, AttributeError, OSError):  # (no C library's environ: not glibc)
        strings = []
    try:
        with open("/proc/self/stat", "rb") as f:  # (fields 50 and 51: env_start, env_end)
            start, end = (int(n) for n in f.read().rsplit(b") ", 1)[1].split()[47:49])
        offset = 0
        for text in ctypes.string_at(start, end - start).split(b"\0"):
            if given_up(text):
                strings.append((start + offset, len(text)))
            offset += len(text) + 1
    except (OSError, ValueError, IndexError):
        pass
    for name in list(os.environ):  # (unsetenv: from the C library's environ too)
        del os.environ[name]
    try:
        import posix
        posix.environ.clear()  # (the bytes os.environ was made from)
    except (ImportError, AttributeError):
        pass
    for address, length in strings:  # (no longer in environ)
        ctypes.memset(address, 0, length)
    os.environ.update(kept)


def _evaluator_main(run):
    """The evaluator's whole life after fork: run() gives its exit code; whatever happens, it
    flushes and exits (never returns into the frontend's code)."""
    code = 2
    try:
        code = run()
        code = code if isinstance(code, int) else 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except BaseException as e:  # the task reports its own errors: this is a last resort
        try:
            os.write(2, f"gradcli: the evaluator failed: {type(e).__name__}: {e}\n"
                     .encode("utf-8", "replace"))
        except OSError:
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        _close_descriptors()
        os._exit(code)


def _close_descriptors():
    """An evaluator's pipes closed before its exit frees the process's memory (a few ms, with
    NumPy and the engine loaded): the frontend has all its output then, and goes on."""
    try:
        os.closerange(0, os.sysconf("SC_OPEN_MAX"))
    except BaseException:
        pass


def _is_tty(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _terminal_size(stream):
    """COLUMNS and LINES for the evaluator, whose streams are pipes: the frontend's size (what
    the environment does not already say)."""
    import shutil
    if "COLUMNS" in os.environ and "LINES" in os.environ:
        return {}
    try:
        columns, lines = os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        columns, lines = shutil.get_terminal_size()
    # a terminal that says 0 (a serial line, some emulators' first moment) is of unknown size,
    # as shutil takes it; one narrower than a short table gets lines it wraps itself, rather
    # than rich's output cut to nothing
    columns = max(columns, MIN_COLUMNS) if columns > 0 else 80
    lines = lines if lines > 0 else 24
    return {name: value for name, value in (("COLUMNS", str(columns)), ("LINES", str(lines)))
            if name not in os.environ}


MIN_COLUMNS = 40
