"""Red team, round 2: each confirmed finding as a regression test asserting the SAFE behaviour.
The holes they found were closed in the language's limits and sandbox, the frontends' reading
of files and the relay of what an evaluator reports."""

import io
import os
import resource
import subprocess
import sys

import pytest

from tests.processes import ROOT

DEEP = "t = ()\nfor i in range(1000000):\n    t = (t,)\nhash(t)\n"   # C recursion: SIGSEGV


def gradcli(*args, input=None, stdin=None, env=None, timeout=60, preexec_fn=None):
    """`gradcli ARGS` as a real process: (exit code, stdout, stderr)."""
    environment = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1",
                       GRADCLI_MAX_MEMORY="512M", **(env or {}))
    p = subprocess.run([sys.executable, "-m", "gradcli.cli.main", *args], input=input,
                       stdin=stdin, capture_output=True, text=True, env=environment,
                       timeout=timeout, cwd=ROOT, preexec_fn=preexec_fn)
    return p.returncode, p.stdout, p.stderr


# ---------------------------------------------------------------------- the language wall

@pytest.mark.parametrize("source", [
    "len('a' * np.int64(10 ** 7 + 1))",
    "len([0] * np.int64(10 ** 7 + 1))",
    "len(np.int64(10 ** 7 + 1) * (0,))",
    "x = [0]\nx *= np.int64(10 ** 7 + 1)\nlen(x)",
])
def test_repetition_by_a_numpy_integer_is_metered(attack, source):
    error = attack.error(source)
    assert error.format()[0].startswith("MemoryError: sequence too long")


NUMPY_GROWTH = {
    "concatenate of a repeated list": "np.concatenate([np.zeros(100)] * 100)",
    "stack of a repeated list": "np.stack([np.zeros(100)] * 100)",
    "array of a list of arrays": "np.array([np.zeros((1, 100))] * 100)",
    "diag offset": "np.diag(np.ones(1), 100)",
    "ones_like shape=": "np.ones_like(np.zeros(1), shape=(100, 100))",
    "method dot (outer)": "np.zeros((100, 1)).dot(np.zeros((1, 100)))",
    "method clip broadcasting": "np.zeros((100, 1)).clip(np.zeros((1, 100)))",
    "comparison broadcasting": "np.zeros((100, 1)) == np.zeros((1, 100))",
    "ordering broadcasting": "np.zeros((100, 1)) < np.zeros((1, 100))",
}


@pytest.mark.parametrize("source", NUMPY_GROWTH.values(), ids=NUMPY_GROWTH.keys())
def test_numpy_results_over_the_element_limit_are_refused(source):
    code, out, err = gradcli("eval", f"import numpy as np\nn = ({source}).size",
                             env={"GRADCLI_MAX_ELEMENTS": "1000"})
    assert code == 2 and "exceeds the limit of 1000 elements" in err, (out, err)


def test_print_file_is_no_way_around_the_callable_check(attack):
    # object is refused as a callee (`int.mro()[-1]("x")`), yet print calls it as file.write
    error = attack.error("def m():\n    pass\nm.write = int.mro()[-1]\nprint('x', file=m)\n")
    assert "is not available in gradcli programs" in error.format()[0]


def test_mro_does_not_hand_out_a_denied_builtin(attack):
    # (a class's bases end in object: mro is not offered at all)
    error = attack.error("int.mro()")
    assert "'mro' is not available in gradcli programs" in error.format()[0]


# ---------------------------------------------------------------------- the frontends

def _limit_address_space():
    # (the machine is shared: a frontend that reads without bound stops at 3 GB)
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_an_endless_program_on_stdin_is_refused_without_reading_it_all():
    with open("/dev/zero", "rb") as zero:
        code, out, err = gradcli("eval", "-", stdin=zero, preexec_fn=_limit_address_space)
    assert code == 2 and "program too long" in err, err


def test_a_huge_timeout_still_runs_the_program():
    code, out, err = gradcli("eval", "y = 2 * 3", "--timeout", "1e300")
    assert code == 0 and "y = 6" in out, err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_forged_state_cannot_write_escape_sequences_to_the_terminal(monkeypatch):
    from gradcli.cli import replcore
    forged = "x\x1b]52;c;ZWNobyBoaQ==\x07\x1b[21t"
    monkeypatch.setattr(replcore.ReplCore, "state",
                        lambda self: {"grad": True, "dtype": "float32", "names": [forged]})
    out = _Terminal()
    piped = replcore.PipedSession(out, timeout=20)
    try:
        piped.run("x = 1")
        piped.run(DEEP)
    finally:
        piped.close()
    assert "a new session started" in out.getvalue()  # (the forged name is no identifier)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
