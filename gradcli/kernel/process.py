"""The evaluator process (the kernel, as Jupyter's frontends call theirs) and the frontend's
handle on it.

A frontend (a typer command, the REPL) has imported everything a program needs; it forks the
evaluator, which raises the wall (wall.raise_wall) and only then sees a program.  The
evaluator holds no file of the user's: its standard input is /dev/null, its standard output and
error are pipes, and everything it says comes back as messages on a pipe, one JSON document a
line (never pickle: the frontend reads them as untrusted data):

    {"o": text}   written to the frontend's standard output
    {"e": text}   written to the frontend's standard error
    {"r": value}  the answer to a request (REPL), or a task's exit code (one-shot command)

Whatever the evaluator writes to its file descriptors 1 and 2 below Python (a C library's
message) goes through the frontend to standard error.  The frontend ends an evaluator that
overruns its timeout or does not answer Ctrl-C (SIGKILL), and turns an evaluator that dies
into one line: `gradcli: the program crashed the evaluator (SIGSEGV)`."""

import contextlib
import io
import json
import os
import re
import select
import selectors
import signal
import sys
import time

GRACE = 1.0  # seconds an evaluator has, after its timeout or Ctrl-C, before SIGKILL
POLL = 0.1  # the longest wait between two looks at Ctrl-C and the deadlines
MAX_MESSAGE = 256 << 20  # bytes of one message line (more: the evaluator is ended)
# the shapes of a message line (as Channel.send writes them): {"o": "..."}, {"e": "..."},
# {"r": ...}
_OUTPUT = re.compile(rb'\{[ \t\r]*"([oe])"[ \t\r]*:[ \t\r]*"')
_CLOSE = re.compile(r"[ \t\r]*\}[ \t\r]*\Z")
_ANSWER = re.compile(rb'\{[ \t\r]*"r"[ \t\r]*:')

# what may reach a terminal of what an evaluator prints: text, tabs, newlines, carriage
# returns, backspaces and colours (SGR: `ESC [`, numbers separated by `;`, with `:`
# sub-parameters as in 38:2::r:g:b, then `m`); no other control character or escape sequence
# (one could set the clipboard, the window title or the terminal's answerback).  A sequence
# ending in `m` with a private marker or an intermediate byte is no colour: `ESC [ > 4 ; 2 m`
# switches xterm's modifyOtherKeys on for the rest of the shell's session, `ESC [ ? 4 m` makes
# the terminal type an answer into the shell's input.
_UNSAFE = re.compile(r"(?P<sgr>\x1b\[[0-9;:]*m)|"
                     r"\x1b(\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(\x07|\x1b\\)?|"
                     r"[PX^_][^\x1b]*(\x1b\\)?|.?)|"
                     r"[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]", re.S)


def terminal_safe(text):
    """text without the control characters and escape sequences a terminal should not get
    from a program (colours are kept)."""
    return _UNSAFE.sub(lambda m: m.group("sgr") or "", text)


# What the frontend parses of what an evaluator sends is bounded before json.loads builds it:
# a line of `[{},{},...]` is some 24 bytes of Python objects a byte, and a message line may be
# MAX_MESSAGE bytes.  An upper bound of the objects a parse builds (also a parse that fails
# half-way) is counted from the document's structure outside its strings, at these costs (the
# worst measured on CPython: a dict, a list and each further value or key), plus twice the
# text (the strings, and json.loads's own decoded copy of bytes).  (A dict entry, ":", costs
# most on CPython 3.10, whose dicts resize at a higher peak than 3.11's.)
_OBJECT_COST = {"{": 128, "[": 128, ",": 96, ":": 144}
PARSE_FLOOR = 64 << 20  # bytes of objects any document may build
PARSE_RATIO = 4         # and more only up to this multiple of its length
_WINDOW = 1 << 20       # (the exact count reads the document a window at a time)


class DocumentTooLarge(ValueError):
    """A JSON document from an evaluator that would build too many objects in the frontend."""


def parsed_size(data):
    """An upper bound of the bytes of objects json.loads(data) builds (str or bytes)."""
    def cost(text):
        return sum(text.count(c) * n for c, n in costs)

    kind = type(data)
    costs = [(c if kind is str else c.encode(), n) for c, n in _OBJECT_COST.items()]
    size = cost(data)  # (counted in the strings too: exact when they hold none of these)
    if size + 2 * len(data) <= _parse_budget(data):
        return size + 2 * len(data)
    # exactly: without the strings.  An escaped backslash, then an escaped quote, is no
    # string's end; every other quote opens or closes one (as a parser reads valid JSON, and
    # an invalid document's parse stops where this reading and the parser's could part)
    backslash, quote = ("\\", '\\"') if kind is str else (b"\\", b'\\"')
    plain = data.replace(backslash + backslash, backslash[:0]).replace(quote, quote[:0])
    inside, size = False, 0
    for start in range(0, len(plain), _WINDOW):
        parts = plain[start:start + _WINDOW].split(quote[1:])
        size += cost(quote[:0].join(parts[1 if inside else 0::2]))
        inside ^= len(parts) % 2 == 0
    return size + 2 * len(data)


def _parse_budget(data):
    return max(PARSE_FLOOR, PARSE_RATIO * len(data))


def loads_bounded(data):
    """json.loads(data) for a document from an evaluator (untrusted): DocumentTooLarge when
    the objects it would build are more than PARSE_RATIO times its length (PARSE_FLOOR at
    least); ValueError or RecursionError when it is no JSON."""
    if parsed_size(data) > _parse_budget(data):
        raise DocumentTooLarge(f"a document of {len(data):,} bytes that would build more than "
                               f"{_parse_budget(data) >> 20} MiB of objects")
    return json.loads(data)


MAX_CAPTURE = 64 << 20  # characters of an evaluator's output the frontend keeps (CapturedOutput)


class CapturedOutput(io.StringIO):
    """What an evaluator prints, kept for the frontend (graph -o, plot -o), at most `limit`
    characters: `overflowed` tells when more came (the rest is dropped)."""

    def __init__(self, limit=None):
        super().__init__()
        self.limit = MAX_CAPTURE if limit is None else limit
        self.overflowed = False

    def write(self, text):
        if self.overflowed or self.tell() + len(text) > self.limit:
            self.overflowed = True
            return len(text)
        return super().write(text)


class EvaluatorGone(Exception):
    """The evaluator died or was ended: `message` is what the user is told (`the program
    crashed the evaluator (SIGSEGV)`, a timeout, an interrupt), under `type_name`."""

    TYPE_NAMES = {"crash": "EvaluatorCrash", "timeout": "TimeoutError",
                  "interrupt": "KeyboardInterrupt"}

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind      # "crash", "timeout" or "interrupt"
        self.message = message
        self.type_name = self.TYPE_NAMES[kind]


# ---------------------------------------------------------------------- the evaluator's side

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


def _child_setup(keep, tty_out, tty_err, timeout, messages_w, raw_w):
    """In the new evaluator: its own process group (the terminal's Ctrl-C reaches the
    frontend, which passes it on), /dev/null as input, pipes as output, no other descriptor of
    the frontend's, none of the user's environment, then the wall."""
    from ..process import memory_limit
    from .wall import raise_wall
    channel = _detach(keep, tty_out, tty_err, messages_w, raw_w)
    _keep_environment()
    raise_wall(memory=memory_limit(), cpu_seconds=timeout + 2 * GRACE if timeout else None)
    return channel


def _detach(keep, tty_out, tty_err, messages_w, raw_w):
    """_child_setup but the wall: the evaluator's process group (before the wall, which then
    refuses setpgid), a count of its own threads (while it has one: the wall bounds them),
    descriptors, streams and signals; its channel to the frontend."""
    from .wall import count_tasks_apart
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
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
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return channel


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


# ---------------------------------------------------------------------- the frontend's side

class Evaluator:
    """A running evaluator process, from the frontend.

    Evaluator(task): the evaluator runs task(channel) and exits with the code it returns
    (a one-shot command).  finish() relays its output until it ends and returns that code.
    Evaluator(serve, requests=True): task also gets a channel of requests to read; request()
    sends one and relays output until the answer."""

    def __init__(self, task, *, requests=False, timeout=None, out=None, err=None,
                 on_unanswered=None, zygote=None):
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.timeout = timeout
        # called once when Ctrl-C goes unanswered for GRACE seconds: the evaluator is then
        # ended at the next Ctrl-C (the REPL's offer); without it, it is ended at once
        self.on_unanswered = on_unanswered
        self.pid = None
        self.status = None
        self._buffer = bytearray()
        self._scanned = 0  # how much of the buffer holds no newline
        if task is not None:
            self._start(task, requests, zygote)

    def _start(self, task, requests, zygote=None):
        """Fork the evaluator: from `zygote` (a Zygote made of this task) when there is one
        that can, else from the frontend as it is now."""
        from ..lang.parser import prepare
        prepare()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        tty_out, tty_err = self._tty_out, self._tty_err = _is_tty(self.out), _is_tty(self.err)
        os.environ.update(_terminal_size(self.out))
        messages_r, messages_w = os.pipe()
        raw_r, raw_w = os.pipe()
        requests_r, requests_w = os.pipe() if requests else (None, None)
        pid = None if zygote is None else zygote.spawn(
            [messages_w, raw_w] + ([requests_r] if requests else []),
            {"tty": [tty_out, tty_err], "timeout": self.timeout,
             "environment": {k: os.environ[k] for k in ("COLUMNS", "LINES") if k in os.environ}})
        if pid is None:
            pid = os.fork()
        if pid == 0:  # the evaluator
            def run():
                os.close(messages_r)
                os.close(raw_r)
                if requests_w is not None:
                    os.close(requests_w)
                channel = _child_setup([requests_r] if requests else [], tty_out, tty_err,
                                       self.timeout, messages_w, raw_w)
                return task(channel, requests_r) if requests else task(channel)
            _evaluator_main(run)
        os.close(messages_w)
        os.close(raw_w)
        if requests:
            os.close(requests_r)
        self._started(pid, messages_r, raw_r, requests_w)

    def _started(self, pid, messages_r, raw_r, requests_w):
        """The frontend's side of a new evaluator (its ends of the pipes already closed)."""
        _reap()
        self.pid = pid
        self.started = time.monotonic()
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # (before Python 3.9 / Linux 5.3)
            self._pidfd = None
        self._messages, self._raw = messages_r, raw_r
        # (written without blocking, within a request's deadline: an evaluator that stops
        # reading its requests must not hold the frontend in a write)
        self._requests = requests_w
        if requests_w is not None:
            os.set_blocking(requests_w, False)

    # ------------------------------------------------------------------ relaying
    def _write(self, stream, text, tty):
        if tty:
            text = terminal_safe(text)
        try:
            try:
                stream.write(text)
            except UnicodeEncodeError:
                # a character the stream cannot encode (a lone surrogate, or any non-ASCII
                # one with PYTHONIOENCODING=ascii) is shown escaped, as repr shows it, rather
                # than the whole write lost
                encoding = getattr(stream, "encoding", None) or "utf-8"
                stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed stream (a reader gone away): the evaluator still runs to its end

    def _on_line(self, line):
        """One message line (bytes): output is written at once; an answer is returned.  A
        line that is not a message of the protocol (an evaluator past its walls can write
        anything) is dropped; only an answer is parsed whole, and only one that builds no more
        objects than loads_bounded allows (else the evaluator is ended)."""
        output = _OUTPUT.match(line)
        if output is not None:
            # {"o": text} or {"e": text}: the one string, read where it starts
            text = line.decode("utf-8", "surrogateescape")
            try:
                value, end = json.decoder.scanstring(text, output.end())
            except ValueError:
                return None
            if _CLOSE.match(text, end) is None:
                return None
            del text
            if output.group(1) == b"o":
                self._write(self.out, value, self._tty_out)
            else:
                self._write(self.err, value, self._tty_err)
            return None
        if _ANSWER.match(line) is None:
            return None
        try:
            message = loads_bounded(line)
        except DocumentTooLarge as e:
            self.kill()
            raise EvaluatorGone("crash", f"the evaluator sent an answer too large to read "
                                f"({len(line) >> 20} MiB)") from e
        except (ValueError, RecursionError):
            return None
        if isinstance(message, dict) and "r" in message:
            return message
        return None

    def _lines(self, want_answer):
        """Handle the complete lines buffered; the answer, if one came and is wanted."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
                if self._scanned > MAX_MESSAGE:
                    self.kill()
                    raise EvaluatorGone("crash", "the evaluator sent a message longer than "
                                        f"{MAX_MESSAGE >> 20} MiB")
                return None
            with memoryview(self._buffer) as view:  # (one copy of the line, not two)
                line = bytes(view[:end])
            del self._buffer[:end + 1]
            self._scanned = 0
            answer = self._on_line(line)
            del line
            if answer is not None and want_answer:
                return answer

    def _pump(self, deadline, want_answer, send=b"", until_closed=False):
        """Relay output until an answer arrives (want_answer) or the evaluator ends (or, with
        until_closed, has closed its pipes); ends it at the deadline, or when it ignores
        Ctrl-C, or when it closes its pipes but lives on.  `send`: a request, written to the
        evaluator as it reads it (within the same deadline).  Returns the answer's message, or
        None when the evaluator has ended (self.status) or closed its pipes (until_closed)."""
        interrupted_at = closed_at = None
        noted = None  # the interrupt count when on_unanswered was called
        selector = selectors.DefaultSelector()
        open_fds = {self._messages, self._raw} if self.status is None else set()
        for fd in open_fds:
            selector.register(fd, selectors.EVENT_READ)
        unsent = memoryview(send) if send and open_fds else None
        if unsent is not None:
            selector.register(self._requests, selectors.EVENT_WRITE)
        previous = _forward_interrupts(self)
        try:
            answer = self._lines(want_answer)
            if answer is not None:
                return answer
            while self.status is None:
                now = time.monotonic()
                if self._interrupts and interrupted_at is None:
                    interrupted_at = now
                if noted is not None and self._interrupts > noted:
                    self.kill()
                    raise EvaluatorGone("interrupt", "interrupted")
                if deadline is not None and now >= deadline:
                    self.kill()
                    raise EvaluatorGone("timeout", f"program ran longer than "
                                        f"{self.timeout:g} s (raise the limit with --timeout)")
                if interrupted_at is not None and noted is None and \
                        now >= interrupted_at + GRACE:
                    if self.on_unanswered is None:
                        self.kill()
                        raise EvaluatorGone("interrupt", "interrupted")
                    self.on_unanswered()
                    noted = self._interrupts
                if not open_fds:  # both pipes closed: it has ended, or must end soon
                    if until_closed or self._poll():
                        return None
                    closed_at = closed_at or now
                    if now >= closed_at + GRACE:
                        self.kill()
                        raise EvaluatorGone("crash", "the evaluator stopped answering")
                    self._await_exit(POLL)
                    continue
                # (a finite wait, so that Ctrl-C, which interrupts no wait, is seen in time)
                wait = min([d for d in (deadline, interrupted_at is not None and noted is None
                                        and interrupted_at + GRACE) if d] + [now + POLL]) - now
                for key, _ in selector.select(max(wait, 0.001)):
                    if key.fd == self._requests:
                        unsent = self._send(unsent)
                        if not unsent:
                            selector.unregister(key.fd)
                        continue
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        selector.unregister(key.fd)
                        open_fds.discard(key.fd)
                        continue
                    if key.fd == self._raw:
                        self._write(self.err, chunk.decode("utf-8", "replace"), self._tty_err)
                        continue
                    self._buffer += chunk
                    answer = self._lines(want_answer)
                    if answer is not None:
                        return answer
            return None
        finally:
            selector.close()
            _restore_interrupts(previous)

    def _send(self, unsent):
        """Write what the requests pipe takes now of `unsent`; what is left (None when the
        evaluator has gone: EPIPE, which is not the frontend's SIGPIPE)."""
        with _sigpipe_held():
            try:
                written = os.write(self._requests, unsent[:1 << 16])
            except BlockingIOError:
                return unsent
            except OSError:
                return None  # (it died: the pump finds out why)
        return unsent[written:]

    def _await_exit(self, seconds):
        """Wait until the evaluator exits, at most `seconds` (its pidfd, where Linux has them,
        tells at once; else a short sleep)."""
        if self._pidfd is not None:
            select.select([self._pidfd], [], [], seconds)
        else:
            time.sleep(min(seconds, 0.002))

    def _poll(self):
        """Has the evaluator ended?  (Its status is then kept.)"""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._ended(status)
        return self.status is not None

    # ------------------------------------------------------------------ the two uses
    def finish(self):
        """A one-shot task: relay until it ends; its exit code.  Raises EvaluatorGone."""
        deadline = self.started + self.timeout + GRACE if self.timeout else None
        answer = self._pump(deadline, want_answer=True)
        if answer is None:
            return self._code(self.status)
        code = answer["r"]
        # (it only flushes, closes its pipes and exits now: a moment, then it is ended, and
        # not waited for: freeing its memory takes the kernel a few ms, which a one-shot
        # command need not spend; _reap collects it later, or init when the frontend exits)
        try:
            self._pump(time.monotonic() + GRACE, want_answer=False, until_closed=True)
        except EvaluatorGone:
            pass
        self._end_unwaited()
        if type(code) is not int or code not in (0, 1, 2):
            raise EvaluatorGone("crash", "the evaluator answered with no exit code")
        return code

    def request(self, message, timeout=None):
        """Send a request and relay output until its answer (a dict with "r").  Raises
        EvaluatorGone when the evaluator dies, overruns `timeout` or ignores Ctrl-C."""
        if self.status is not None:
            raise EvaluatorGone("crash", "the evaluator has ended")
        data = (json.dumps(message, allow_nan=False) + "\n").encode("ascii")
        self.timeout = timeout
        deadline = time.monotonic() + timeout + GRACE if timeout else None
        answer = self._pump(deadline, want_answer=True, send=data)
        if answer is None:
            code = self._code(self.status)
            raise EvaluatorGone("crash", f"the evaluator ended (exit code {code})")
        return answer["r"]

    def _code(self, status):
        """An exit status as an exit code, or EvaluatorGone for a death by signal."""
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            if number == signal.SIGXCPU:
                raise EvaluatorGone("timeout", f"program ran longer than {self.timeout:g} s "
                                    f"(raise the limit with --timeout)")
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            raise EvaluatorGone("crash", f"the program crashed the evaluator ({name})")
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 2
        if code not in (0, 1, 2):
            raise EvaluatorGone("crash", f"the program crashed the evaluator (exit code {code})")
        return code

    def wait(self):
        if self.status is None:
            _, status = os.waitpid(self.pid, 0)
            self._ended(status)
        return self.status

    def _ended(self, status):
        self.status = status
        for fd in (self._messages, self._raw, self._pidfd, self._requests):
            if fd is None:
                continue
            try:
                os.close(fd)
            except OSError:
                pass

    def _signal(self, number):
        if self.status is None:
            try:
                os.kill(self.pid, number)
            except ProcessLookupError:
                pass

    def kill(self):
        self._signal(signal.SIGKILL)
        self.wait()

    def _end_unwaited(self):
        """kill() without waiting for the evaluator's exit: its pid is reaped later (_reap)."""
        self._signal(signal.SIGKILL)
        if self.status is None:
            self._ended(0)  # (ended for this handle; its own status is not waited for)
            _unreaped.append(self.pid)
            _reap()

    def interrupt(self):
        self._signal(signal.SIGINT)

    _interrupts = 0


@contextlib.contextmanager
def _sigpipe_held():
    """SIGPIPE held back from this thread while it writes to an evaluator: the frontend keeps
    SIGPIPE's default (`gradcli ... | head` ends quietly), and a write to an evaluator that died
    between two requests would end the frontend without a word.  The write gets EPIPE; the
    signal it raised is taken off before SIGPIPE is let through again."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})
    try:
        yield
    finally:
        if signal.SIGPIPE not in previous:
            while signal.SIGPIPE in signal.sigpending():
                signal.sigtimedwait({signal.SIGPIPE}, 0)
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# ---------------------------------------------------------------------- a clean template

class Zygote:
    """A copy of the frontend made before it holds anything of the user's (the REPL makes it
    before it reads its history), from which its evaluators are forked.  A replacement
    evaluator (after a crash, a timeout, an unanswered Ctrl-C) forked from the frontend as it
    is by then would carry in its memory all the frontend has read since: the whole history
    (past sessions' pasted tokens and data), :load'ed files, what is typed at the prompt, where
    a program past the language wall finds it.  (Re-executing Python for each evaluator would
    give as clean a one but cost a second of imports and lose the task's closure.)

    The zygote is the frontend's child, in a process group of its own (the terminal's Ctrl-C
    is not for it), and ends with the frontend.  For each evaluator it receives the pipes'
    ends over a UNIX socket (SCM_RIGHTS) and forks an intermediate process, which forks the
    evaluator and exits; orphaned, the evaluator goes to the nearest subreaper, the frontend
    (PR_SET_CHILD_SUBREAPER, set for the moment of the spawn), and is its child from then on,
    as if forked there: waitpid, its pidfd and its exit status work as for any evaluator.  It
    waits to be the frontend's child before it sets itself up (the wall's parent-death
    signal).  Where none of this can be (not Linux), or the zygote has gone (killed from
    outside: an evaluator cannot signal it), evaluators are forked from the frontend."""

    SPAWN_TIMEOUT = 10.0  # seconds the frontend waits for a new evaluator's pid

    def __init__(self, task, *, requests=False):
        self.pid = None
        self._socket = None
        if not _subreaper(False):  # (can this kernel make the frontend a subreaper at all?)
            return
        import socket
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        frontend = os.getpid()
        pid = os.fork()
        if pid == 0:  # the zygote
            try:
                ours.close()
                _zygote_main(theirs, task, requests, frontend)
            finally:
                os._exit(0)
        theirs.close()
        ours.settimeout(self.SPAWN_TIMEOUT)
        self.pid, self._socket = pid, ours

    def spawn(self, fds, setup):
        """The pid of a new evaluator, the frontend's child, that runs the zygote's task with
        these descriptors (messages, raw output, requests) and setup (its terminals, timeout
        and environment); None when the zygote cannot make one."""
        if self._socket is None or not _subreaper(True):
            return None
        import socket
        try:
            with _sigpipe_held():  # (a zygote gone: EPIPE)
                socket.send_fds(self._socket, [json.dumps(setup).encode("ascii")], fds)
            pid = int(self._socket.recv(64) or b"0")
        except (OSError, ValueError):
            pid = 0
        finally:
            _subreaper(False)
        if pid <= 0:
            self.close()
            return None
        return pid

    def close(self):
        """End the zygote (the REPL is over)."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None


_prctl = None


def _subreaper(on):
    """Make the frontend the subreaper of its orphaned descendants (on) or not; False when
    this system cannot."""
    global _prctl
    if not sys.platform.startswith("linux"):
        return False
    if _prctl is None:
        try:
            import ctypes
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return bool(_prctl) and _prctl(_PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0


_PR_SET_CHILD_SUBREAPER = 36


def _zygote_main(sock, task, requests, frontend):
    """The zygote's life: a new evaluator for each request on sock, until the frontend ends."""
    import socket
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _prctl:
        _prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: it ends with the frontend
    if os.getppid() != frontend:
        return
    # it keeps no descriptor of the frontend's but its standard streams (a pipe the frontend
    # opened must not stay open here) and its socket
    os.closerange(3, sock.fileno())
    os.closerange(sock.fileno() + 1, os.sysconf("SC_OPEN_MAX"))
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        except OSError:
            return
        if not data:
            return
        reply = b"0"
        try:
            setup = json.loads(data)
            read, write = os.pipe()
            middle = os.fork()
            if middle == 0:  # the intermediate: forks the evaluator, tells its pid, exits
                try:
                    os.close(read)
                    pid = os.fork()
                    if pid == 0:
                        os.close(write)
                        _zygote_evaluator(task, requests, setup, fds, frontend)
                    os.write(write, b"%d" % pid)
                finally:
                    os._exit(0)
            os.close(write)
            reply = os.read(read, 64) or b"0"
            os.close(read)
            os.waitpid(middle, 0)  # (the evaluator is the frontend's child now)
        except Exception:  # noqa: BLE001  (the frontend forks the evaluator itself then)
            pass
        finally:
            for fd in fds:
                os.close(fd)
        try:
            sock.send(reply)
        except OSError:
            return


def _zygote_evaluator(task, requests, setup, fds, frontend):
    """An evaluator forked by the zygote: once it is the frontend's child, as Evaluator._start's."""
    def run():
        deadline = time.monotonic() + Zygote.SPAWN_TIMEOUT
        while os.getppid() != frontend:
            if time.monotonic() > deadline:
                return 2
            time.sleep(0.001)
        os.environ.update(setup["environment"])
        messages_w, raw_w = fds[0], fds[1]
        requests_r = fds[2] if requests else None
        tty_out, tty_err = setup["tty"]
        channel = _child_setup([requests_r] if requests else [], tty_out, tty_err,
                               setup["timeout"], messages_w, raw_w)
        return task(channel, requests_r) if requests else task(channel)
    _evaluator_main(run)


_unreaped = []  # evaluators ended without waiting (finish): reaped when they have exited


def _reap():
    for pid in list(_unreaped):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _unreaped.remove(pid)


def _forward_interrupts(evaluator):
    """While the frontend waits: Ctrl-C (which the terminal sends to the frontend's process
    group only) goes on to the evaluator, and the wait notes when it did."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        return None
    evaluator._interrupts = 0

    def on_interrupt(signum, frame):
        evaluator._interrupts += 1
        evaluator.interrupt()

    return signal.signal(signal.SIGINT, on_interrupt)


def _restore_interrupts(previous):
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


def run_task(task, *, timeout=None, out=None, err=None):
    """Run task() in a new evaluator (a one-shot command): relay what it prints, return its
    exit code.  Raises EvaluatorGone (crash, timeout, interrupt)."""
    def body(channel):
        return _answer(channel, task())
    return Evaluator(body, timeout=timeout, out=out, err=err).finish()


# ---------------------------------------------------------------------- tasks as documents

MAX_TASK = 64 << 20  # bytes of a task document (a program is at most GRADCLI_MAX_SOURCE)
_prestarted = None   # the evaluator prestart() started, until a task takes it


def prestart(load, run):
    """Start the evaluator of a one-shot command at once, before the frontend imports anything
    heavy: the two processes then import side by side (the frontend typer, the evaluator NumPy,
    the engine and the language), which a one-shot `gradcli eval` feels as start-up time.

    In the evaluator: load() imports what its task needs, the wall goes up, and only then does
    it read its one task document from the frontend (run_document sends it); run(document)
    carries it out and gives the exit code.  A frontend that needs no evaluator after all
    (--help, a usage error) just ends: the evaluator reads the end of its pipe, or dies with the
    frontend (PR_SET_PDEATHSIG), and never sees a program."""
    global _prestarted
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    messages_r, messages_w = os.pipe()
    raw_r, raw_w = os.pipe()
    task_r, task_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the evaluator
        # Ctrl-C while it loads (the terminal's, before it leaves the frontend's process
        # group, or the frontend's, forwarded) is kept for its task to report, as the
        # task would report it a moment later
        interrupts = []

        def keep(number, frame):
            interrupts.append(number)
        signal.signal(signal.SIGINT, keep)

        def evaluator():
            os.close(messages_r)
            os.close(raw_r)
            os.close(task_w)
            from ..process import memory_limit
            from .wall import die_with_frontend, limit_cpu, raise_wall
            die_with_frontend()
            if os.getppid() == 1:  # (it went before that was set)
                return 2
            channel = _detach([task_r], False, False, messages_w, raw_w)
            signal.signal(signal.SIGINT, keep)  # (_detach set Python's own)
            load()
            _keep_environment()
            raise_wall(memory=memory_limit())
            message = _read_document(task_r)
            if message is None:  # the frontend needed no evaluator
                return 0
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if interrupts:
                message["task"]["interrupted"] = True
            sys.stdout._tty, sys.stderr._tty = message["tty"]
            os.environ.update(message["environment"])
            if message["timeout"]:
                limit_cpu(message["timeout"] + 2 * GRACE)
            return _answer(channel, run(message["task"]))
        _evaluator_main(evaluator)
    os.close(messages_w)
    os.close(raw_w)
    os.close(task_r)
    _prestarted = (pid, messages_r, raw_r, task_w)


def _read_document(fd):
    """One JSON document, a line, from the frontend (None at the end of the pipe)."""
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        data += chunk
        if len(data) > MAX_TASK:
            raise ValueError("task document too long")
    return json.loads(data)


def _answer(channel, code):
    """A one-shot task's last message: its exit code, after everything it printed."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    channel.send({"r": code if isinstance(code, int) else 0})
    return code


def run_document(document, run, *, timeout=None, out=None, err=None):
    """Carry out a task document in an evaluator: the prestarted one when there is one (it
    gets the document over its pipe), else a new one forked now (which runs run(document) on
    the same document, as it would arrive over a pipe).  Relays what it prints and returns its
    exit code; raises EvaluatorGone (crash, timeout, interrupt)."""
    global _prestarted
    if _prestarted is None:
        document = json.loads(json.dumps(document))
        return run_task(lambda: run(document), timeout=timeout, out=out, err=err)
    pid, messages_r, raw_r, task_w = _prestarted
    _prestarted = None
    evaluator = Evaluator(None, timeout=timeout, out=out, err=err)
    evaluator._tty_out, evaluator._tty_err = _is_tty(evaluator.out), _is_tty(evaluator.err)
    evaluator._started(pid, messages_r, raw_r, None)
    message = {"task": document, "tty": [evaluator._tty_out, evaluator._tty_err],
               "environment": _terminal_size(evaluator.out), "timeout": timeout}
    try:  # (an evaluator that died: EPIPE, not the frontend's SIGPIPE)
        previous = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    except ValueError:  # (not the main thread)
        previous = None
    try:
        Channel(task_w).send(message, allow_nan=True)
    except OSError:
        pass  # it died: finish() finds out why
    finally:
        os.close(task_w)
        if previous is not None:
            signal.signal(signal.SIGPIPE, previous)
    return evaluator.finish()
