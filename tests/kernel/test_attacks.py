"""Red-team regression tests for the evaluator's OS wall and the frontend/evaluator protocol
(SPEC §7, issue 17).  The language wall is assumed broken: each attack runs as arbitrary
Python inside the evaluator (run_task / Evaluator), as a program that forged a pointer would.

Each test asserts the SAFE behaviour.  The holes they found were closed in gradcli/kernel
(seccomp rules, dropped capabilities, the frontend's relay and its deadlines)."""

import ctypes
import errno
import io
import json
import os
import signal
import struct
import subprocess
import sys
import threading
import time

import pytest
from processes import in_evaluator as _in_evaluator

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux walls")

from gradcli.kernel import wall  # noqa: E402
from gradcli.kernel.process import Evaluator, EvaluatorGone, run_task  # noqa: E402


def _caps():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0


CAP_SYS_ADMIN = 21
HAS_SYS_ADMIN = bool(_caps() >> CAP_SYS_ADMIN & 1)
FULL_WALL = wall.landlock_abi() >= 1 and wall.seccomp_available()
needs_wall = pytest.mark.skipif(not FULL_WALL, reason="Landlock and seccomp both needed")


def _try(f):
    try:
        value = f()
        return ["ok", repr(value)[:200]]
    except OSError as e:
        return ["err", e.errno]
    except Exception as e:  # noqa: BLE001
        return ["exc", f"{type(e).__name__}: {e}"[:200]]


def _syscall(number, *args):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number),
                          *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


# ---------------------------------------------------------------------- what the wall holds

@needs_wall
def test_the_wall_refuses_files_processes_sockets_and_signals(tmp_path):
    target = str(tmp_path / "pwn")
    home = os.path.expanduser("~")
    parent = os.getpid()

    def attack():
        import socket
        r = {}
        r["read /etc/passwd"] = _try(lambda: open("/etc/passwd").read())
        r["read /proc/self/status"] = _try(lambda: open("/proc/self/status").read())
        r["read /proc/<frontend>/environ"] = _try(lambda: open(f"/proc/{parent}/environ").read())
        r["list ~"] = _try(lambda: os.listdir(home))
        r["list tmp"] = _try(lambda: os.listdir(os.path.dirname(target)))
        r["create"] = _try(lambda: open(target, "w"))
        r["O_TMPFILE"] = _try(lambda: os.open("/tmp", os.O_TMPFILE | os.O_WRONLY))
        r["mkdir"] = _try(lambda: os.mkdir(target))
        r["symlink"] = _try(lambda: os.symlink("/etc/passwd", target))
        r["fork"] = _try(os.fork)
        r["clone3"] = _try(lambda: _syscall(435, 0, 0))
        r["AF_UNIX"] = _try(lambda: socket.socket(socket.AF_UNIX))
        r["AF_NETLINK"] = _try(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
        r["AF_INET"] = _try(lambda: socket.socket())
        r["io_uring"] = _try(lambda: _syscall(425, 1, 0))
        r["ptrace attach"] = _try(lambda: _syscall(101, 16, parent, 0, 0))
        r["process_vm_readv"] = _try(lambda: _syscall(310, parent, 0, 0, 0, 0, 0))
        r["kill frontend"] = _try(lambda: os.kill(parent, 0))
        r["kill group 0"] = _try(lambda: os.kill(0, 0))
        r["tgkill frontend"] = _try(lambda: _syscall(234, parent, parent, 0))
        r["pidfd_open"] = _try(lambda: _syscall(434, parent, 0))
        r["memfd+execveat"] = _try(lambda: _syscall(322, os.memfd_create("x"), b"", 0, 0,
                                                    0x1000))
        r["unshare user"] = _try(lambda: _syscall(272, 0x10000000))
        r["keyctl"] = _try(lambda: _syscall(250, 0, -1, 0))
        r["personality"] = _try(lambda: _syscall(135, 0x0040000))
        r["seccomp again"] = _try(lambda: _syscall(317, 0, 0, 0))
        r["tty"] = _try(lambda: open("/dev/tty"))
        return r

    result = _in_evaluator(attack)
    for name, (kind, value) in result.items():
        assert kind == "err", (name, kind, value)
    assert not os.path.exists(target)


@needs_wall
def test_the_evaluator_holds_no_descriptor_of_the_frontends(tmp_path):
    keep = open(tmp_path / "secret", "w+")  # a file the frontend holds open
    os.set_inheritable(keep.fileno(), True)

    def attack():
        fds = []
        for fd in range(1024):
            try:
                fds.append([fd, os.fstat(fd).st_mode])
            except OSError:
                pass
        return {"fds": fds}

    try:
        fds = dict(_in_evaluator(attack)["fds"])
    finally:
        keep.close()
    import stat
    # 0 and sys.stdin (/dev/null), 1 and 2 (the raw pipe), the message pipe: nothing else
    assert len(fds) <= 5, fds
    assert all(stat.S_ISFIFO(m) or stat.S_ISCHR(m) for m in fds.values())


@needs_wall
def test_x32_and_other_architectures_end_the_evaluator():
    """A 64-bit process making x32 calls (nr | 0x40000000) is killed (libseccomp's bad-arch
    action), never let through: a crash line, not a socket."""
    def attack():
        return {"socket": _try(lambda: _syscall(0x40000000 | 41, 1, 1, 0))}

    with pytest.raises(EvaluatorGone) as e:
        _in_evaluator(attack)
    assert e.value.kind == "crash"


@needs_wall
def test_the_address_space_limit_cannot_be_raised():
    def attack():
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        return {"raise": _try(lambda: resource.setrlimit(
            resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))),
            "limit": hard}

    result = _in_evaluator(attack)
    assert result["raise"][0] != "ok"
    assert result["limit"] != -1


def test_with_landlock_missing_seccomp_still_refuses_writes(tmp_path, monkeypatch):
    """Degrading: no Landlock (simulated), seccomp alone still refuses writing opens."""
    if not wall.seccomp_available():
        pytest.skip("no seccomp")
    monkeypatch.setattr(wall, "landlock_abi", lambda: 0)
    target = str(tmp_path / "pwn")

    def attack():
        return {"create": _try(lambda: open(target, "w")), "fork": _try(os.fork),
                "append": _try(lambda: os.open(target, os.O_APPEND | os.O_CREAT))}

    result = _in_evaluator(attack)
    assert all(kind == "err" for kind, _ in result.values()), result
    assert not os.path.exists(target)


def test_with_seccomp_missing_landlock_still_refuses_files(tmp_path, monkeypatch):
    """Degrading: no seccomp (simulated), Landlock alone still refuses reads and writes."""
    if wall.landlock_abi() < 1:
        pytest.skip("no Landlock")
    monkeypatch.setattr(wall, "_libseccomp", lambda: None)
    target = str(tmp_path / "pwn")

    def attack():
        return {"create": _try(lambda: open(target, "w")),
                "read": _try(lambda: open("/etc/passwd").read())}

    result = _in_evaluator(attack)
    assert all(kind == "err" for kind, _ in result.values()), result


# ---------------------------------------------------------------------- holes in the OS wall

@needs_wall
def test_metadata_of_a_readable_file_cannot_be_changed(tmp_path, monkeypatch):
    readable = tmp_path / "ro"
    readable.mkdir()
    victim = readable / "module.py"
    victim.write_text("x = 1\n")
    victim.chmod(0o644)
    original = wall.readable_paths
    monkeypatch.setattr(wall, "readable_paths", lambda: original() + [str(readable)])
    path = str(victim)

    def attack():
        fd = os.open(path, os.O_RDONLY)
        return {"fchmod": _try(lambda: os.fchmod(fd, 0o000)),
                "fchmodat2": _try(lambda: _syscall(452, fd, b"", 0o000, 0x1000)),
                "fsetxattr": _try(lambda: os.setxattr(fd, "user.gradcli", b"1"))}

    result = _in_evaluator(attack)
    mode = victim.stat().st_mode & 0o777
    victim.chmod(0o644)
    assert mode == 0o644, result
    assert all(kind == "err" for kind, _ in result.values()), result


@needs_wall
def test_other_processes_limits_and_scheduling_cannot_be_changed():
    victim = subprocess.Popen(["sleep", "30"])
    try:
        pid = victim.pid

        def attack():
            import resource
            return {
                "prlimit": _try(lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, 3))),
                "frontend prlimit": _try(lambda: resource.prlimit(
                    os.getppid(), resource.RLIMIT_CORE, (0, 0))),
                "setpriority": _try(lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
                "SCHED_IDLE": _try(lambda: os.sched_setscheduler(pid, os.SCHED_IDLE,
                                                                 os.sched_param(0))),
                "affinity": _try(lambda: os.sched_setaffinity(pid, {0}))}

        result = _in_evaluator(attack)
        with open(f"/proc/{pid}/limits") as f:
            nofile = [line for line in f if line.startswith("Max open files")][0]
    finally:
        victim.kill()
        victim.wait()
    assert nofile.split()[3] != "3", result
    assert all(kind == "err" for kind, _ in result.values()), result


@needs_wall
def test_no_sysv_ipc_object_outlives_the_evaluator():
    def attack():
        return {"shmget": _try(lambda: _syscall(29, 0, 1 << 20, 0o1000 | 0o600)),
                "msgget": _try(lambda: _syscall(68, 0, 0o1000 | 0o600)),
                "semget": _try(lambda: _syscall(64, 0, 1, 0o1000 | 0o600))}

    result = _in_evaluator(attack)
    libc = ctypes.CDLL(None)
    for name, rmid in (("shmget", lambda i: libc.shmctl(i, 0, None)),
                       ("msgget", lambda i: libc.msgctl(i, 0, None)),
                       ("semget", lambda i: libc.semctl(i, 0, 0))):
        kind, value = result[name]
        if kind == "ok":
            rmid(int(value))  # (clean up what the attack left behind)
    assert all(kind == "err" for kind, _ in result.values()), result


@needs_wall
def test_fanotify_cannot_deny_the_frontends_opens(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "s").write_text("hi")
    box = {}

    def attack():
        import select
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64,
                                       ctypes.c_int, ctypes.c_char_p]
        fd = libc.fanotify_init(0x4, os.O_RDONLY)  # FAN_CLASS_CONTENT
        if fd < 0:
            return {"init": ["err", ctypes.get_errno()]}
        if libc.fanotify_mark(fd, 1, 0x10000 | 0x08000000, -100, str(secret).encode()) < 0:
            return {"mark": ["err", ctypes.get_errno()]}
        print("marked", flush=True)
        ready, _, _ = select.select([fd], [], [], 4)
        if ready:
            try:
                data = os.read(fd, 4096)
                _, _, _, _, _, efd, _ = struct.unpack_from("IBBHQii", data)
                os.write(fd, struct.pack("iI", efd, 0x02))  # FAN_DENY
            except OSError:
                pass  # (an event fd Landlock refuses: the kernel denies the open itself)
        return {"mark": ["ok", 0]}

    thread = threading.Thread(target=lambda: box.setdefault("r", _in_evaluator(attack)))
    thread.start()
    time.sleep(1.5)
    try:
        opened = (secret / "s").read_text() == "hi"
    except OSError:
        opened = False
    thread.join(10)
    assert opened


@needs_wall
def test_the_evaluator_dies_with_its_frontend(tmp_path):
    script = tmp_path / "frontend.py"
    script.write_text(
        "import ctypes, os, time\n"
        "from gradcli.kernel.process import run_task\n"
        "def attack():\n"
        "    ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)\n"
        "    print(os.getpid(), flush=True)\n"
        "    os.closerange(1, 1024)\n"
        "    time.sleep(5)\n"
        "run_task(attack, timeout=1)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    frontend = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                cwd=root, env=dict(os.environ, PYTHONPATH=root))
    evaluator = int(frontend.stdout.readline())
    time.sleep(0.3)
    frontend.kill()
    frontend.wait()
    time.sleep(0.5)
    try:
        with open(f"/proc/{evaluator}/stat") as f:
            alive = f.read().split(") ")[1][0] not in "ZX"
    except OSError:
        alive = False
    if alive:
        try:
            os.kill(evaluator, signal.SIGKILL)  # (our own grandchild: the attack's leftover)
        except OSError:
            pass
    assert not alive


# ---------------------------------------------------------------------- the protocol

def test_timeout_holds_when_the_evaluator_closes_its_pipes():
    def attack():
        import signal as s
        s.signal(s.SIGALRM, s.SIG_IGN)
        os.closerange(1, 1024)
        time.sleep(5)

    start = time.monotonic()
    try:
        run_task(attack, timeout=1)
    except EvaluatorGone as e:  # (ended for its silence, or at the timeout)
        assert e.kind in ("timeout", "crash")
    assert time.monotonic() - start < 3.5


def test_unanswered_ctrl_c_ends_the_evaluator_without_a_timeout():
    def attack():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        time.sleep(5)

    timers = [threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)),
              threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT))]
    for t in timers:
        t.start()
    start = time.monotonic()
    try:
        with pytest.raises(EvaluatorGone) as e:
            run_task(attack)
        assert e.value.kind == "interrupt"
        assert time.monotonic() - start < 4
    finally:
        for t in timers:
            t.cancel()


def _forged(lines):
    """A task that writes raw lines on the message pipe (as a compromised evaluator can)."""
    def task():
        fd = sys.stdout._channel.fd
        for line in lines:
            os.write(fd, line)
        os._exit(0)
    return task


def test_deeply_nested_message_is_not_a_frontend_error():
    try:
        run_task(_forged([b"[" * 200000 + b"\n"]), timeout=5)
    except EvaluatorGone:
        pass


def test_a_forged_exit_code_is_a_valid_exit_code():
    for forged in (10 ** 30, 256, -1):
        try:
            code = run_task(_forged([json.dumps({"r": forged}).encode() + b"\n"]), timeout=5)
        except EvaluatorGone:
            continue
        assert code in (0, 1, 2)


def test_a_line_without_end_is_relayed_or_refused_in_linear_time():
    chunk = b"x" * (1 << 16)
    start = time.monotonic()
    try:
        run_task(_forged([chunk] * 256), timeout=20)
    except EvaluatorGone:
        pass
    assert time.monotonic() - start < 1.5


def test_crafted_messages_of_the_wrong_shape_are_ignored():
    out = io.StringIO()
    lines = [b"not json\n", b"[1,2]\n", b'{"o": 5}\n', b'{"e": [1]}\n', b"\xff\xfe\n",
             b'{"o": "\\ud800"}\n', b'{"o": "fine\\n"}\n', b'{"r": "x"}\n', b'{"r": null}\n']
    try:
        code = run_task(_forged(lines), timeout=5, out=out, err=out)
    except EvaluatorGone as e:
        code = e.kind
    assert "fine" in out.getvalue()
    assert code in (0, 1, 2, "crash")


def test_forged_completions_cannot_break_the_prompt():
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from gradcli.cli.completer import Candidate, ReplCompleter
    completer = ReplCompleter(lambda text, cursor: [Candidate("x", 5, "m")])
    list(completer.get_completions(Document("ab"), CompleteEvent()))
