"""Red team, round 7: the commands and the REPL, as regression tests that state the SAFE
behaviour (they fail until fixed)."""

import io
import signal

import pytest

from gradcli.cli.replcore import ReplCore

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

    def hung(signum, frame):
        raise TimeoutError("the completion ran the program's endless getter")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        found = [text for text, _, _ in core.complete("c.", 2)]
        assert found == ["endless", "method", "shown"], found
        found = [text for text, _, _ in core.complete("m.si", 4)]
        assert found == ["size"], found
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "getter ran" not in out.getvalue(), out.getvalue()


def test_transcript_replay_takes_a_timeout(gradcli_process, tmp_path):
    """`gradcli test FILE` replays a transcript, a program from elsewhere as much as a `.grad`
    file, but had no --timeout: `>>> while True: pass` ran until Ctrl-C, where README promises
    --timeout to every program command.  Expected: --timeout stops the statement (its output
    is the one-line TimeoutError, a mismatch) and the replay goes on with the next."""
    transcript = tmp_path / "loop.txt"
    transcript.write_text(">>> x = 2\n>>> while True: pass\n... \n>>> x\n2\n")
    r = gradcli_process("test", str(transcript), "--timeout", "1")
    assert r.code == 1, (r.code, r.stdout, r.stderr)
    assert "+TimeoutError: program ran longer than 1 s" in r.stdout, r.stdout
    assert " >>> x\n 2\n" in r.stdout and "0/1 sessions match" in r.stdout, r.stdout
