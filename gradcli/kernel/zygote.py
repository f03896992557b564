"""The REPL's zygote: a clean template process, forked once the REPL's imports are done and
before it reads history or typed lines, from which each REPL evaluator is forked (so that no
evaluator holds the user's history)."""

import json
import os
import signal
import sys
import time

from .child import _child_setup, _evaluator_main
from .process import _sigpipe_held


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
                               setup["timeout"], messages_w, raw_w, requests)
        return task(channel, requests_r) if requests else task(channel)
    _evaluator_main(run)
