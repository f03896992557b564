"""The example programs and the README's examples, run as a user runs them.

Each examples/*.grad program is plain Python on `import torch`, so real PyTorch (when the oracle
is installed) runs the same source: gradcli must print exactly what PyTorch prints.  The README's
`$ gradcli …` lines run as commands and must succeed; where README shows their output, gradcli
must print it."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.grad"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _gradcli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "gradcli.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_there_are_at_least_eight_examples():
    assert len(EXAMPLES) >= 8, [p.name for p in EXAMPLES]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path):
    r = _gradcli("run", str(path))
    assert r.returncode == 0, r.stderr
    # (nothing on standard error but, for a program that saves, the note that its files stay
    # in memory)
    if "torch.save(" in path.read_text(encoding="utf-8"):
        assert re.fullmatch(r"note: torch\.save\('[^']*'\) keeps the file in this session's "
                            r"memory \(gradcli programs write no file\)\n", r.stderr), r.stderr
    else:
        assert r.stderr == ""
    assert r.stdout.strip(), f"{path.name} prints nothing"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_prints_what_pytorch_prints(path, tmp_path, oracle):
    def printed(torch):
        script = tmp_path / (path.stem + ".py")
        script.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        run = subprocess.run([sys.executable, "-W", "ignore", str(script)], capture_output=True,
                             text=True, timeout=300, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        return run.stdout
    expected = oracle(printed)
    got = _gradcli("run", str(path))
    assert got.stdout == expected


def readme_commands():
    """(command line, shown output) for every `$ gradcli …` line in README's indented blocks;
    shown output is the lines up to the next blank line or `$` (None when `...` elides some)."""
    lines = README.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\s{4}\$ (gradcli .*)$", line)
        if not m:
            continue
        command = m.group(1).split("  #")[0].split(" && ")[0].strip()
        shown = []
        for follow in lines[i + 1:]:
            if not follow.strip() or follow.lstrip().startswith("$"):
                break
            shown.append(follow[4:])
        out.append((command, None if any("..." in s for s in shown) else shown))
    return out


COMMANDS = readme_commands()


def test_readme_shows_commands():
    assert len(COMMANDS) >= 8


@pytest.mark.parametrize("command, shown", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command(command, shown):
    args = shlex.split(command)[1:]
    if not args:  # the interactive REPL: tested in test_repl.py
        pytest.skip("the interactive REPL needs a terminal (tests/cli/test_repl.py drives it)")
    if args[0] == "test":
        args = ["test"] + [str(p) for p in sorted((ROOT / "tests" / "transcripts").glob("*.txt"))]
    r = _gradcli(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    if shown:
        assert r.stdout.splitlines() == shown
