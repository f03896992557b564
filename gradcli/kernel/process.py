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
import json
import os
import select
import selectors
import signal
import sys
import time

from .child import (Channel, GRACE, _child_setup, _detach, _evaluator_main, _is_tty, dropped,
                    _keep_environment, _terminal_size)
from .bounds import (DocumentTooLarge, MAX_MESSAGE, _ANSWER, _CLOSE, _OUTPUT, loads_bounded,
                     pattern, terminal_safe)


POLL = 0.1  # the longest wait between two looks at Ctrl-C and the deadlines


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
        from ..lazy_modules import cache_bytecode
        prepare()
        cache_bytecode()
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
            if requests:  # (the frontend's process group's Ctrl-C, until it leaves it: dropped)
                signal.signal(signal.SIGINT, dropped)

            def run():
                os.close(messages_r)
                os.close(raw_r)
                if requests_w is not None:
                    os.close(requests_w)
                channel = _child_setup([requests_r] if requests else [], tty_out, tty_err,
                                       self.timeout, messages_w, raw_w, requests)
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
    def _write(self, stream, text):
        """A program's text, as a terminal may get it, wherever it goes: output piped or saved
        to a file is read on a terminal later (`gradcli eval ... > out; cat out`), so there too
        only plain colours pass, with text, tabs and newlines, as `less -R` passes them (git
        quotes control characters in the paths it prints whatever its output)."""
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
        output = pattern(_OUTPUT).match(line)
        if output is not None:
            # {"o": text} or {"e": text}: the one string, read where it starts
            text = line.decode("utf-8", "surrogateescape")
            try:
                value, end = json.decoder.scanstring(text, output.end())
            except ValueError:
                return None
            if pattern(_CLOSE).match(text, end) is None:
                return None
            del text
            if output.group(1) == b"o":
                self._write(self.out, value)
            else:
                self._write(self.err, value)
            return None
        if pattern(_ANSWER).match(line) is None:
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
                        self._write(self.err, chunk.decode("utf-8", "replace"))
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
            channel = _detach([task_r], False, False, messages_w, raw_w, interrupt=keep)
            load()
            _keep_environment()
            raise_wall(memory=memory_limit())
            message = _read_document(task_r)
            if message is None:  # the frontend needed no evaluator
                return 0
            sys.stdout._tty, sys.stderr._tty = message["tty"]
            os.environ.update(message["environment"])
            if message["timeout"]:
                limit_cpu(message["timeout"] + 2 * GRACE)

            def begin():
                # (called inside the task's own error reporting: a Ctrl-C kept until now, or
                # one from here on, is the task's KeyboardInterrupt, never an error of this
                # preamble's, which "the evaluator failed" would report)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                if interrupts:  # (while it loaded)
                    raise KeyboardInterrupt
            return _answer(channel, run(message["task"], begin))
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
