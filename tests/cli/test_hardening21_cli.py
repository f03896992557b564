"""Issue #17's leftovers (hardening21), through the command line.

Ctrl-C at the REPL's prompt: as Python's REPL, `KeyboardInterrupt` and a new prompt, the line
(or lines) typed so far dropped; Ctrl-D on an empty line still ends the REPL.

`graph --format svg|png` under --timeout: Graphviz's dot runs after the evaluator, in the
frontend, and gets what is left of the command's --timeout (not all of it again), so that the
command ends within its timeout and a grace second or two; at its time dot and everything in
its process group are killed, and the command ends with one TimeoutError line, exit 2.  A fake
`dot` on PATH shows the limits it is given and what it leaves running."""

import json
import os
import subprocess
import sys
import time

import pytest
import typer

from tests.cli.test_repl import CTRL_C, CTRL_D, ENTER, lines, repl_run  # noqa: F401 (fixture)
from tests.processes import ROOT, alive, fake_dot

SMALL = "z = (2*x)**3"
LINUX_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a fake dot is a shell script; limits are Linux's")
DOCUMENT = json.dumps({"nodes": [{"id": "n1", "label": "x", "leaf": True}], "edges": [],
                       "roots": {"z": "n1"}, "outputs": ["z"]})


def _command_started(seconds_ago, timeout):
    from gradcli.cli.app import Command
    cmd = Command(timeout=timeout)
    cmd.started -= seconds_ago
    return cmd


@LINUX_ONLY
def test_dot_gets_what_is_left_of_the_timeout(tmp_path, monkeypatch):
    """A command 3 s into its --timeout 5 (the evaluator's part) gives dot 2 s: its CPU limit
    is ceil(2) + 1 (a whole --timeout 5 gave it 6)."""
    from gradcli.cli.app import _write_graph_picture
    monkeypatch.setenv("PATH", fake_dot(tmp_path, 'echo "$(ulimit -t)"')["PATH"])
    out = tmp_path / "g.svg"
    _write_graph_picture(_command_started(3, 5), DOCUMENT, "svg", str(out))
    assert 1 <= int(out.read_text()) <= 3


@LINUX_ONLY
def test_no_time_left_never_starts_dot(tmp_path, monkeypatch, capsys):
    from gradcli.cli.app import _write_graph_picture
    ran = tmp_path / "ran"
    monkeypatch.setenv("PATH", fake_dot(tmp_path, f"touch {ran}")["PATH"])
    with pytest.raises(typer.Exit) as info:
        _write_graph_picture(_command_started(6, 5), DOCUMENT, "svg", str(tmp_path / "g.svg"))
    assert info.value.exit_code == 2
    assert capsys.readouterr().err == (
        "TimeoutError: Graphviz's dot ran past --timeout 5 s (raise the limit with --timeout; "
        "--format dot writes the DOT text)\n")
    assert not ran.exists() and not (tmp_path / "g.svg").exists()


@LINUX_ONLY
def test_timeout_kills_dot_and_its_process_group(tmp_path):
    """dot (here a shell that starts a child of its own and waits) is killed with everything
    it started, at the command's --timeout: one TimeoutError line, exit 2, nothing left."""
    pids = tmp_path / "pids"
    env = fake_dot(tmp_path, f"sleep 300 &\necho $! >> {pids}\necho $$ >> {pids}\nwait")
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "gradcli.cli.main", "graph", SMALL, "--at", "x=3",
                        "--format", "svg", "--timeout", "3"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), **env), cwd=ROOT,
                       timeout=60)
    started = [int(n) for n in pids.read_text().split()] if pids.exists() else []
    try:
        assert time.monotonic() - start < 30  # (a guard against a hang, not a measure of speed)
        assert (p.returncode, p.stdout) == (2, "")
        assert p.stderr == ("TimeoutError: Graphviz's dot ran past --timeout 3 s (raise the "
                            "limit with --timeout; --format dot writes the DOT text)\n")
        assert len(started) == 2
        end = time.monotonic() + 10
        while any(alive(pid) for pid in started) and time.monotonic() < end:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in started)
    finally:
        for pid in started:
            if alive(pid):
                os.kill(pid, 9)


# ------------------------------------------------------------------ Ctrl-C at the REPL's prompt

@pytest.mark.parametrize("keys, expected", [
    ((CTRL_C,), ["KeyboardInterrupt"]),
    ((CTRL_C, CTRL_C), ["KeyboardInterrupt", "KeyboardInterrupt"]),
    (("print('ran')", CTRL_C, "1 + 1", ENTER), ["KeyboardInterrupt", "2"]),
    (("for i in range(3):", ENTER, "    print('ran', i)", ENTER, CTRL_C, "7", ENTER),
     ["KeyboardInterrupt", "7"]),
    (("x = 1", ENTER, "x = 2", CTRL_C, "x", ENTER), ["KeyboardInterrupt", "1"]),
])
def test_ctrl_c_at_the_prompt_says_keyboard_interrupt_and_drops_the_input(repl_run, keys,
                                                                           expected):
    """`>>> print('ran')^C`: Python's REPL prints KeyboardInterrupt and a new prompt; what
    was typed (a multi-line statement too) never runs."""
    status, out, _ = repl_run(*keys)
    assert status == 0 and lines(out) == expected


def test_ctrl_d_on_an_empty_line_still_ends_the_repl(repl_run):
    status, out, _ = repl_run("1", ENTER, CTRL_C, CTRL_D, "2", ENTER)
    assert status == 0 and lines(out) == ["1", "KeyboardInterrupt"]


# ------------------------------------------------------------------ graphs dot lays out in minutes

@pytest.mark.parametrize("edges, crossings", [
    ([], 0),
    ([("a", "b"), ("b", "c"), ("c", "d")], 0),             # a chain
    ([("a", "b"), ("b", "c"), ("a", "c")], 1),             # a skips a rank
    ([("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")], 2),
    ([(f"n{i}", f"n{i + 1}") for i in range(10)] + [("x", f"n{i}") for i in range(1, 11)],
     sum(range(10))),                                       # a leaf feeding every step
])
def test_rank_crossings_counts_the_ranks_edges_skip(edges, crossings):
    from gradcli.render.pictures import rank_crossings
    assert rank_crossings(iter(edges)) == crossings


@LINUX_ONLY
def test_a_graph_dot_lays_out_in_minutes_never_reaches_dot(tmp_path):
    """A leaf feeding each of 150 steps (303 nodes, 22,350 crossings: about 15 s of dot at
    least, more than doubling with each further 40 steps): refused at once, in one line;
    a chain of 1,203 nodes (none) is drawn."""
    from gradcli.render.pictures import PICTURE_CROSSINGS
    ran = tmp_path / "ran"
    env = fake_dot(tmp_path, f"touch {ran}")
    command = [sys.executable, "-m", "gradcli.cli.main", "graph", "--at", "x=ones(2)",
               "--format", "svg", "-o", str(tmp_path / "g.svg")]
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    fan = "y = x\nfor i in range(150):\n    y = y * x + i\nz = y.sum()\n"
    p = subprocess.run([*command, fan], capture_output=True, text=True, env=environment,
                       cwd=ROOT, timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"UsageError: --format svg: the graph's edges cross 22,350 ranks (values "
                        f"used by operations far apart), which Graphviz lays out in minutes; a "
                        f"picture takes at most {PICTURE_CROSSINGS:,} (--format dot or ascii "
                        f"draws any graph)\n")
    assert not ran.exists()
    chain = "y = x\nfor i in range(600):\n    y = y * 2 + i\nz = y.sum()\n"
    p = subprocess.run([*command, chain], capture_output=True, text=True, env=environment,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    assert ran.exists()
