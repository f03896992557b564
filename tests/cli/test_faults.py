"""Fault tolerance of the command line as a process: a reader that goes away (`| head`), a
closed standard output or input, bytes that are not UTF-8, an unwritable cache or home, a
corrupt grammar cache.  Each ends cleanly: no traceback, the documented exit code."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOOP = "for i in range(200000):\n    print(i)\n"


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.update(extra)
    return env


def _cmd(*args):
    return [sys.executable, "-m", "gradcli.cli.main", *args]


def _no_traceback(text):
    assert "Traceback" not in text, text


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="no SIGPIPE on this platform")
@pytest.mark.parametrize("args, stdin", [(("run", "-"), LOOP), (("repl",), LOOP + "\n")])
def test_reader_that_goes_away_ends_the_process_quietly(args, stdin):
    p = subprocess.Popen(_cmd(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env())
    p.stdin.write(stdin.encode())
    p.stdin.close()
    assert p.stdout.readline() == b"0\n"
    p.stdout.close()  # what `head -1` does
    p.wait(timeout=60)
    err = p.stderr.read().decode()
    assert p.returncode == -signal.SIGPIPE, err
    assert err == ""


def test_closed_standard_output_is_one_line_and_exit_2():
    p = subprocess.run(_cmd("eval", "y = x", "--at", "x=1"), stderr=subprocess.PIPE,
                       env=_env(), preexec_fn=lambda: os.close(1), timeout=60)
    assert p.returncode == 2
    assert p.stderr.decode() == "OSError: standard output is closed\n"


def test_closed_standard_input_reads_as_empty():
    p = subprocess.run(_cmd("run", "-"), capture_output=True, env=_env(),
                       preexec_fn=lambda: os.close(0), timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")


def test_program_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "bad.grad"
    path.write_bytes(b"x = 1\ny = x \xff 2\n")
    p = subprocess.run(_cmd("run", str(path)), capture_output=True, env=_env(), timeout=60)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2
    _no_traceback(err)
    assert err == f"UsageError: {path} is not UTF-8 text\n"


def test_piped_repl_survives_bytes_that_are_not_utf8():
    p = subprocess.run(_cmd("repl"), input=b"\xff\xfe\n1 + 1\n", capture_output=True,
                       env=_env(), timeout=60)
    assert p.returncode == 0
    _no_traceback(p.stderr.decode("utf-8", "replace"))
    assert p.stdout.decode("utf-8", "replace").splitlines()[-1] == "2"


@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "HOME"])
def test_unwritable_cache_and_home(tmp_path, variable):
    blocker = tmp_path / "file"  # a file where a directory should be: nothing can be made below
    blocker.write_text("")
    env = _env(**{variable: str(blocker / "sub")})
    p = subprocess.run(_cmd("eval", "z = (2*x)**3", "--at", "x=3"), capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert p.stdout.splitlines()[-1] == "dz/dx = 216."


def test_corrupt_grammar_cache_is_rebuilt(tmp_path):
    env = _env(XDG_CACHE_HOME=str(tmp_path))
    first = subprocess.run(_cmd("eval", "y = x * 2", "--at", "x=1"), capture_output=True,
                           text=True, env=env, timeout=60)
    assert first.returncode == 0, first.stderr
    caches = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert caches, "no parser cache was written"
    for path in caches:
        path.write_bytes(b"\x80not a pickle")
    second = subprocess.run(_cmd("eval", "y = x * 2", "--at", "x=1"), capture_output=True,
                            text=True, env=env, timeout=60)
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")


def test_timeout_ends_a_c_call_that_ignores_the_alarm():
    """A single C call (a huge matmul in BLAS) does not return to Python for the alarm: the
    frontend ends the evaluator a second after --timeout, with the same one line."""
    code = (
        "import signal, sys, time, typer\n"
        "from gradcli.cli import tasks\n"
        "from gradcli.cli.app import Command\n"
        "def stuck(task):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "    time.sleep(30)\n"
        "tasks.TASKS['stuck'] = stuck  # (a task as a C call that ignores the alarm)\n"
        "try:\n"
        "    with Command(timeout=0.2) as cmd:\n"
        "        cmd.evaluate('stuck')\n"
        "except typer.Exit as e:\n"
        "    sys.exit(e.exit_code)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(),
                       timeout=60)
    assert p.returncode == 2
    assert p.stderr == ("TimeoutError: program ran longer than 0.2 s (raise the limit with "
                        "--timeout)\n")


# (growth that no language limit meters, each step within the limits: list.extend(x) doubling
# is refused by the item limit)
DOUBLING = "x = []\nfor i in range(10**6):\n    x.append([i] * 10**6)\n"


def test_memory_backstop_turns_unbounded_growth_into_one_line():
    p = subprocess.run(_cmd("eval", "-"), input=DOUBLING, capture_output=True, text=True,
                       env=_env(GRADCLI_MAX_MEMORY="1G"), timeout=120)
    assert p.returncode == 2
    assert p.stderr == ("MemoryError: out of memory (raise the process limit with "
                        "GRADCLI_MAX_MEMORY)\n")


def test_piped_repl_survives_running_out_of_memory():
    p = subprocess.run(_cmd("repl"), input=DOUBLING + "\n1 + 1\n", capture_output=True,
                       text=True, env=_env(GRADCLI_MAX_MEMORY="1G"), timeout=120)
    assert p.returncode == 0
    assert p.stdout.splitlines() == ["MemoryError", "2"]


@pytest.mark.parametrize("args, code, lines", [
    (("run", "-"), 0, 20000), (("check", "y = x ** 2", "--at", "x=3", "--expect", "x.grad=5"), 1, 2),
    (("eval", "y = ", "--at", "x=3"), 2, 0)])
def test_a_one_shot_command_exits_at_once_with_all_its_output(tmp_path, args, code, lines):
    """The console script skips the interpreter's teardown after a one-shot command (os._exit):
    everything written before is in the file, and the exit code is the command's."""
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        p = subprocess.run(_cmd(*args), input="for i in range(20000):\n    print(i)\n",
                           stdout=f, stderr=subprocess.PIPE, text=True, env=_env(), timeout=120)
    assert p.returncode == code, p.stderr
    text = out.read_text()
    assert len(text.splitlines()) == lines
    if args[0] == "run":
        assert text.endswith("19999\n")


def test_closed_standard_error_keeps_the_exit_codes():
    # `2>&-`: the errors go unseen; a program's error is still exit 2, not an exit 1 from
    # writing to a stream that is not there
    for program, code in (("z = y*2", 2), ("z = x*2", 0)):
        p = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh",
                            *_cmd("eval", program, "--at", "x=3")],
                           capture_output=True, text=True, env=_env(), timeout=60)
        assert p.returncode == code, (program, p.stdout)
        assert "Traceback" not in p.stdout
    p = subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh",
                        *_cmd("check", "z = x*2", "--at", "x=3", "--expect", "x.grad=3")],
                       capture_output=True, text=True, env=_env(), timeout=60)
    assert p.returncode == 1 and "FAIL x.grad" in p.stdout


@pytest.mark.parametrize("encoding, line", [("utf-8", "a\\ud800b é"),
                                            ("ascii", "a\\ud800b \\xe9")])
def test_text_the_output_cannot_encode_is_shown_escaped(encoding, line):
    # a lone surrogate (or, on an ASCII stream, any non-ASCII character) in printed text is
    # written escaped, as repr writes it, not the line lost
    p = subprocess.run(_cmd("eval", 'print("a\\ud800b é"); print("next")'),
                       capture_output=True, env=_env(PYTHONIOENCODING=encoding), timeout=60)
    assert p.stdout.decode(encoding).splitlines() == [line, "next"]


# Ctrl-C from the terminal reaches the process group: the frontend while it imports (before
# any program runs) and the evaluator while it loads, before it leaves that group
EARLY = [0.002, 0.01, 0.02, 0.04, 0.06, 0.09, 0.13, 0.2, 0.3, 0.5]


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="no process groups on this platform")
@pytest.mark.parametrize("json_output", [False, True])
def test_ctrl_c_at_any_moment_of_start_up_is_one_line(json_output):
    # as the console script starts (_gradcli_console); R is written once its code runs
    # (its first call, gc.disable, writes it)
    code = ("import gc, os, sys\nimport _gradcli_console\npause = gc.disable\n"
            "def disable():\n    pause()\n    gc.disable = pause\n    os.write(2, b'R')\n"
            "gc.disable = disable\n"
            "sys.argv = ['gradcli', 'eval', 'while True: pass'"
            + (", '--json'" if json_output else "") + "]\n_gradcli_console.run()\n")
    seen = set()
    for delay in EARLY:
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=_env(), start_new_session=True)
        assert p.stderr.read(1) == b"R"
        import time
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 2, (delay, out, err)
        if json_output:
            import json
            assert err == b""
            assert json.loads(out) == {"error": {"type": "KeyboardInterrupt",
                                                 "message": "interrupted",
                                                 "line": None, "column": None}}
        else:
            assert (delay, out, err) == (delay, b"", b"KeyboardInterrupt: interrupted\n")
        seen.add(delay)
    assert seen == set(EARLY)


@pytest.fixture
def evaluator_sigint():
    """run_task runs in an evaluator process, where it ignores SIGINT once its task is over:
    in this process, SIGINT's handler is put back afterwards."""
    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_while_the_evaluator_loaded_is_reported_by_its_task(evaluator_sigint):
    from gradcli.cli.tasks import run_task
    import io
    err = io.StringIO()
    import contextlib
    def begin():  # (the prestarted evaluator's, with a Ctrl-C kept while it loaded)
        raise KeyboardInterrupt
    with contextlib.redirect_stderr(err):
        code = run_task({"task": "eval", "state": {"mode": "plain"}, "params": {}}, begin)
    assert code == 2
    assert err.getvalue() == "KeyboardInterrupt: interrupted\n"


@pytest.mark.parametrize("failing", [False, True])
def test_a_ctrl_c_after_the_task_ends_changes_nothing(evaluator_sigint, monkeypatch, failing):
    """A Ctrl-C that comes once the task's work is over (while it renders its result or reports
    its error, or while the evaluator answers) neither cuts the report short nor escapes as the
    evaluator's last-resort error: the task's own outcome stands."""
    import contextlib
    import io
    from gradcli.cli import tasks
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def interrupted_report(self, exc):
        os.kill(os.getpid(), signal.SIGINT)  # (delivered at once: SIGINT to this thread)
        return reported(self, exc)
    reported = tasks.Task.report
    monkeypatch.setattr(tasks.Task, "report", interrupted_report)
    monkeypatch.setitem(tasks.TASKS, "late",
                        lambda task: 1 / 0 if failing else os.kill(os.getpid(), signal.SIGINT))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = tasks.run_task({"task": "late", "state": {"mode": "plain"}, "params": {}})
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if failing:
        assert (code, err.getvalue()) == (2, "ZeroDivisionError: division by zero\n")
    else:  # (the task's own Ctrl-C, before it was over, is the task's KeyboardInterrupt)
        assert (code, err.getvalue()) == (2, "KeyboardInterrupt: interrupted\n")


@pytest.mark.parametrize("size, expected", [((0, 0), ("80", "24")), ((1, 1), ("40", "1")),
                                            ((132, 50), ("132", "50"))])
def test_the_evaluator_gets_a_terminal_size_it_can_print_in(monkeypatch, size, expected):
    # a terminal that says 0x0 is of unknown size (rich printed nothing at 0 columns); a
    # narrower one than a short table gets lines it wraps itself
    from gradcli.kernel import child
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size(size))
    assert child._terminal_size(sys.stdout) == dict(zip(("COLUMNS", "LINES"), expected))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pty of size 0x0")
def test_a_terminal_of_size_zero_still_shows_the_results():
    import pty
    import struct
    import termios
    import fcntl
    pid, fd = pty.fork()
    if pid == 0:  # (the child: a terminal of 0 rows and 0 columns, as a serial line says)
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
            os.environ.update(_env())
            os.environ.pop("NO_COLOR", None)
            os.execv(sys.executable, _cmd("eval", "z = (2*x)**3", "--at", "x=3"))
        finally:
            os._exit(127)
    output = b""
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except OSError:  # (the pty's end)
            break
        if not data:
            break
        output += data
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    import re
    text = re.sub(rb"\x1b\[[0-9;]*m", b"", output).decode()
    assert [line.split() for line in text.splitlines() if line.strip()] == [
        ["name", "value"], ["x", "3."], ["z", "216."], ["gradient", "value"], ["dz/dx", "216."]]


def test_an_interrupt_during_the_json_import_still_writes_the_json_error():
    # Ctrl-C can land while `json` itself is being imported: the handler must not import it
    # (CI met "partially initialized module 'json' has no attribute 'dumps'")
    code = ("import sys, types\nhalf = types.ModuleType('json')\nsys.modules['json'] = half\n"
            "from gradcli.cli.main import interrupted\ninterrupted(['eval', 'x', '--json'])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, env=_env(), timeout=60)
    assert (p.returncode, p.stderr) == (2, b"")
    import json
    assert p.stdout == (json.dumps({"error": {"type": "KeyboardInterrupt", "message": "interrupted",
                                              "line": None, "column": None}}, indent=2)
                        + "\n").encode()


@pytest.mark.skipif(os.geteuid() != 0 or os.path.exists("/nonexistent"),
                    reason="only root's evaluator gives up its real uid (for the overflow "
                           "user's, whose home is /nonexistent), and /nonexistent must not "
                           "be there already")
def test_roots_evaluator_without_home_keeps_its_cache_in_roots_home(tmp_path):
    """An evaluator of root's gives up its real uid for the overflow user's; without HOME, `~`
    was then that user's home, /nonexistent, which the evaluator made (its file-system uid
    stays root's) to write gradcli's cache there."""
    env = {k: v for k, v in _env().items() if k not in ("HOME", "XDG_CACHE_HOME")}
    try:
        for args, given in ((("eval", "z = x * 2", "--at", "x=1"), None),
                            (("repl",), b"x = 1\n")):
            p = subprocess.run(_cmd(*args), input=given, capture_output=True, env=env,
                               timeout=60)
            assert p.returncode == 0, p.stderr
        assert not os.path.exists("/nonexistent")
    finally:
        if os.path.isdir("/nonexistent/.cache/gradcli"):  # (what the bug made, and no more)
            import shutil
            shutil.rmtree("/nonexistent")
