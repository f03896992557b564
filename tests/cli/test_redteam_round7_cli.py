"""Red team, round 7: the commands and the REPL, as regression tests that state the SAFE
behaviour (they fail until fixed)."""

import io
import signal

import pytest

from gradcli.cli.replcore import ReplCore
from processes import ends_within

LOOPING_PROPERTY = ("class C:\n    @property\n    def shown(self):\n        print('getter ran')\n"
                    "        return 1\n    @property\n    def endless(self):\n        n = 0\n"
                    "        while n >= 0:\n            n += 1\n"
                    "        return n\n    def method(self):\n        return 2\n"
                    "class M(torch.nn.Module):\n    @property\n    def size(self):\n"
                    "        print('module getter ran')\n        return 3\n"
                    "c = C()\nm = M()\n")


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the test's bound is SIGALRM")
def test_completion_runs_no_program_code():
    """Tab completion of `c.` (the interactive REPL asks its evaluator) read every public
    attribute of c to see whether the sandbox lets a program read it: a property's getter, the
    program's code, ran then, outside any statement.  A getter that loops hung the REPL for
    good: the prompt waits for the evaluator's answer with its terminal in raw mode, where
    Ctrl-C is a key the waiting prompt never reads (and the REPL has no --timeout unless one
    is given).  Expected: the program's names offered without being read."""
    out = io.StringIO()
    core = ReplCore(out=out)
    core.execute("import torch\n" + LOOPING_PROPERTY)
    assert "Error" not in out.getvalue(), out.getvalue()

    with ends_within(20, "the completion ran the program's endless getter"):
        found = [text for text, _, _ in core.complete("c.", 2)]
        assert found == ["endless", "method", "shown"], found
        found = [text for text, _, _ in core.complete("m.si", 4)]
        assert found == ["size"], found
    assert "getter ran" not in out.getvalue(), out.getvalue()


def test_transcript_replay_takes_a_timeout(gradcli_process, tmp_path):
    """`gradcli test FILE` replays a transcript, a program from elsewhere as much as a `.grad`
    file, but had no --timeout: `>>> while True: pass` ran until Ctrl-C, where README promises
    --timeout to every program command.  Expected: the replay stopped, as any one-shot
    command's program is: the statement's own TimeoutError (a mismatch, exit 1) when the
    evaluator stops it, or the frontend's (exit 2) when its second of grace is over first
    (the machine is busy)."""
    transcript = tmp_path / "loop.txt"
    transcript.write_text(">>> x = 2\n>>> while True: pass\n... \n>>> x\n2\n")
    r = gradcli_process("test", str(transcript), "--timeout", "1")
    said = "TimeoutError: program ran longer than 1 s (raise the limit with --timeout)"
    if r.code == 1:
        assert "+" + said in r.stdout and "0/1 sessions match" in r.stdout, r.stdout
    else:
        assert (r.code, r.stderr) == (2, said + "\n"), (r.code, r.stdout, r.stderr)


def test_at_cannot_bind_a_guard_name(cli):
    """`--at _getattr=1` bound the name of the guard every attribute read of the program calls
    (a program's own `_getattr = 1` is refused when it compiles): the binding stood in front of
    the guard, and `x.shape` called the tensor it had become.  Expected: refused as the
    compiler refuses the name."""
    r = cli("eval", "y = x.sum()", "--at", "_getattr=1")
    assert r.code == 2, (r.code, r.stdout, r.stderr)
    assert "'_getattr' is a name gradcli reserves for itself" in r.stderr, r.stderr
    r = cli("eval", "y = _x * 2", "--at", "_x=1")  # (one `_` is a name like any other)
    assert r.code == 0, (r.code, r.stdout, r.stderr)


ENDLESS = "[v for v in iter(int, 1)]"  # (iter's sentinel is never met)


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the test's bound is SIGALRM")
@pytest.mark.parametrize("line", [f"type({ENDLESS})", f"{ENDLESS}?", f":graph len({ENDLESS})"],
                         ids=["type()", "x?", ":graph EXPR"])
def test_the_repl_stops_an_expression_of_a_habit_or_meta_command(line):
    """`gradcli repl --timeout 1` stops a statement after a second and keeps the session, but
    the expressions that `type(...)`, `dir(...)`, `help(...)`, `x?` and `:graph EXPR` evaluate
    ran with no time limit: only the frontend's deadline ended them, with the evaluator and
    every name of the session.  Expected: the one-line TimeoutError, the session kept."""
    out = io.StringIO()
    core = ReplCore(out=out)
    core.timeout = 1
    core.execute("kept = 3\n")

    with ends_within(20, "the expression ran on"):  # (or the session's own timer)
        core.execute(line)
    assert "TimeoutError: program ran longer than 1 s" in out.getvalue(), out.getvalue()
    assert core.namespace["kept"] == 3


def test_a_dual_level_left_open_ends_with_its_session(tmp_path):
    """`torch.autograd.forward_ad.enter_dual_level()` without its exit left the engine's one
    forward AD level open for every later session of the same evaluator: the next transcript
    session of `gradcli test` (or the REPL's after `:reset`) was refused `Nested forward mode
    AD is not supported`, its outcome decided by another session.  Expected: each session
    starts with no level open."""
    from gradcli.lang.transcript import replay_files
    transcript = tmp_path / "levels.txt"
    transcript.write_text(
        "## one\n>>> import torch.autograd.forward_ad as fwAD\n>>> fwAD.enter_dual_level()\n0\n"
        "\n## two\n>>> import torch.autograd.forward_ad as fwAD\n"
        ">>> with fwAD.dual_level():\n...     print('entered')\n... \nentered\n")
    out = io.StringIO()
    assert replay_files([str(transcript)], out) == 0, out.getvalue()
    core = ReplCore(out=io.StringIO())
    core.execute("import torch.autograd.forward_ad as fwAD\nfwAD.enter_dual_level()\n")
    core.execute(":reset")
    core.execute("import torch.autograd.forward_ad as fwAD\nwith fwAD.dual_level():\n"
                 "    print('entered')\n")
    assert core.out.getvalue().endswith("entered\n"), core.out.getvalue()
