"""`gradcli eval`: values, gradients, outputs, grad vectors, orders, dtypes, JSON, why."""

import pytest


def test_eval_prints_value_and_gradient(cli):
    r = cli("eval", "z=(2*x)**3", "--at", "x=3")
    assert r.code == 0
    assert r.stdout.splitlines() == ["x = 3.", "z = 216.", "dz/dx = 216."]


def test_eval_json_document_has_the_spec_keys(cli):
    doc = cli("eval", "z=(2*x)**3", "--at", "x=3", "--json").json()
    assert doc == {"dtype": "float32", "outputs": ["z"], "order": 1,
                   "values": {"x": 3.0, "z": 216.0}, "gradients": {"z": {"x": 216.0}}}


def test_eval_default_output_is_last_expression_without_assignment(cli):
    doc = cli("eval", "x*x + 1", "--at", "x=2", "--json").json()
    assert doc["gradients"][doc["outputs"][0]]["x"] == 4.0


def test_eval_several_outputs_and_leaves(cli):
    doc = cli("eval", "a = x*y; b = x + y", "--at", "x=2", "--at", "y=5", "--of", "a",
              "--of", "b", "--json").json()
    assert doc["outputs"] == ["a", "b"]
    assert doc["gradients"] == {"a": {"x": 5.0, "y": 2.0}, "b": {"x": 1.0, "y": 1.0}}


def test_eval_vector_leaf_and_list_values(cli):
    doc = cli("eval", "s = (x**2).sum()", "--at", "x=[1,2,3]", "--json").json()
    assert doc["gradients"]["s"]["x"] == [2.0, 4.0, 6.0]
    assert doc["values"]["x"] == [1.0, 2.0, 3.0]


def test_eval_non_scalar_output_needs_grad(cli):
    r = cli("eval", "y = x * 2", "--at", "x=[1,2]")
    assert r.code == 2
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in r.stderr


def test_eval_grad_vector_weights_a_non_scalar_output(cli):
    doc = cli("eval", "y = x * x", "--at", "x=[1,2]", "--grad", "[1, 0.5]", "--json").json()
    assert doc["gradients"]["y"]["x"] == [2.0, 2.0]


def test_eval_order_gives_nth_derivative(cli):
    doc = cli("eval", "f = x**4", "--at", "x=2", "--order", "3", "--json").json()
    assert doc["order"] == 3
    assert doc["gradients"]["f"]["x"] == 48.0


@pytest.mark.parametrize("program, order, expected", [
    ("y = x*2", 2, 0.0), ("y = x**2", 3, 0.0), ("y = x**2", 5, 0.0), ("y = x**2", 2, 2.0)])
def test_eval_order_past_a_constant_derivative_is_zero(cli, program, order, expected):
    doc = cli("eval", program, "--at", "x=1", "--order", str(order), "--json").json()
    assert doc["gradients"]["y"]["x"] == expected


def test_eval_order_of_an_unused_input_stays_none(cli):
    doc = cli("eval", "y = w*2", "--at", "x=1", "--at", "w=2", "--order", "2", "--json").json()
    assert doc["gradients"]["y"] == {"x": None, "x,w": None, "w": 0.0}


def test_eval_dtype_float64(cli):
    doc = cli("eval", "y = x / 3", "--at", "x=1", "--dtype", "float64", "--json").json()
    assert doc["dtype"] == "float64"
    assert doc["values"]["y"] == 1 / 3


def test_eval_reports_why_for_unused_input(cli):
    r = cli("eval", "z = x * 2", "--at", "x=1", "--at", "y=3")
    assert "dz/dy = None" in r.stdout
    assert "y is not used in computing z" in r.stdout


def test_eval_reports_why_for_a_relu_kink(cli):
    r = cli("eval", "z = relu(x)", "--at", "x=0")
    assert "dz/dx = 0." in r.stdout
    assert "relu at 0" in r.stdout


def test_eval_reports_why_for_detach(cli):
    r = cli("eval", "z = x.detach() * 2 + y", "--at", "x=1", "--at", "y=1")
    assert "dz/dx = None" in r.stdout
    assert "detach()" in r.stdout


def test_eval_program_that_ran_backward_itself(cli):
    doc = cli("eval", "z = x**2; z.backward()", "--at", "x=3", "--json").json()
    assert doc["gradients"]["z"]["x"] == 6.0


def test_eval_attributes_the_program_s_backward_to_the_tensor_it_ran_from(cli):
    program = "z = x**2; z.backward(); w = x*5"
    doc = cli("eval", program, "--at", "x=3", "--json").json()
    assert doc["outputs"] == ["z"]  # the output the program backpropagated, not the last name
    assert doc["gradients"] == {"z": {"x": 6.0}}
    doc = cli("eval", program, "--at", "x=3", "--of", "z", "--of", "w", "--json").json()
    assert doc["gradients"] == {"z": {"x": 6.0}, "w": {"x": 5.0}}  # w's own, not x.grad
    r = cli("eval", program, "--at", "x=3", "--of", "w")
    assert "dw/dx = 5." in r.stdout


def test_eval_program_that_ran_backward_from_an_unnamed_tensor(cli):
    doc = cli("eval", "y = x * 2; y.sum().backward()", "--at", "x=[1,2]", "--json").json()
    assert doc["gradients"] == {"y": {"x": [2.0, 2.0]}}  # x.grad, under the last name


def test_eval_syntax_error_has_caret_and_exit_2(cli):
    r = cli("eval", "z = (x +", "--at", "x=1")
    assert r.code == 2
    assert r.stderr.startswith("SyntaxError:")
    assert "^" in r.stderr


def test_eval_json_error_document(cli):
    r = cli("eval", "z = y * 2", "--at", "x=1", "--json")
    assert r.code == 2
    assert r.json() == {"error": {"type": "NameError", "message": "name 'y' is not defined",
                                  "line": 1, "column": r.json()["error"]["column"]}}


def test_eval_bad_at_is_a_usage_error(cli):
    r = cli("eval", "z = x", "--at", "x")
    assert r.code == 2
    assert "--at expects NAME=VALUE" in r.stderr


def test_eval_program_from_file_and_stdin(cli, tmp_path):
    f = tmp_path / "p.grad"
    f.write_text("z = x * 3\n")
    assert cli("eval", f"@{f}", "--at", "x=1", "--json").json()["gradients"]["z"]["x"] == 3.0
    assert cli("eval", "-", "--at", "x=1", "--json",
               input="z = x * 4\n").json()["gradients"]["z"]["x"] == 4.0


def test_eval_timeout_stops_a_runaway_program(cli):
    r = cli("eval", "while True:\n    pass\nz = x", "--at", "x=1", "--timeout", "0.5")
    assert r.code == 2
    assert "TimeoutError" in r.stderr


@pytest.mark.parametrize("args", [["eval", "z=(2*x)**3", "--at", "x=3"],
                                  ["eval", "z = q", "--at", "x=3"]])
def test_piped_output_has_no_ansi_codes(gradcli_process, args):
    r = gradcli_process(*args)
    assert "\x1b[" not in r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_eval_indentation_error_has_position_and_caret(cli):
    r = cli("eval", "x = 1\n    y = 2")
    assert r.code == 2
    assert r.stderr.splitlines()[:3] == ["IndentationError: unexpected indent (line 2, column 5)",
                                         "        y = 2", "        ^"]


def test_an_expression_output_is_bracketed_in_its_derivative_label(cli):
    # d(x*2 + 1)/dx = 2 (torch.autograd.grad(x*2 + 1, x) at x=1); `dx*2 + 1/dx` is other mathematics
    r = cli("eval", "x*2 + 1", "--at", "x=1")
    assert r.stdout.splitlines()[-1] == "d(x*2 + 1)/dx = 2."
    r = cli("eval", "x**3", "--at", "x=1", "--order", "2")
    assert r.stdout.splitlines()[-1] == "d2(x**3)/dx2 = 6."


def test_why_a_comparison_is_not_called_an_unused_input(cli):
    # torch: y = (x > 0).float() * w gives x no gradient (x.grad is None) although y uses x
    r = cli("eval", "y = (x > 0).float() * w", "--at", "x=1", "--at", "w=2")
    assert r.stdout.splitlines()[3:5] == [
        "dy/dx = None",
        "  why: y depends on x only outside the graph (the program uses comparisons): no "
        "gradient can flow back"]
    r = cli("eval", "y = (x > 5).float() * w", "--at", "x=1", "--at", "w=2")
    assert "unused input" not in r.stdout
    assert "y does not change when x changes" in r.stdout


@pytest.mark.parametrize("reset, shown", [("w.grad.zero_()", "0."), ("w.grad = None", "None")])
def test_why_a_grad_the_program_reset_says_so(cli, reset, shown):
    # torch: y.backward() gives w.grad = x.sum() = 3; the program then resets it
    r = cli("eval", f"y = (x*w).sum(); y.backward(); {reset}", "--at", "x=[1.,2]", "--at", "w=3",
            "--of", "y")
    lines = r.stdout.splitlines()
    assert lines[-2] == f"dy/dw = {shown}"
    assert lines[-1] == (f"  why: w.grad is {shown.rstrip('.').replace('0', 'zero')} although "
                         "the program's backward pass from y gave w 3.: the program reset w.grad "
                         "afterwards (zero_() or = None)")


def test_retain_graph_keeps_every_graph_the_program_backpropagates(cli):
    program = "y = x**3; y.backward(); y.backward()"
    r = cli("eval", program, "--at", "x=2")
    assert r.code == 2 and r.stderr.startswith("RuntimeError: Trying to backward through the "
                                               "graph a second time")
    r = cli("eval", program, "--at", "x=2", "--retain-graph")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "dy/dx = 24."  # 12 accumulated twice


def test_create_graph_makes_the_gradients_differentiable(cli):
    r = cli("eval", "z = x**3", "--at", "x=2")
    assert r.stdout.splitlines()[-1] == "dz/dx = 12."
    r = cli("eval", "z = x**3", "--at", "x=2", "--create-graph")
    assert r.stdout.splitlines()[-1] == "dz/dx = 12., grad_fn=<MulBackward0>"
    # the program's own backward builds the graph too: its x.grad can be differentiated
    r = cli("eval", "y = x**3; y.backward(); g = x.grad", "--at", "x=2", "--create-graph",
            "--of", "g")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "dg/dx = 12., grad_fn=<MulBackward0>"
    doc = cli("eval", "z = x**3", "--at", "x=2", "--create-graph", "--json").json()
    assert doc["gradients"] == {"z": {"x": 12.0}}
