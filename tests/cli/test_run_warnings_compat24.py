"""`gradcli run` writes a program's warnings where python writes them, on standard error (as
`file:line: UserWarning: message`), so its standard output is what the program prints under
PyTorch: the "grad is None" program of every Q&A site prints the same lines with both."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
import torch
a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 2
b.sum().backward()
print(a.grad)
print(b.grad)
"""

NONLEAF = ("UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being "
           "accessed.")


def _run(tmp_path, *options):
    path = tmp_path / "grad_is_none.py"
    path.write_text(PROGRAM, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "gradcli.cli.main", "run", *options,
                           str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_warnings_go_to_stderr_with_the_programs_line(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "tensor([2., 2.])\nNone\n"
    line, = r.stderr.splitlines()
    assert line.startswith(f"{tmp_path / 'grad_is_none.py'}:6: {NONLEAF}"), line


def test_the_piped_repl_still_shows_them_among_the_output():
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "gradcli.cli.main"], input=PROGRAM, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.stdout.splitlines()[1].startswith(NONLEAF)
    assert r.stdout.splitlines()[2] == "None"
