"""`hint:` lines after autograd errors (SPEC §5): on a terminal, with or without colour, one line
naming the user's own variables; none when piped and none in JSON."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.render import console

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def on_terminal(monkeypatch, cli):
    """`gradcli ARGS` as if its error stream were a terminal (plain mode: CliRunner's stdout is
    no terminal either, which is --no-color on a terminal as far as hints go)."""
    monkeypatch.setattr(console, "_is_terminal", lambda stream: True)
    return cli


def hint_of(result):
    hints = [line for line in result.stderr.splitlines() if line.startswith("hint: ")]
    assert len(hints) == 1, result.stderr
    return hints[0][len("hint: "):]


# ---------------------------------------------------------------------- in place on a leaf

def test_leaf_in_place_names_the_leaf_not_the_first_name_on_the_line(on_terminal):
    r = on_terminal("eval", "y = x*2; x.add_(1)", "--at", "x=[1.,2.]")
    assert r.code == 2
    assert r.stderr.startswith("RuntimeError: a leaf Variable that requires grad is being used")
    assert hint_of(r) == ("x is a leaf that requires grad: change it under `with "
                          "torch.no_grad():`, or compute a new tensor (x = x.add(1)) instead of "
                          "changing it in place")


def test_leaf_in_place_after_an_import_names_the_leaf(on_terminal):
    r = on_terminal("eval", "import torch; x.add_(1)", "--at", "x=[1.,2.]")
    assert hint_of(r).startswith("x is a leaf that requires grad")
    assert "import" not in hint_of(r)


def test_leaf_augmented_assignment_and_item_assignment(on_terminal):
    r = on_terminal("eval", "w = x\nx *= 3", "--at", "x=[1.,2.]")
    assert "(x = x * 3)" in hint_of(r)
    r = on_terminal("eval", "x[0] = 5", "--at", "x=[1.,2.]")
    assert hint_of(r).startswith("x[0] is part of x, a leaf that requires grad")


def test_leaf_zero_suggests_the_out_of_place_factory(on_terminal):
    r = on_terminal("eval", "x.zero_()", "--at", "x=[1.,2.]")
    assert "(x = torch.zeros_like(x))" in hint_of(r)


# ---------------------------------------------------------------------- version counter

def test_saved_tensor_changed_in_place_names_the_variable_and_the_method(on_terminal):
    r = on_terminal("eval", "a = x.exp(); a.mul_(2); a.sum().backward()", "--at", "x=[1.,2.]")
    assert r.stderr.startswith("RuntimeError: one of the variables needed for gradient")
    assert hint_of(r) == ("a.mul_(2) changed a in place after backward saved it: write "
                          "a = a.mul(2) instead, or clone a before changing it")
    assert "b = b" not in r.stderr


def test_saved_tensor_changed_on_an_earlier_line(on_terminal):
    program = "y = w * x\nwith no_grad():\n    w.sub_(0.1)\nz = y.sum()\nz.backward()"
    r = on_terminal("eval", program, "--at", "x=[1.,2.]", "--at", "w=[3.,4.]")
    assert hint_of(r).startswith("w.sub_(0.1) changed w in place after backward saved it: "
                                 "write w = w.sub(0.1) instead")
    r = on_terminal("eval", "h = x.sigmoid()\nh += 1\nh.sum().backward()", "--at", "x=[1.,2.]")
    assert hint_of(r).startswith("h += 1 changed h in place after backward saved it: write "
                                 "h = h + 1 instead")


# ---------------------------------------------------------------------- gradients of the wrong shape

def test_mismatch_in_shape_of_backward_gets_a_hint(on_terminal):
    r = on_terminal("eval", "y = x*2; y.backward(tensor([1.,2.,3.]))", "--at", "x=[1.,2.]")
    assert r.stderr.startswith("RuntimeError: Mismatch in shape:")
    assert hint_of(r) == ("tensor([1.,2.,3.]) has shape [3] but y has shape [2]: pass a "
                          "gradient of y's shape, e.g. y.backward(torch.ones_like(y))")


def test_mismatch_in_shape_of_autograd_grad_and_of_the_grad_option(on_terminal):
    r = on_terminal("eval", "y = x*2; g = autograd.grad(y, x, grad_outputs=ones(3))",
                    "--at", "x=[1.,2.]")
    assert hint_of(r).startswith("grad_outputs has shape [3] but y has shape [2]")
    r = on_terminal("eval", "y = x*2", "--at", "x=[1.,2.]", "--grad", "[1.,2.,3.]")
    assert hint_of(r).startswith("--grad has shape [3] but y has shape [2]")


# ---------------------------------------------------------------------- unused inputs

def test_unused_input_of_autograd_grad_is_named(on_terminal):
    r = on_terminal("eval", "y = x*2; g = autograd.grad(y.sum(), [x, w])",
                    "--at", "x=[1.,2.]", "--at", "w=3")
    assert "appears to not have been used in the graph" in r.stderr
    assert hint_of(r).startswith("w is not used to compute y.sum(): leave it out of the inputs, "
                                 "or pass allow_unused=True")


def test_unused_single_input(on_terminal):
    r = on_terminal("eval", "y = x*2\ng = autograd.grad(y.sum(), w)", "--at", "x=[1.,2.]",
                    "--at", "w=3")
    assert hint_of(r).startswith("w is not used to compute y.sum()")


# ---------------------------------------------------------------------- where hints are shown

def test_no_hint_in_json(on_terminal):
    r = on_terminal("eval", "y = x*2; x.add_(1)", "--at", "x=[1.,2.]", "--json")
    assert r.code == 2 and "hint" not in r.stdout + r.stderr
    assert r.json()["error"]["type"] == "RuntimeError"


def test_no_hint_when_piped(cli):
    r = cli("eval", "y = x*2; x.add_(1)", "--at", "x=[1.,2.]")
    assert r.stderr == ("RuntimeError: a leaf Variable that requires grad is being used in an "
                        "in-place operation.\n")


def _on_a_real_terminal(*args, env=None):
    """Run gradcli with standard output and error on a pseudo-terminal; returns (code, text)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    e = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250")
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.Popen([sys.executable, "-m", "gradcli.cli.main", *args], stdin=subprocess.DEVNULL,
                         stdout=slave, stderr=slave, env=e, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the other end closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = p.wait(timeout=120)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")


@pytest.mark.parametrize("how", ["--no-color", "NO_COLOR", "colour"])
def test_a_terminal_gets_the_hint_with_or_without_colour(how):
    args = ["eval", "y = x*2; x.add_(1)", "--at", "x=[1.,2.]"]
    code, text = _on_a_real_terminal(*args + (["--no-color"] if how == "--no-color" else []),
                                     env={"NO_COLOR": "1"} if how == "NO_COLOR" else None)
    assert code == 2
    joined = " ".join(line.strip() for line in text.splitlines())
    assert "hint: x is a leaf that requires grad" in joined, text


def test_piped_output_gets_no_hint_even_with_no_color(gradcli_process):
    r = gradcli_process("eval", "y = x*2; x.add_(1)", "--at", "x=[1.,2.]", "--no-color")
    assert r.code == 2 and "hint" not in r.stderr


# ---------------------------------------------------------------------- the REPL

def test_repl_hint_names_the_variable_changed_in_an_earlier_statement():
    import io
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from gradcli.cli.repl import Repl
    with create_pipe_input() as inp:
        repl = Repl(out=io.StringIO(), color=False, input=inp, output=DummyOutput(),
                    history_file=os.devnull)
        out = repl.out
        for statement in ["import torch", "x = torch.tensor([1., 2.], requires_grad=True)",
                          "q = x.exp()", "q.mul_(3)", "q.sum().backward()"]:
            repl.run_statement(statement)
    shown = out.getvalue().splitlines()
    assert "hint: q.mul_(3) changed q in place after backward saved it: write q = q.mul(3) " \
           "instead, or clone q before changing it" in shown


# ---------------------------------------------------------------------- more autograd errors

@pytest.mark.parametrize("program, hint", [
    ("y = x*2; c = tensor(1.); g = autograd.grad(y.sum(), [x, c])",
     "c does not require grad: create it with requires_grad=True"),
    ("c = tensor(1.); c.register_hook(lambda g: g)", "c does not require grad, so no gradient"),
    ("c = tensor(1.); c.retain_grad()", "c does not require grad, so no gradient"),
    ("y = x*2; y.requires_grad_(False)", "y is computed from other tensors (not a leaf): use "
     "y_const = y.detach()"),
    ("y = x*2; y.requires_grad = False", "y is computed from other tensors (not a leaf)"),
    ("y = x*2; y.backward(); y.backward()", "y was already backpropagated"),
    ("y = x*2; y.numpy()", "call y.detach().numpy()"),
])
def test_other_autograd_errors_name_the_users_variable(on_terminal, program, hint):
    r = on_terminal("eval", program, "--at", "x=2")
    assert r.code == 2
    assert hint_of(r).startswith(hint)


@pytest.mark.parametrize("program, hint", [
    ("y = torch.sin(x)", "import torch first, as in Python (the ops are also there without it: "
                         "sin(x), tensor([1., 2.]))"),
    ("y = np.sin(x)", "import numpy as np first, as in Python"),
    ("y = F.relu(x)", "import torch.nn.functional as F first, as in Python (the ops are also "
                      "there without it: sin(x), tensor([1., 2.]))"),
    ("y = math.pi * x", "import math first, as in Python"),
])
def test_a_module_used_without_its_import_names_the_import(on_terminal, program, hint):
    r = on_terminal("eval", program, "--at", "x=[1.,2.]")
    assert r.code == 2
    assert r.stderr.startswith("NameError: name ")
    assert hint_of(r) == hint
