"""`graph --format svg|png`: Graphviz's dot runs in the frontend on a graph a program chose, so
it is bounded as the evaluator is: --timeout (or PICTURE_TIMEOUT), CPU and memory limits,
death with the frontend, and a cap on the nodes a picture shows.  A fake `dot` on PATH shows
what dot is given and how it is ended."""

import os
import signal
import subprocess
import sys
import time

import pytest

from gradcli.render.pictures import (BOUNDED_LAYOUT, BOUNDED_LAYOUT_NODES, PICTURE_MEMORY,
                                     PICTURE_NODES)
from tests.processes import ROOT, alive, fake_dot

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a fake dot is a shell script; limits are Linux's")

SMALL = "z = (2*x)**3"
# a leaf that feeds every step: the shape of graph that takes dot minutes to lay out
WIDE = "y = x\nfor i in range({n}):\n    y = y * x + x.sin()\nz = y.sum()\n"


def gradcli(*args, env):
    return subprocess.Popen([sys.executable, "-m", "gradcli.cli.main", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT), **env), cwd=ROOT)


def wait_for(path, seconds=30):
    end = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end, f"{path} never written"
        time.sleep(0.05)
    return int(path.read_text())


def test_dot_runs_with_cpu_and_memory_limits_and_the_format(tmp_path):
    env = fake_dot(tmp_path, 'echo "cpu=$(ulimit -t) memory=$(ulimit -v) core=$(ulimit -c) $*"')
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "svg", "--timeout", "4.5", env=env)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    cpu, *rest = out.split()
    # (dot's time is what the evaluator left of --timeout 4.5, and a second: at most 6 s)
    assert cpu.startswith("cpu=") and 1 <= int(cpu[4:]) <= 6, cpu
    assert rest == [f"memory={PICTURE_MEMORY // 1024}", "core=0", "-Tsvg"]


def test_memory_limit_follows_a_smaller_gradcli_max_memory(tmp_path):
    env = fake_dot(tmp_path, 'echo "$(ulimit -v)"')
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "svg",
                env={**env, "GRADCLI_MAX_MEMORY": "300M"})
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.split() == [str(300 * 1024)]


def test_a_big_graph_is_laid_out_with_bounded_iterations(tmp_path):
    env = fake_dot(tmp_path, 'echo "$*"')
    n = BOUNDED_LAYOUT_NODES // 3  # three nodes a step, and the sum and the leaf
    p = gradcli("graph", WIDE.format(n=n), "--at", "x=ones(3)", "--format", "svg", env=env)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.split() == ["-Tsvg", *BOUNDED_LAYOUT]


def test_timeout_ends_dot_and_leaves_nothing_running(tmp_path):
    pid_file = tmp_path / "dot.pid"
    env = fake_dot(tmp_path, f'echo $$ > {pid_file}\nexec sleep 300')
    start = time.monotonic()
    # (3 s: dot gets what the evaluator leaves of them, on a loaded machine too)
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "svg", "--timeout", "3", env=env)
    out, err = p.communicate(timeout=60)
    assert time.monotonic() - start < 30
    assert p.returncode == 2 and out == ""
    assert err == ("TimeoutError: Graphviz's dot ran past --timeout 3 s (raise the limit with "
                   "--timeout; --format dot writes the DOT text)\n")
    assert not alive(int(pid_file.read_text()))


def test_dot_dies_with_a_frontend_killed_outright(tmp_path):
    pid_file = tmp_path / "dot.pid"
    env = fake_dot(tmp_path, f'echo $$ > {pid_file}\nexec sleep 300')
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "png", "-o",
                str(tmp_path / "g.png"), env=env)
    dot = wait_for(pid_file)
    try:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        end = time.monotonic() + 10
        while alive(dot) and time.monotonic() < end:
            time.sleep(0.05)
        assert not alive(dot)
    finally:
        if alive(dot):
            os.kill(dot, signal.SIGKILL)
    assert not (tmp_path / "g.png").exists()


def test_a_crash_of_dot_is_one_line(tmp_path):
    env = fake_dot(tmp_path, "kill -SEGV $$")
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "svg", env=env)
    out, err = p.communicate(timeout=60)
    assert (p.returncode, out) == (2, "")
    assert err == ("UsageError: Graphviz's dot failed: it crashed (SIGSEGV; out of memory, "
                   "or try --format svg)\n")


def test_a_failure_of_dot_shows_its_first_line(tmp_path):
    env = fake_dot(tmp_path, 'echo "Error: syntax error in line 1" >&2\necho more >&2\nexit 1')
    p = gradcli("graph", SMALL, "--at", "x=3", "--format", "svg", env=env)
    out, err = p.communicate(timeout=60)
    assert (p.returncode, out) == (2, "")
    assert err == "UsageError: Graphviz's dot failed: Error: syntax error in line 1\n"


def test_a_graph_too_big_for_a_picture_never_reaches_dot(tmp_path):
    ran = tmp_path / "ran"
    env = fake_dot(tmp_path, f"touch {ran}")
    n = PICTURE_NODES // 3 + 1
    p = gradcli("graph", WIDE.format(n=n), "--at", "x=ones(3)", "--format", "svg", env=env)
    out, err = p.communicate(timeout=60)
    assert (p.returncode, out) == (2, "")
    assert err == (f"UsageError: --format svg: the graph has {3 * n + 2} nodes; a picture "
                   f"shows at most {PICTURE_NODES} (--format dot or ascii draws any graph)\n")
    assert not ran.exists()
    # the text formats draw it
    p = gradcli("graph", WIDE.format(n=n), "--at", "x=ones(3)", "--format", "dot", env={})
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0 and out.count("->") > PICTURE_NODES
