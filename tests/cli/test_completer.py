"""Completion is a pure function of (text, cursor) and the session's names: no terminal."""

import io
import re

import gradcli
import pytest

from gradcli.cli.completer import complete
from gradcli.cli.meta import COMMANDS
from gradcli.lang.session import Session


@pytest.fixture
def names():
    """A session's namespace (its __builtins__ are the names every program sees)."""
    session = Session(out=io.StringIO())
    session.run("import torch\nimport torch as T\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                "xs = 3\nloss = (x * x).sum()\nwidth = 2.5\n"
                "def f(a, scale=2.0):\n    return a * scale\n")
    return session.namespace


def texts(text, names, cursor=None):
    return [c.text for c in complete(text, cursor, names, COMMANDS)]


def offers(text, names, expected, cursor=None):
    """The completions include `expected`, in that order, and all fit the word typed (the op
    table grows, so other ops may be offered too)."""
    found = texts(text, names, cursor)
    word = re.search(r"\w*$", text[:cursor]).group(0)
    assert [t for t in found if t in expected] == expected, found
    assert all(t.startswith(word) for t in found), found
    return found


def test_names_in_scope_and_the_op_table(names):
    assert offers("lo", names, ["loss", "log", "logical_and", "long"])[0] == "loss"
    assert "xs" in texts("x", names)
    offers("tan", names, ["tanh"])


def test_torch_namespace_and_any_alias_of_it(names):
    offers("torch.si", names, ["sigmoid", "sign", "sin"])
    offers("T.si", names, ["sigmoid", "sign", "sin"])
    offers("torch.autograd.gr", names, ["grad", "gradcheck", "gradgradcheck", "graph"])
    assert "functional" in texts("torch.nn.", names)


def test_tensor_attributes_and_methods_after_a_dot(names):
    offers("x.gr", names, ["grad", "grad_fn"])
    assert texts("x.requires_g", names) == ["requires_grad", "requires_grad_"]
    assert "backward" in texts("loss.", names)
    assert not any(t.startswith("_") for t in texts("x.", names))


def test_attributes_of_tensor_valued_expressions(names):
    offers("x.grad.ze", names, ["zero_"])
    offers("x.sum().ba", names, ["backward"])
    offers("torch.ones(3).ex", names, ["exp", "exp_", "expand"])
    offers("x[0].ite", names, ["item"])
    offers("loss.grad_fn.na", names, ["name"])


def test_saved_values_of_a_node_after_an_underscore(names):
    assert texts("loss.grad_fn._", names) == ["_saved_self_sym_sizes"]  # SumBackward0's
    session = Session(out=io.StringIO())
    session.run("import torch\nx = torch.ones(2, 2, requires_grad=True)\ny = x.sum(0)\n")
    assert texts("y.grad_fn._saved_", session.namespace) == [
        "_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes"]
    assert texts("x._", names) == []  # nothing else starting with `_` is offered


def test_keyword_arguments_of_the_call_being_typed(names):
    assert texts("torch.tensor([1.], req", names) == ["requires_grad="]
    assert texts("loss.backward(retain", names) == ["retain_graph="]
    assert set(texts("x.sum(", names)) == {"dim=", "keepdim=", "dtype="}
    assert set(texts("torch.sum(x, keepdim=True, ", names)) == {"dim=", "dtype="}
    assert texts("T.ones(2, dt", names)[:1] == ["dtype="]  # then names: torch.dtype


def test_keyword_arguments_of_a_user_function(names):
    # the keyword first, then the names the argument may also start (scatter, ...)
    offered = texts("f(1, sc", names)
    assert offered[0] == "scale=" and not [t for t in offered[1:] if t.endswith("=")]


def test_keyword_arguments_of_a_bare_op(names):
    offers("exp(x, ", names, [])
    # Python's sum, which takes the op's keywords too (sum(x, dim=0) is the op's)
    assert texts("sum(x, ", names) == ["start=", "dtype=", "dim=", "keepdim="]
    assert [t for t in texts("max(x, k", names) if t.endswith("=")] == ["key=", "keepdim="]
    assert texts("tensor(1., requires", names) == ["requires_grad="]


def test_cursor_in_the_middle_completes_the_text_before_it(names):
    offers("y = torch.si + 1", names, ["sigmoid", "sign", "sin"], cursor=len("y = torch.si"))


def test_nothing_inside_strings_comments_or_numbers(names):
    assert texts('print("x.', names) == []
    assert texts("# x.gr", names) == []
    assert texts("1.", names) == []
    assert texts("y = 3.", names) == []


def test_completions_replace_the_word_before_the_cursor(names):
    c = complete("torch.logsu", None, names, COMMANDS)[0]
    assert (c.text, c.start) == ("logsumexp", -5)
    assert complete("x.sum(ke", None, names, COMMANDS)[0].start == -2


def test_meta_commands_come_from_the_registry(names):
    assert texts(":", names) == sorted(COMMANDS)
    assert texts(":gr", names) == [":graph"]
    assert texts(":d", names) == [":dtype"]


def test_meta_command_arguments(names, tmp_path, monkeypatch):
    assert texts(":graph ", names) == ["loss", "x"]
    assert texts(":why l", names) == ["loss"]
    assert texts(":dtype f", names) == ["float32", "float64"]
    assert texts(":help :va", names) == [":vars"]
    (tmp_path / "run.grad").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert texts(":load r", names) == ["run.grad"]
    assert texts(":save s", names) == ["sub/"]


def test_descriptions_say_what_a_name_is(names):
    meta = {c.text: c.meta for c in complete("x", None, names, COMMANDS)}
    assert meta["xs"] == "int"
    assert [(c.text, c.meta) for c in complete("torc", None, names, COMMANDS)] == [
        ("torch", "module")]
    (loss,) = [c for c in complete("los", None, names, COMMANDS) if c.text == "loss"]
    assert loss.meta == "tensor [] float32"
    (tanh,) = [c for c in complete("tan", None, names, COMMANDS) if c.text == "tanh"]
    assert tanh.meta == (gradcli.ops.OPS["tanh"].doc or "")[:60]


def test_attributes_the_sandbox_refuses_are_not_offered():
    import io

    from gradcli.cli.completer import complete
    from gradcli.lang.session import Session
    session = Session(out=io.StringIO())
    session.run("import torch\nx = torch.tensor([1.], requires_grad=True)\ny = x * 2\n")
    found = [c.text for c in complete("y.grad_fn.", None, session.namespace, [])]
    assert "next_functions" in found and "register_hook" in found
    assert not {"op", "apply", "saved_values", "release"} & set(found)
    assert [c.text for c in complete("torch.exp.", None, session.namespace, [])] == []
