"""The evaluator process as the commands and the REPL use it: crashes, timeouts of C code that
holds the GIL, and the REPL surviving both (SPEC §7)."""

import io
import json
import os
import subprocess
import sys
import time

import pytest

from gradcli.lazy_modules import OP_HELPERS
from gradcli.ops.lazy import LAZY_MODULES
from tests.processes import ROOT

DAG = "t = ()\nfor i in range(100):\n    t = (t, t)\nprint(hash(t))\n"   # hash: 2**100 steps in C
DEEP = "t = ()\nfor i in range(1000000):\n    t = (t,)\nhash(t)\n"        # C recursion: SIGSEGV


def gradcli(*args, input=None, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "gradcli.cli.main", *args], input=input,
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize("command", ["run", "eval"])
def test_a_c_loop_holding_the_gil_ends_at_the_timeout(command):
    started = time.monotonic()
    p = gradcli(command, "-", "--timeout", "1", input=DAG)
    assert time.monotonic() - started < 1 + 2 + 1.5  # timeout + 2 s, and the start-up
    assert p.returncode == 2
    assert p.stderr == "TimeoutError: program ran longer than 1 s (raise the limit with " \
                       "--timeout)\n"


def test_a_crash_is_one_line():
    p = gradcli("run", "-", input=DEEP)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "gradcli: the program crashed the evaluator (SIGSEGV)\n"
    p = gradcli("eval", "-", "--json", input=DEEP)
    assert p.returncode == 2
    assert json.loads(p.stdout)["error"] == {
        "type": "EvaluatorCrash", "message": "the program crashed the evaluator (SIGSEGV)",
        "line": None, "column": None}


def test_the_piped_repl_survives_a_crash_and_a_timeout():
    p = gradcli("repl", "--timeout", "1",
                input="x = 3\n" + DEEP.replace("hash(t)\n", "\nhash(t)\n") + "y = 2\ny\n"
                      "while True: pass\n\ny + 1\n")
    assert p.returncode == 0
    assert p.stdout.splitlines() == [
        "gradcli: the program crashed the evaluator (SIGSEGV)",
        "gradcli: a new session started; lost: i, t, x",
        "2",
        "TimeoutError: program ran longer than 1 s (raise the limit with --timeout)",
        "3"]


def test_the_interactive_repl_survives_a_crash():
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from gradcli.cli.repl import Repl
    with create_pipe_input() as inp:
        repl = Repl(out=io.StringIO(), color=False, input=inp, output=DummyOutput(),
                    history_file=os.devnull)
        try:
            for text in ["x = 1", DEEP.rstrip(), "x", "y = 5", "y"]:
                assert repl.execute(text) is True
        finally:
            repl.close()
    assert repl.out.getvalue().splitlines() == [
        "gradcli: the program crashed the evaluator (SIGSEGV)",
        "a new session started; lost: x",  # (what the last answer reported)
        "NameError: name 'x' is not defined",
        "5"]


def test_every_program_command_runs_in_the_evaluator():
    """A program that reads a file meets the language wall; under it, the OS wall (in each
    command: the evaluator's /proc status says so)."""
    probe = "print(open)"
    for args in (["eval", probe], ["run", "-"], ["check", probe], ["graph", probe],
                 ["explain", probe], ["jacobian", "y = x", "--at", "x=1"]):
        p = gradcli(*args, input=probe if args[1] == "-" else None)
        assert "Traceback" not in p.stderr


def test_version_names_the_wall():
    p = gradcli("--version")
    assert p.returncode == 0
    assert p.stdout.splitlines()[1].startswith("evaluator wall: ")


def test_a_terminal_gets_colours_but_no_other_escape_sequence():
    from gradcli.kernel.bounds import terminal_safe
    assert terminal_safe("a\x1b[31mred\x1b[0m\tb\n") == "a\x1b[31mred\x1b[0m\tb\n"
    for hostile in ("\x1b]52;c;cHduZWQ=\x07", "\x1b]0;title\x1b\\", "\x1b[2J", "\x1bPq\x1b\\",
                    "\x9b31m", "\x07", "\x1bc", "\x1b[6n"):
        assert "\x1b" not in terminal_safe("x" + hostile + "y").replace("\x1b[", "") and \
            terminal_safe("x" + hostile + "y") in ("xy", "x31my")


def test_a_program_cannot_write_escape_sequences_to_a_terminal():
    """The frontend filters what reaches a terminal, and what goes to a pipe or a file, which
    is read on a terminal later (`gradcli run f.grad > out; cat out`)."""
    from gradcli.kernel.process import run_task

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out, piped = Terminal(), io.StringIO()
    for stream in (out, piped):
        assert run_task(lambda: print("a\x1b]52;c;eA==\x07b"), out=stream, err=stream) == 0
    assert out.getvalue() == "ab\n" and piped.getvalue() == "ab\n"


def test_a_piece_of_the_wall_that_fails_stops_the_evaluator(monkeypatch):
    """Fail closed: a Landlock this machine offers but that cannot be raised is no reason to
    run a program behind less."""
    from gradcli.kernel import wall
    from gradcli.kernel.process import run_task

    def broken(abi):
        raise OSError(22, "Invalid argument")
    monkeypatch.setattr(wall, "landlock_abi", lambda: 3)
    monkeypatch.setattr(wall, "_landlock", broken)
    out = io.StringIO()
    assert run_task(lambda: print("ran"), out=out, err=out) == 2
    assert out.getvalue() == ("gradcli: the evaluator failed: WallError: Landlock ([Errno 22] "
                              "Invalid argument)\n")


def test_the_evaluator_imports_no_language_module_of_its_own():
    """An evaluator writes nothing, so a module it imports first has its bytecode compiled
    anew on every run (an editable install); the frontend imports them before it forks."""
    code = ("import os, sys\n"
            "from gradcli.kernel.process import run_task\n"
            "from gradcli.lang import parser\n"
            "def task():\n"
            "    before = set(sys.modules)\n"
            "    from gradcli.analysis.evaluate import evaluate, parse_binding\n"
            "    evaluate('z = (2*x)**3', [parse_binding('x=3')], out=sys.stdout)\n"
            "    new = sorted(m for m in set(sys.modules) - before if m.startswith('gradcli.lang'))\n"
            "    print('new:', *new)\n"
            "run_task(task)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert p.stdout.strip().splitlines()[-1] == "new:", (p.stdout, p.stderr)


TRANSCRIPT = ">>> 1 + 1\n2\n"


@pytest.mark.parametrize("args", [
    ["eval", "y = x * 2", "--at", "x=1"], ["eval", "y = x * 2", "--at", "x=0:1:3"],
    ["check", "y = x * 2", "--at", "x=1", "--expect", "dy/dx=2"],
    ["check", "y = x * 2", "--at", "x=0:1:3", "--expect", "dy/dx=2"],
    ["jacobian", "y = x * 2", "--at", "x=1"], ["hessian", "y = x * x", "--at", "x=1"],
    ["graph", "y = x * 2", "--at", "x=1"], ["graph", "y = x * 2", "--at", "x=1", "--json"],
    ["explain", "y = x * 2", "--at", "x=1"], ["plot", "y = x * 2", "--at", "x=-1:1"],
    ["run", "examples/training_loop.grad"], ["test", "TRANSCRIPT"]], ids=lambda a: " ".join(a))
def test_a_one_shot_command_imports_the_engine_in_its_evaluator_only(args, tmp_path):
    """The console script starts a program command's evaluator before its own imports: the
    frontend (typer) never imports NumPy or the engine, the evaluator never imports typer, and
    it imports every gradcli module its task uses before its wall (which keeps an editable
    install from caching the bytecode of one imported after it).  The exception: the engine's
    submodules that load at a program's first use of them (torch.nn, torch.optim, ...), which
    the wall lets it read and whose bytecode lang.parser.prepare caches before it (the test
    below); a program that does not use them imports nothing after the wall."""
    if args[-1] == "TRANSCRIPT":
        (tmp_path / "t.txt").write_text(TRANSCRIPT)
        args = [*args[:-1], str(tmp_path / "t.txt")]
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "kernel" / "one_shot_driver.py"),
                        *args], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    reports = {r["side"]: r for r in (json.loads(line.split(" ", 1)[1])
                                      for line in p.stderr.splitlines()
                                      if line.startswith("REPORT "))}
    assert reports["frontend"] == {"side": "frontend", "numpy": False, "engine": []}
    evaluator = reports["evaluator"]
    lazy = [m for m in evaluator["after_wall"] if m.split(".")[1] in LAZY_SUBMODULES
            or m.rpartition(".")[0] == "gradcli.ops" and m.rpartition(".")[2] in LAZY_OPS]
    assert [m for m in lazy if not m.startswith("gradcli.ops.")] == (
        [] if args[0] != "run" else ["gradcli.nn", "gradcli.nn.clip_grad",
                                     "gradcli.nn.composite_losses", "gradcli.nn.conv",
                                     "gradcli.nn.convert_parameters", "gradcli.nn.functional",
                                     "gradcli.nn.hooks", "gradcli.nn.init",
                                     "gradcli.nn.losses", "gradcli.nn.module",
                                     "gradcli.nn.modules",
                                     "gradcli.nn.parameter", "gradcli.nn.rnn",
                                     "gradcli.nn.rnn_utils", "gradcli.nn.utils",
                                     "gradcli.optim", "gradcli.optim.lbfgs",
                                     "gradcli.optim.lr_scheduler", "gradcli.optim.more",
                                     "gradcli.optim.schedulers"])
    # (the op modules its program uses: the test's transcript sorts, the training loop's
    # model multiplies matrices; nothing for the rest)
    assert bool([m for m in lazy if m.startswith("gradcli.ops.")]) == (args[0] in ("run", "test"))
    assert {**evaluator, "after_wall": [m for m in evaluator["after_wall"] if m not in lazy]} \
        == {"side": "evaluator", "typer": False, "after_wall": []}


LAZY_SUBMODULES = ("cuda", "func", "linalg", "nn", "optim", "utils")  # (gradcli.api's)
LAZY_OPS = LAZY_MODULES + OP_HELPERS  # (gradcli.ops.lazy's, and those loaded where needed)


def test_the_bytecode_of_the_modules_loaded_at_first_use_is_cached_before_the_wall(tmp_path):
    """An editable install (a source tree without bytecode): the frontend, before it starts an
    evaluator (whose wall lets it write nothing), writes the bytecode of torch.nn, torch.optim,
    ..., of the torch.autograd submodules and the op modules that load at first use, without
    importing them or NumPy, so that a program that imports one behind the wall does not
    compile it each time."""
    import shutil
    from gradcli import api, autograd
    from gradcli.lazy_modules import AUTOGRAD_SUBMODULES, OP_MODULES
    assert api._LAZY_SUBMODULES == LAZY_SUBMODULES
    assert autograd._LAZY_SUBMODULES == AUTOGRAD_SUBMODULES and OP_MODULES == LAZY_MODULES
    shutil.copytree(ROOT / "gradcli", tmp_path / "gradcli",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    code = ("import sys\nfrom gradcli.lazy_modules import cache_bytecode\ncache_bytecode()\n"
            "print(sorted(m for m in sys.modules if m.startswith('gradcli.') or m == 'numpy'))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "['gradcli.lazy_modules', 'gradcli.version']"
    tag = sys.implementation.cache_tag
    expected = {f"nn/__pycache__/{m}.{tag}.pyc"
                for m in ("__init__", "functional", "init", "modules", "parameter")}
    expected |= {f"optim/__pycache__/__init__.{tag}.pyc"}
    expected |= {f"__pycache__/{m}.{tag}.pyc" for m in ("func", "linalg", "cuda")}
    expected |= {f"ops/__pycache__/{m}.{tag}.pyc" for m in LAZY_OPS}
    expected |= {f"autograd/__pycache__/{m}.{tag}.pyc" for m in AUTOGRAD_SUBMODULES}
    written = {str(f.relative_to(tmp_path / "gradcli"))
               for f in (tmp_path / "gradcli").rglob(f"*.{tag}.pyc")}
    assert expected <= written
    assert not any(f.startswith("ops/__pycache__/registry.") for f in written)  # (only those)


def test_a_prestarted_evaluator_that_gets_no_task_ends_quietly():
    """--help and a usage error end the frontend before it sends a task: nothing more is
    printed than click's text, and the evaluator (which saw no program) is gone with it."""
    p = gradcli("eval", "--help")
    assert p.returncode == 0 and p.stdout.startswith("Usage: ") and p.stderr == ""
    p = gradcli("eval", "y = x", "--no-such-option")
    assert p.returncode == 2 and "No such option" in p.stderr and "Traceback" not in p.stderr
    p = gradcli("eval", "y = x", "--mode", "x")  # (eval has no --mode)
    assert p.returncode == 2 and p.stdout == ""

