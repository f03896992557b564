"""Red team, round 8: the commands and the REPL, as regression tests that state the SAFE
behaviour (they fail until fixed)."""

import io
import signal

import pytest

from gradcli.cli.replcore import ReplCore
from processes import ends_within

CHAIN = ("import torch\nx = torch.ones(1, requires_grad=True)\ny = x\n"
         "for i in range({n}):\n    y = y * 1.0001\n")


def _deepest_line(text):
    return max(len(line) for line in text.splitlines())


def test_the_graph_of_a_long_chain_is_drawn_in_linear_space(cli):
    """`gradcli graph` (and the REPL's `:graph`) drew each node of a chain one indentation
    deeper than its parent: a loop of n ops (`y = y * w`, a second's work for 10 ** 5 of them)
    made 3 * n ** 2 / 2 characters, 600 MB of spaces for 20,000 ops, 15 GB for 10 ** 5, all
    of it relayed to the terminal.  Expected: a node past the 40th level drawn at the 40th
    level's indentation with its level, every line as short as there."""
    r = cli("graph", CHAIN.format(n=400))
    assert r.code == 0, (r.code, r.stdout, r.stderr)
    lines = r.stdout.splitlines()
    assert len(lines) == 402, len(lines)  # the output's name, 400 nodes, the leaf
    assert lines[-1].endswith("level 401: x (leaf, AccumulateGrad)"), lines[-1]
    assert _deepest_line(r.stdout) < 200, _deepest_line(r.stdout)
    shallow = cli("graph", CHAIN.format(n=30)).stdout.splitlines()
    assert "level" not in "".join(shallow) and shallow[-1].strip().startswith("└─ x (leaf")


def test_the_repl_graph_of_a_long_chain_is_drawn_in_linear_space():
    out = io.StringIO()
    core = ReplCore(out=out)
    core.execute(CHAIN.format(n=2000))
    out.seek(0)
    out.truncate()
    core.execute(":graph y")
    text = out.getvalue()
    assert "level 2001: x (leaf, AccumulateGrad)" in text, text[-300:]
    assert len(text) < 2002 * 250, len(text)


LOOPING_HOOK = ("import torch\nx = torch.ones(2, requires_grad=True)\ndef hook(g):\n    n = 0\n"
                "    while n >= 0:\n        n += 1\n    return g\ny = x * 2\n"
                "y.register_hook(hook)\nz = y.sum()\n")


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the test's bound is SIGALRM")
@pytest.mark.parametrize("line", [":graph z", ":explain z"])
def test_the_repl_stops_a_traced_backward_pass(line):
    """`:graph z` and `:explain z` trace a backward pass of z when the program ran none, and
    that pass calls the program's hooks (and custom Functions), which ran with no time limit
    under `gradcli repl --timeout 1`: a hook that loops was ended only by the frontend's
    deadline, with the evaluator and every name of the session.  Expected: the one-line
    TimeoutError, the session kept."""
    out = io.StringIO()
    core = ReplCore(out=out)
    core.timeout = 1
    core.execute(LOOPING_HOOK)

    with ends_within(20, "the traced pass ran on"):  # (or the session's own timer)
        core.execute(line)
    assert "TimeoutError: program ran longer than 1 s" in out.getvalue(), out.getvalue()
    core.execute("print('kept', y.shape)\n")
    assert out.getvalue().endswith("kept torch.Size([2])\n"), out.getvalue()


def test_a_traced_pass_that_fails_says_why_in_one_line():
    out = io.StringIO()
    core = ReplCore(out=out)
    core.execute("import torch\nx = torch.ones(2, requires_grad=True)\n"
                 "def hook(g):\n    raise ValueError('boom')\n"
                 "y = x * 2\ny.register_hook(hook)\nz = y.sum()\n")
    out.seek(0)
    out.truncate()
    core.execute(":explain z")
    assert out.getvalue() == "ValueError: boom\n", out.getvalue()
