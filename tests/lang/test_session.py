"""The Session API the CLI, both REPLs and the tests share."""

import io

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session


def test_fresh_namespace_has_no_torch_until_imported(run):
    assert run.error("torch.tensor(1.)").headline() == "NameError: name 'torch' is not defined"
    assert run("import torch\nprint(torch.tensor(1.))") == "tensor(1.)\n"
    assert [k for k in run.session.namespace if k != "__builtins__"] == ["torch"]


def test_namespace_persists_across_runs(run):
    run("a = 2")
    assert run("print(a * 3)") == "6\n"


def test_echo_prints_non_none_expression_values_with_repr(run):
    assert run("1 + 1\nNone\n'text'\nprint('p')", echo=True) == "2\n'text'\np\n"
    assert run("1 + 1") == ""


def test_echo_reaches_into_loops_and_ifs_but_not_functions(run):
    source = "def f():\n    7\n    return None\nfor i in range(2):\n    i\nif True:\n    'y'\nf()"
    assert run(source, echo=True) == "0\n1\n'y'\n"


def test_run_returns_the_last_expression_value(run):
    assert run.session.run("x = 5\nx * 2\nx = 1") == 10


def test_user_warnings_interleave_with_output_every_time(run):
    source = ("import torch\nx = torch.tensor(1., requires_grad=True)\ny = x * 2\n"
              "print('a')\nprint(y.grad)\nprint(y.grad)\nprint('b')")
    warning = run(source).splitlines()[1]
    assert warning.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf")
    assert run(source).splitlines() == ["a", warning, "None", warning, "None", "b"]


def test_default_output_is_the_last_assigned_name(run):
    run("x = 1\ny = x + 1\ny.bit_length()\nz = 3; w = 4")
    assert run.session.last_name == "w"
    assert run.session.assigned == ["x", "y", "z", "w"]


def test_default_output_is_a_final_expression(run):
    run("x = 3\nx * x + 1")
    assert run.session.last_name == "x * x + 1"
    assert run.session.value_of("x * x + 1") == 10
    assert run.session.value_of("x") == 3


def test_a_final_none_expression_does_not_hide_the_last_assignment(run):
    run("z = [2]\nz.append(3)")
    assert run.session.last_name == "z"


def test_names_assigned_in_loops_count_but_not_in_functions(run):
    run("def f():\n    inner = 1\nfor i in range(2):\n    y = i")
    assert run.session.assigned == ["y"]


def test_eval_evaluates_one_expression_in_the_namespace(run):
    run("k = 4")
    assert run.session.eval("  [k, k * 2] ") == [4, 8]
    with pytest.raises(ProgramError):
        run.session.eval("k = 5")


def test_is_complete(run):
    assert not run.session.is_complete("for i in range(3):")
    assert run.session.is_complete("x = 1")


def test_current_line_names_the_running_line():
    session = Session(out=io.StringIO())
    lines = []
    session.namespace["where"] = lambda: lines.append(session.current_line())
    session.run("a = 1\nwhere()\ndef f():\n    where()\nf()")
    assert lines == [2, 4]
    assert session.current_line() is None


def test_runtime_errors_carry_line_column_and_source_line(run):
    error = run.error("x = 1\ny = x + missing")
    assert error.headline() == "NameError: name 'missing' is not defined"
    assert (error.line, error.column, error.source_line) == (2, 9, "y = x + missing")


def test_error_messages_keep_their_first_line_only(run):
    error = run.error("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                      "(x * 2).backward()")
    assert error.format() == ["RuntimeError: grad can be implicitly created only for scalar "
                              "outputs"]


def test_output_stream_is_injectable():
    out = io.StringIO()
    Session(out=out).run("print('here')\n'echo'", echo=True)
    assert out.getvalue() == "here\n'echo'\n"


def test_anomaly_detection_names_the_program_line(run):
    source = ("import torch\nx = torch.tensor(-1., requires_grad=True)\n"
              "with torch.autograd.detect_anomaly():\n    y = torch.sqrt(x)\n    y.backward()")
    error = run.error(source)
    assert error.type_name == "RuntimeError" and "SqrtBackward0" in error.message
    assert 'line 4, in <module>\n    y = torch.sqrt(x)' in run.take()


@pytest.mark.parametrize("source, printed", [
    # Python's builtins, as in a Python program
    ("print(max(1, 5), min([3, 2]), sum([1, 2], 10), round(2.567, 1), all([]), any([0]))",
     "5 2 13 2.6 True False"),
    ("print(max([1, 5], key=lambda v: -v), min([], default=7))", "1 7"),
    ("x = tensor([1., 5.])\nprint(max(x), sum(x))", "tensor(5.) tensor(6.)"),
    ("print(max, min, sum, round, all, any)",
     "<built-in function max> <built-in function min> <built-in function sum> "
     "<built-in function round> <built-in function all> <built-in function any>"),
    # the op when called with a keyword the builtin does not take
    ("x = tensor([[1., 5.], [3., 2.]])\nprint(max(x, dim=0).values, min(x, dim=1).indices)",
     "tensor([3., 5.]) tensor([0, 1])"),
    ("x = tensor([[1., 5.], [3., 2.]])\nprint(sum(x, dim=0), sum(x, dim=1, keepdim=True).shape)",
     "tensor([4., 7.]) torch.Size([2, 1])"),
    ("print(round(tensor([1.234, 5.678]), decimals=1))", "tensor([1.2000, 5.7000])"),
    ("x = tensor([[1., 0.], [3., 2.]])\nprint(all(x > 0, dim=1), any(x > 2, dim=0))",
     "tensor([False,  True]) tensor([ True, False])"),
])
def test_builtins_that_share_a_name_with_an_op(run, source, printed):
    assert run(source) == printed + "\n"
