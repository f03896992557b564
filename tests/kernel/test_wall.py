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
