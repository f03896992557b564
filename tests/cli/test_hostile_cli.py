"""`gradcli eval` on hostile input, as a script calling it in a loop would: each attempt exits 2
with one `Type: message` line on stderr, no traceback, within the timeout; and the piped REPL
survives a session made of all of them and still answers."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = [
    "x.__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd').read()",
    "__import__('os').system('echo pwned')",
    "import os",
    "from os import system",
    "eval('1+1')",
    "exec('x = 1')",
    "getattr(x, '_data')",
    "x._data",
    "globals()",
    "f'{x.__class__}'",
    "'{0.__class__}'.format(x)",
    "import numpy as np\nnp.load('/etc/passwd')",
    "import numpy as np\nnp.fromfile('/etc/passwd')",
    "x.numpy().tofile('/tmp/gradcli-pwned')",
    "x.detach().numpy().ctypes",
    "x.grad_fn.__call__",
    "[0] * 10**10",
    "'a' * 10**10",
    "10 ** 10 ** 10",
    "zeros(10**6, 10**6)",
    "def f():\n    return f()\nf()",
    "(" * 5000 + "1" + ")" * 5000,
    "while True:\n    pass",
    "x = 1 +",
    "\x00\x01\x02",
]


def _eval(program, timeout="2"):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "gradcli.cli.main", "eval", "-", "--at", "x=[1., 2.]",
         "--timeout", timeout], input=program, capture_output=True, text=True, env=env,
        timeout=60)


@pytest.mark.parametrize("program", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_eval_is_one_line_and_exit_2(program):
    r = _eval(program)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines and ": " in lines[0] and lines[0].split(":")[0].isidentifier(), r.stderr
    if not lines[0].startswith("SyntaxError"):  # syntax errors add the source and a caret
        assert len(lines) == 1, r.stderr
    assert not os.path.exists("/tmp/gradcli-pwned")


def test_piped_repl_survives_every_hostile_input():
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    session = "x = 1\n" + "".join(
        p + ("\n\n" if "\n" in p or p.startswith(("def", "while")) else "\n")
        for p in HOSTILE if not p.startswith("while")) + "1 + 1\n"
    r = subprocess.run([sys.executable, "-m", "gradcli.cli.main", "repl"], input=session,
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert r.stdout.rstrip().splitlines()[-1] == "2"
