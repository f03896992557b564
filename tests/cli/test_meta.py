"""Meta-commands: one registry for dispatch, help and completion; what each command shows; the
transcript behind :save and :load."""

import io

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gradcli.cli import meta
from gradcli.cli.completer import complete
from gradcli.cli.repl import Repl
from gradcli.engine import dtypes
from gradcli.engine.grad_mode import GradMode


@pytest.fixture(autouse=True)
def _engine_state():
    yield
    dtypes.set_default_dtype(dtypes.float32)
    GradMode.enabled = True


@pytest.fixture
def repl(tmp_path):
    """A REPL whose input is fed by `do(text)`; `shown()` returns what it printed since."""
    with create_pipe_input() as inp:
        r = Repl(out=io.StringIO(), color=False, input=inp, output=DummyOutput(),
                 history_file=tmp_path / "history")

        def do(*texts):
            for text in texts:
                assert r.execute(text) is True

        def shown():
            text = r.out.getvalue()
            r.out.seek(0)
            r.out.truncate()
            return text
        r.do, r.shown = do, shown
        r.width = lambda: 100
        yield r


SETUP = ("import torch", "x = torch.tensor(3., requires_grad=True)",
         "w = torch.tensor([1., -2.], requires_grad=True)", "y = (2 * x) ** 3")


def test_one_registry_feeds_dispatch_help_and_completion(repl):
    expected = {":help", ":vars", ":graph", ":explain", ":why", ":reset", ":load", ":save",
                ":dtype", ":quit"}
    assert set(meta.COMMANDS) == expected
    repl.do(":help")
    help_text = repl.shown()
    for name, cmd in meta.COMMANDS.items():
        assert cmd.summary and cmd.summary in help_text
    assert {c.text for c in complete(":", None, {}, meta.COMMANDS)} == expected


def test_a_command_registered_by_the_decorator_is_dispatched(monkeypatch):
    monkeypatch.setattr(meta, "COMMANDS", dict(meta.COMMANDS))

    @meta.command(":echo", ":echo TEXT")
    def echo(r, argument):
        """Say TEXT back."""
        r.renderer.text(argument.upper())

    # (registered before the REPL starts its evaluator, which runs the command)
    with create_pipe_input() as inp:
        repl = Repl(out=io.StringIO(), color=False, input=inp, output=DummyOutput())
        assert repl.execute(":echo hello") is True
        repl.close()
    assert repl.out.getvalue() == "HELLO\n"
    assert meta.COMMANDS[":echo"].summary == "Say TEXT back."


def test_unknown_command_suggests_close_ones(repl):
    repl.do(":grap y")
    assert repl.shown() == "UsageError: unknown command :grap (did you mean :graph?)\n"


def test_help_on_an_op_shows_its_derivative(repl):
    repl.do(":help tanh")
    text = repl.shown()
    assert text.startswith("tanh(") and "derivative:" in text and "TanhBackward0" in text


def test_vars_lists_every_tensor_with_its_gradient_and_accumulation_count(repl):
    repl.do(*SETUP, "y.backward(retain_graph=True)", "y.backward()")
    repl.shown()
    repl.do(":vars")
    header, *rows = repl.shown().splitlines()
    assert header.split() == ["name", "shape", "value", "requires_grad", "grad_fn", "grad",
                              "backward", "passes"]
    table = {r.split()[0]: r.split() for r in rows}
    assert table["x"] == ["x", "[]", "3.", "True", "-", "432.", "2"]
    assert table["w"] == ["w", "[2]", "[", "1.,", "-2.]", "True", "-", "None", "0"]
    assert table["y"] == ["y", "[]", "216.", "True", "PowBackward0", "None", "0"]


def test_vars_with_no_tensors(repl):
    repl.do(":vars")
    assert repl.shown() == "no tensors in scope\n"


def test_graph_shows_values_and_gradients(repl):
    repl.do(*SETUP, ":graph y")
    text = repl.shown()
    assert "PowBackward0  y  value=216.  grad=1." in text
    assert "MulBackward0  value=6.  grad=108." in text
    assert "x (leaf, AccumulateGrad)  value=3.  grad=216." in text


def test_graph_does_not_touch_grad_or_run_hooks_visibly(repl):
    repl.do(*SETUP, "h = x.register_hook(lambda g: print('hook', g))", ":graph y")
    assert "hook" not in repl.shown()
    repl.do("x.grad is None")
    assert repl.shown() == "True\n"


def test_graph_after_backward_shows_the_pass_the_program_ran(repl):
    repl.do(*SETUP, "y.backward()", ":graph y")
    text = repl.shown()
    assert "PowBackward0  y  value=216.  grad=1." in text
    assert "x (leaf, AccumulateGrad)  value=3.  grad=216." in text


def test_graph_of_a_graph_another_pass_freed_says_why_no_gradients(repl):
    repl.do(*SETUP, "z = y * 2", "z.backward()", ":graph y")
    text = repl.shown()
    assert "value=216." in text and "grad=" not in text
    assert "gradients not shown: Trying to backward through the graph a second time" in text


def test_explain_walks_the_chain_rule(repl):
    repl.do(*SETUP, ":explain y")
    text = repl.shown()
    assert text.startswith("backward pass of y at x = 3.")
    assert "[1] PowBackward0" in text and "[2] MulBackward0" in text
    assert "-> accumulates into x.grad" in text
    assert "dy/dx = 216." in text


def test_explain_after_backward_explains_the_pass_the_program_ran(repl):
    repl.do(*SETUP, "y.backward()", ":explain y")
    text = repl.shown()
    assert text.startswith("backward pass of y at x = 3.")
    assert "[1] PowBackward0" in text and "[2] MulBackward0" in text
    assert "dy/dx = 216." in text
    # the last pass from y, not the sum the two passes accumulated into x.grad
    repl.do("y = (2 * x) ** 3", "y.backward()", ":explain y", "x.grad")
    text = repl.shown()
    assert "dy/dx = 216." in text and text.endswith("tensor(432.)\n")


def test_explain_of_a_graph_another_pass_freed_says_why_with_a_hint(repl):
    repl.do(*SETUP, "z = y * 2", "z.backward()", ":explain y")
    first, hint = repl.shown().splitlines()
    assert first.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert hint.startswith("hint: y was already backpropagated")


def test_explain_of_a_leaf_or_a_constant(repl):
    repl.do(*SETUP, "c = torch.tensor(1.)", ":explain x", ":explain c")
    text = repl.shown()
    assert "no backward steps: x is a leaf" in text
    assert "no backward steps: c does not require grad" in text


def test_why_names_the_reason(repl):
    repl.do(*SETUP, "z = y * 1", ":why z", ":why x", "y.backward()", ":why x")
    first, second, third = repl.shown().splitlines()
    assert first.startswith("z is not a leaf (it was computed by MulBackward0)")
    assert second.startswith("no backward pass has reached x yet")
    assert third == "x.grad is set (x received gradient from 1 backward pass(es))"


def test_commands_on_undefined_or_non_tensor_names(repl):
    repl.do("k = 3", ":graph nothing", ":graph k", ":explain", ":why nope")
    assert repl.shown().splitlines() == [
        "NameError: name 'nothing' is not defined", "TypeError: k is a int, not a tensor",
        "UsageError: usage: :explain NAME", "NameError: name 'nope' is not defined"]


def test_reset_starts_a_fresh_session(repl):
    repl.do(*SETUP, "torch.set_grad_enabled(False)", ":dtype float64", ":reset", "x")
    text = repl.shown()
    assert "session reset" in text and "NameError: name 'x' is not defined" in text
    assert repl.state["grad"] is True and repl.state["dtype"] == "float32"
    assert len(repl.transcript.sessions) == 2


def test_dtype_shows_and_sets_the_default(repl):
    repl.do(":dtype", ":dtype float64", "import torch", "torch.tensor(1.5)", "torch.tensor(1.5).dtype",
            ":dtype int8")
    assert repl.shown().splitlines() == [
        "float32", "default dtype: float64", "tensor(1.5000)", "torch.float64",
        "UsageError: :dtype takes float32 or float64, not 'int8'"]


def test_save_writes_the_transcript_format(repl, tmp_path):
    repl.do("import torch", "a = torch.tensor([1., 2.], requires_grad=True)", "a * 2",
            "for i in range(2):\n    print(i)", "undefined", ":vars",
            f":save {tmp_path / 's.txt'}")
    assert repl.shown().endswith(f"saved 5 statements to {tmp_path / 's.txt'}\n")
    assert (tmp_path / "s.txt").read_text() == (
        "## session: saved from the gradcli REPL\n"
        ">>> import torch\n"
        ">>> a = torch.tensor([1., 2.], requires_grad=True)\n"
        ">>> a * 2\n"
        "tensor([2., 4.], grad_fn=<MulBackward0>)\n"
        ">>> for i in range(2):\n"
        "...     print(i)\n"
        "...\n"
        "0\n1\n"
        ">>> undefined\n"
        "NameError: name 'undefined' is not defined\n")


def test_save_records_dtype_changes_as_statements(repl, tmp_path):
    repl.do(":dtype float64", f":save {tmp_path / 's.txt'}")
    assert (tmp_path / "s.txt").read_text().splitlines()[1:] == [
        ">>> import torch", ">>> torch.set_default_dtype(torch.float64)"]


def test_save_to_an_unwritable_place_is_an_error_not_a_crash(repl, tmp_path):
    repl.do(f":save {tmp_path / 'missing' / 's.txt'}")
    assert repl.shown().startswith("OSError: cannot write ")


def test_load_runs_a_program_file_as_if_pasted(repl, tmp_path):
    program = tmp_path / "p.grad"
    program.write_text("import torch\nx = torch.tensor(2., requires_grad=True)\n"
                       "def f(t):\n    return t ** 2\n\ny = f(x)\ny.backward()\nx.grad\n")
    repl.do(f":load {program}", "y")
    assert repl.shown().splitlines() == ["tensor(4.)", "tensor(4., grad_fn=<PowBackward0>)"]


def test_load_of_a_saved_transcript_replays_its_statements(repl, tmp_path):
    repl.do("import torch", "v = torch.ones(2, requires_grad=True)",
            "for i in range(2):\n    (v * i).sum().backward()", "v.grad",
            f":save {tmp_path / 's.txt'}", ":reset")
    repl.shown()
    repl.do(f":load {tmp_path / 's.txt'}")
    assert repl.shown() == "tensor([1., 1.])\n"


def test_load_of_a_missing_file(repl, tmp_path):
    repl.do(f":load {tmp_path / 'nope.grad'}")
    assert repl.shown() == f"OSError: cannot read {tmp_path / 'nope.grad'}: No such file or directory\n"


def test_transcript_statements_are_read_with_the_replayers_parser():
    text = ("## session: t\n>>> a = 1\n>>> for i in range(2):\n...     a += i\n...\n"
            ">>> a\n2\n")
    assert meta.transcript_statements(text) == ["a = 1", "for i in range(2):\n    a += i", "a"]


def test_vars_on_a_narrow_terminal_is_a_list(repl, monkeypatch):
    monkeypatch.setattr(repl, "width", lambda: 20)
    repl.do("import torch", "x = torch.tensor(3., requires_grad=True)", ":vars")
    assert repl.shown().splitlines() == [
        "x", "  shape: []", "  value: 3.", "  requires_grad: True", "  grad_fn: -",
        "  grad: None", "  backward passes: 0"]


def test_a_training_loop_keeps_only_its_last_passes_traced():
    from gradcli.cli.replcore import ReplCore
    repl = ReplCore(io.StringIO())  # (the session as the evaluator holds it, in this process)
    for text in (*SETUP, "for i in range(50):\n    z = (w * x).sum()\n    z.backward()\n",
                 ":explain z"):
        assert repl.execute(text) is True
    assert len(repl.tracer.passes) <= repl.tracer.limit
    text = repl.out.getvalue()
    assert text.startswith("backward pass of z at w = [ 1., -2.], x = 3.")
    assert "dz/dw = [3., 3.]" in text  # the last pass, not the 50 accumulated into w.grad
