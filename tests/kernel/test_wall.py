"""The operating system's wall alone (gradcli.kernel.wall): with the language's checks out of
the way (plain Python run in an evaluator, as a program that broke the language wall would
run), the evaluator still reads only the Python installation and writes, executes, forks,
connects and signals nothing."""

import os
import sys

import pytest

from gradcli.kernel import wall
from gradcli.kernel.process import Evaluator, run_task

LINUX = sys.platform.startswith("linux")
pytestmark = pytest.mark.skipif(not LINUX or wall.missing(),
                                reason=f"this machine lacks part of the wall: {wall.missing()}")


class Captured:
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def text(self):
        return "".join(self.parts)


def attempt(action):
    """Run action() in an evaluator; the line it printed: `ok ...` or the refusal's type."""
    out = Captured()

    def task():
        try:
            print("ok", action())
        except BaseException as e:
            print(type(e).__name__, getattr(e, "errno", ""))
        return 0
    assert run_task(task, out=out, err=out) == 0
    return out.text().strip()


def test_files_outside_the_installation_cannot_be_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    assert attempt(lambda: open(secret).read()) == "PermissionError 13"
    assert attempt(lambda: os.listdir(os.path.expanduser("~"))) == "PermissionError 13"
    assert attempt(lambda: open("/etc/hostname").read()) == "PermissionError 13"
    assert attempt(lambda: open(f"/proc/{os.getppid()}/environ").read()).startswith(
        "PermissionError")


def test_the_evaluator_works_from_the_root_not_the_users_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    assert attempt(lambda: (os.getcwd(), sys.path[0])) == f"ok ('/', '{tmp_path}/')"
    assert attempt(lambda: __import__("gradcli.nn").nn.Linear(2, 1).out_features) == "ok 1"


def test_the_installation_can_be_read():
    import numpy
    assert attempt(lambda: len(open(numpy.__file__).read()) > 0) == "ok True"
    assert attempt(lambda: __import__("decimal").Decimal("1.5") * 2) == "ok 3.0"


def test_nothing_can_be_written_made_or_removed(tmp_path):
    existing = tmp_path / "existing.txt"
    existing.write_text("kept")
    assert attempt(lambda: open(tmp_path / "new.txt", "w")).startswith("PermissionError")
    assert attempt(lambda: open(existing, "a")).startswith("PermissionError")
    assert attempt(lambda: os.truncate(existing, 0)).startswith("PermissionError")
    assert attempt(lambda: os.unlink(existing)).startswith("PermissionError")
    assert attempt(lambda: os.mkdir(tmp_path / "d")).startswith("PermissionError")
    assert attempt(lambda: os.rename(existing, tmp_path / "moved")).startswith("PermissionError")
    assert existing.read_text() == "kept" and sorted(os.listdir(tmp_path)) == ["existing.txt"]


def test_no_process_exec_socket_or_signal():
    assert attempt(lambda: os.fork()) == "PermissionError 1"
    assert attempt(lambda: os.execv("/bin/true", ["true"])) == "PermissionError 1"
    assert attempt(lambda: __import__("subprocess").run(["true"])).startswith("PermissionError")
    assert attempt(lambda: __import__("socket").socket()) == "PermissionError 1"
    assert attempt(lambda: __import__("socket").socket(__import__("socket").AF_UNIX)) == \
        "PermissionError 1"
    assert attempt(lambda: os.kill(os.getppid(), 0)) == "PermissionError 1"
    assert attempt(lambda: os.kill(0, 0)) == "PermissionError 1"


def test_threads_and_numpy_still_work():
    import threading
    import numpy as np

    def both():
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        return float(np.ones((200, 200)).dot(np.ones((200, 200)))[0, 0])
    assert attempt(both) == "ok 200.0"


def test_memory_is_bounded(monkeypatch):
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "512M")
    assert attempt(lambda: len(bytearray(2 << 30))) == "MemoryError"


def test_the_evaluator_shows_seccomp_and_no_new_privs():
    """/proc/PID/status of a running evaluator, read by the frontend."""
    out = Captured()

    def serve(channel, fd):
        while os.read(fd, 1 << 16):  # (an answer to each request, until the pipe closes)
            channel.send({"r": "done"})
        return 0
    evaluator = Evaluator(serve, requests=True, out=out, err=out)
    try:
        assert evaluator.request({"op": "anything"}) == "done"  # (the wall is up by now)
        with open(f"/proc/{evaluator.pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        assert status["Seccomp"].strip() == "2" and status["NoNewPrivs"].strip() == "1"
    finally:
        evaluator.kill()


def test_a_missing_piece_is_said(monkeypatch):
    monkeypatch.setattr(wall, "landlock_abi", lambda: 0)
    assert wall.missing() == ["Landlock (the kernel offers none): reading files is not refused"]
    assert "missing: Landlock" in wall.describe()


def _raw(number, *args):
    """A system call by number, its arguments as 64-bit registers (high bits and all)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number), *[
        ctypes.c_long(a - (1 << 64) if isinstance(a, int) and a >= 1 << 63 else a)
        if isinstance(a, int) else a for a in args])
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64's call numbers")
def test_high_bits_pass_no_rule_on_a_32_bit_argument():
    """prctl's option, ioctl's request and fcntl's command are ints to the kernel: a rule on
    them compares their low 32 bits, so that 0xffffffff00000000 | X is refused as X is."""
    high = 0xFFFFFFFF00000000

    def owner():  # fcntl(fd, F_SETOWN | high, frontend): SIGIO to the frontend
        r, _ = os.pipe()
        return _raw(72, r, high | 8, os.getppid())
    assert attempt(owner) == "PermissionError 1"
    assert attempt(lambda: _raw(157, high | 1, 0, 0, 0, 0)) == "PermissionError 1"
    assert attempt(lambda: _raw(16, 0, high | 0x5412, b"x")) == "PermissionError 1"


def test_a_readable_file_keeps_its_attributes_and_flags(tmp_path, monkeypatch):
    """Calls newer than the system's libseccomp (setxattrat, Linux 6.13) are refused by
    number; inode flags (FS_IOC_SETFLAGS) as fchmod; extended attributes of a path outside the
    installation are not read (getxattr)."""
    import ctypes
    readable = tmp_path / "ro"
    readable.mkdir()
    victim = readable / "module.py"
    victim.write_text("x = 1\n")
    original = wall.readable_paths
    monkeypatch.setattr(wall, "readable_paths", lambda: original() + [str(readable)])
    path, outside = str(victim).encode(), str(tmp_path).encode()

    def setxattrat():  # struct xattr_args {u64 value; u32 size; u32 flags}
        value = ctypes.create_string_buffer(b"1")
        args = (ctypes.c_uint64 * 2)(ctypes.addressof(value), 1)
        return _raw(463, -100, path, 0, b"user.gradcli", args, 16)

    def setflags():
        fd = os.open(path, os.O_RDONLY)
        return _raw(16, fd, 0x40086602, ctypes.byref(ctypes.c_long(0x4000)))  # FS_NODUMP_FL

    if os.uname().machine in ("x86_64", "aarch64"):
        assert attempt(setxattrat) == "PermissionError 1"
    if os.uname().machine == "x86_64":
        assert attempt(setflags) == "PermissionError 1"
    assert attempt(lambda: os.getxattr(outside, "user.x")) == "PermissionError 1"
    assert attempt(lambda: os.listxattr(outside)) == "PermissionError 1"


def test_the_users_environment_is_gone_from_the_evaluators_memory(monkeypatch):
    """Not only os.environ and getenv (test_redteam_round4): the strings the process started
    with, which /proc/PID/environ shows and a program reading memory would find, are wiped
    (what the process set later is not there); what a program needs is kept."""
    monkeypatch.setenv("GRADCLI_TEST_TOKEN", "kept")
    monkeypatch.setenv("SOME_API_TOKEN", "wall-secret-6b1f")
    monkeypatch.setenv("LC_TIME", "C")
    out = Captured()

    def serve(channel, fd):
        while os.read(fd, 1 << 16):
            channel.send({"r": sorted(os.environ)})
        return 0
    evaluator = Evaluator(serve, requests=True, out=out, err=out)
    try:
        names = evaluator.request({"op": "anything"})
        with open(f"/proc/{evaluator.pid}/environ", "rb") as f:
            memory = f.read()
    finally:
        evaluator.kill()
    assert "SOME_API_TOKEN" not in names and "HOME" not in names and "PATH" not in names
    assert {"GRADCLI_TEST_TOKEN", "LC_TIME", "XDG_CACHE_HOME"} <= set(names), names
    # (/proc/PID/environ is the block the process started with: PATH and HOME were in it)
    left = {text.split(b"=", 1)[0].decode() for text in memory.split(b"\0") if text}
    assert left <= set(names) and not {"PATH", "HOME"} & left, left


def test_a_prestarted_evaluator_gives_up_the_environment_and_bounds_threads(monkeypatch):
    """The one-shot commands' evaluator (prestart: forked before the imports, walled after
    them) as the REPL's: the user's environment gone, COLUMNS/LINES from the frontend, and
    its threads bounded (RLIMIT_NPROC, where it counts the evaluator's alone)."""
    from gradcli.kernel import process
    monkeypatch.setenv("SOME_API_TOKEN", "wall-secret-6b1f")

    def run(task, begin=None):  # (prestart's evaluator calls it with its begin())
        if begin is not None:
            begin()
        import resource
        print(" ".join(sorted(os.environ)), resource.getrlimit(resource.RLIMIT_NPROC)[0])
        return 0
    process.prestart(lambda: None, run)
    out = Captured()
    assert process.run_document({"task": 1}, run, out=out, err=out) == 0
    names, limit = out.text().rsplit(" ", 1)
    assert "SOME_API_TOKEN" not in names and "PATH" not in names.split(), names
    assert {"COLUMNS", "LINES", "XDG_CACHE_HOME"} <= set(names.split()), names
    assert int(limit) <= 64 + wall.TASK_HEADROOM, limit
