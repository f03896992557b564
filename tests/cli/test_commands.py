"""Every command but eval (test_eval.py) and repl (test_repl.py): options, output, JSON documents
and exit codes."""

import re

import numpy as np
import pytest

import gradcli


# ---------------------------------------------------------------------- run

def test_run_prints_what_the_program_prints(cli, tmp_path):
    path = tmp_path / "p.grad"
    path.write_text("import torch\nx = torch.tensor(2., requires_grad=True)\ny = x ** 3\n"
                    "y.backward()\nprint(x.grad)\nx.grad\n")
    r = cli("run", str(path))
    assert (r.code, r.stdout, r.stderr) == (0, "tensor(12.)\n", "")  # no echo, unlike the REPL


def test_run_reads_standard_input(cli):
    r = cli("run", "-", input="print(1 + 1)\n")
    assert (r.code, r.stdout) == (0, "2\n")


ANOMALY = ("import torch\nx = torch.tensor(0., requires_grad=True)\n"
           "with torch.autograd.detect_anomaly():\n    y = x / x\n    y.backward()\n")


def test_run_names_the_file_in_anomaly_tracebacks_as_python_does(cli, tmp_path):
    path = tmp_path / "p.grad"
    path.write_text(ANOMALY)
    r = cli("run", str(path))
    assert r.code == 2
    assert f'  File "{path}", line 4, in <module>\n    y = x / x\n' in r.stdout + r.stderr
    r = cli("run", "-", input=ANOMALY)
    assert '  File "<stdin>", line 4, in <module>\n' in r.stdout + r.stderr


def test_run_stops_at_the_first_error_with_exit_2(cli, tmp_path):
    path = tmp_path / "p.grad"
    path.write_text("print(1)\nprint(undefined)\nprint(3)\n")
    r = cli("run", str(path))
    assert r.code == 2
    assert r.stdout == "1\n"
    assert r.stderr.splitlines() == [f"{path}:2:7: NameError: name 'undefined' is not defined",
                                     "    print(undefined)", "          ^"]


def test_run_of_a_missing_file_is_a_usage_error(cli, tmp_path):
    r = cli("run", str(tmp_path / "missing.grad"))
    assert r.code == 2
    assert r.stderr.startswith("UsageError: ") and "missing.grad" in r.stderr


def test_run_dtype_sets_the_default(cli):
    r = cli("run", "-", "--dtype", "float64", input="import torch\nprint(torch.ones(1).dtype)\n")
    assert r.stdout == "torch.float64\n"


def test_run_timeout_stops_an_endless_loop(cli):
    r = cli("run", "-", "--timeout", "0.5", input="while True:\n    pass\n")
    assert r.code == 2
    assert r.stderr.startswith("TimeoutError: ")
    assert len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------- jacobian

@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_in_both_modes(cli, mode):
    doc = cli("jacobian", "y = stack([x[0]*x[1], x[0]**2, sin(x[1])])", "--at", "x=[1,2]",
              "--mode", mode, "--dtype", "float64", "--json").json()
    assert doc["outputs"] == ["y"]
    assert np.allclose(doc["jacobian"]["y"]["x"], [[2, 1], [2, 0], [0, np.cos(2)]])


def test_jacobian_of_several_inputs_and_plain_text(cli):
    r = cli("jacobian", "y = x * w", "--at", "x=[1,2]", "--at", "w=[3,4]")
    assert r.code == 0
    assert "J[y/x]" in r.stdout and "J[y/w]" in r.stdout
    doc = cli("jacobian", "y = x * w", "--at", "x=[1,2]", "--at", "w=[3,4]", "--json").json()
    assert doc["jacobian"]["y"] == {"x": [[3.0, 0.0], [0.0, 4.0]], "w": [[1.0, 0.0], [0.0, 2.0]]}


def test_jacobian_matches_pytorch(cli, oracle):
    def jacobian(torch):
        x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
        return torch.autograd.functional.jacobian(lambda t: torch.tanh(t) * t.sum(), x).numpy()
    expected = oracle(jacobian)
    doc = cli("jacobian", "y = tanh(x) * x.sum()", "--at", "x=[0.3,-1.2,2.0]", "--dtype",
              "float64", "--json").json()
    assert np.allclose(doc["jacobian"]["y"]["x"], expected, rtol=1e-12)


@pytest.mark.parametrize("expression, expected", [
    ("x.sort().values", [[0, 1, 0], [1, 0, 0], [0, 0, 1]]),
    ("x.topk(2).values", [[0, 0, 1], [1, 0, 0]]),
    ("x.cummax(0).values", [[1, 0, 0], [1, 0, 0], [0, 0, 1]]),
])
def test_jacobian_forward_mode_of_ops_without_a_batch_rule(cli, expression, expected):
    """Ops that cannot run batched fall back to one column at a time, as in the Python API."""
    doc = cli("jacobian", f"y = {expression}", "--at", "x=[0.5,-1.2,2.0]", "--mode", "forward",
              "--json").json()
    assert doc["jacobian"]["y"]["x"] == expected


def test_jacobian_bad_mode_is_a_usage_error(cli):
    r = cli("jacobian", "y = x", "--at", "x=1", "--mode", "sideways")
    assert r.code == 2
    assert r.stderr == "UsageError: --mode must be reverse or forward, not 'sideways'\n"


# ---------------------------------------------------------------------- hessian

def test_hessian_json_document(cli):
    doc = cli("hessian", "f = x[0]**3 + x[0]*x[1] + 2*x[1]**3", "--at", "x=[1,1]",
              "--json").json()
    assert doc == {"dtype": "float32", "outputs": ["f"],
                   "hessian": {"f": {"x": {"x": [[6.0, 1.0], [1.0, 12.0]]}}}}


def test_hessian_across_two_inputs(cli):
    doc = cli("hessian", "f = x * y ** 2", "--at", "x=2", "--at", "y=3", "--json").json()
    h = doc["hessian"]["f"]
    assert h["x"]["x"] == 0.0 and h["x"]["y"] == 6.0 and h["y"]["x"] == 6.0 and h["y"]["y"] == 4.0


def test_hessian_of_a_non_scalar_output_is_an_error(cli):
    r = cli("hessian", "f = x * 2", "--at", "x=[1,2]")
    assert r.code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and ": " in r.stderr


# ---------------------------------------------------------------------- graph

@pytest.mark.parametrize("fmt", ["ascii", "dot", "mermaid"])
def test_graph_of_a_non_scalar_output_needs_no_grad(cli, fmt):
    """Drawing the structure runs no backward pass; only --values needs the gradient."""
    r = cli("graph", "y = x * 2", "--at", "x=[1,2]", "--format", fmt)
    assert r.code == 0 and "MulBackward0" in r.stdout
    r = cli("graph", "y = x * 2", "--at", "x=[1,2]", "--values")
    assert r.code == 2 and "grad can be implicitly created only for scalar outputs" in r.stderr


def test_graph_ascii_with_values_and_pure_ascii(cli):
    r = cli("graph", "z = (x*y + x).sum()", "--at", "x=[1,2]", "--at", "y=[3,4]", "--values")
    assert r.code == 0
    assert "SumBackward0" in r.stdout and "grad=[4., 5.]" in r.stdout
    assert "(see [1]) x (leaf)" in r.stdout
    plain = cli("graph", "z = (x*y + x).sum()", "--at", "x=[1,2]", "--at", "y=[3,4]", "--ascii")
    assert plain.stdout.isascii() and "MulBackward0" in plain.stdout


@pytest.mark.parametrize("fmt, start", [("dot", "digraph backward {"), ("mermaid", "flowchart BT")])
def test_graph_dot_and_mermaid(cli, fmt, start):
    args = ("graph", "z = sin(x) * x", "--at", "x=1", "--format", fmt)
    first, second = cli(*args), cli(*args)
    assert first.code == 0
    assert first.stdout.startswith(start)
    assert first.stdout == second.stdout  # deterministic
    assert "SinBackward0" in first.stdout and "MulBackward0" in first.stdout


def test_graph_bad_format_is_a_usage_error(cli):
    r = cli("graph", "z = x", "--at", "x=1", "--format", "gif")
    assert (r.code, r.stderr) == (
        2, "UsageError: --format must be ascii, dot, mermaid, svg or png, not 'gif'\n")


# ---------------------------------------------------------------------- explain

def test_explain_walks_the_chain_rule(cli):
    r = cli("explain", "z = (2*x)**3", "--at", "x=3")
    assert r.code == 0
    out = r.stdout
    assert "z = (2 * x) ** 3" in out or "z = (x * 2) ** 3" in out
    assert out.index("PowBackward0") < out.index("MulBackward0")  # autograd's order
    assert "-> accumulates into x.grad" in out
    assert out.rstrip().endswith("dz/dx = 216.")


def test_explain_notes_a_kink(cli):
    r = cli("explain", "y = relu(x) * 3", "--at", "x=0")
    assert r.code == 0
    assert re.search(r"kink", r.stdout, re.I)


# ---------------------------------------------------------------------- check

def test_check_passes_with_exit_0_and_fails_with_exit_1(cli):
    ok = cli("check", "z=(2*x)**3", "--at", "x=3", "--expect", "x.grad=216")
    assert ok.code == 0
    bad = cli("check", "z=(2*x)**3", "--at", "x=3", "--expect", "x.grad=215")
    assert bad.code == 1


def test_check_json_document(cli):
    r = cli("check", "z=(2*x)**3", "--at", "x=3", "--expect", "x.grad=216", "--expect", "z=215",
            "--json")
    assert r.code == 1
    assert r.json() == {"passed": False, "checks": [
        {"name": "x.grad", "expected": 216, "actual": 216.0, "ok": True},
        {"name": "z", "expected": 215, "actual": 216.0, "ok": False}]}


def test_check_tolerances(cli):
    args = ("check", "y = x / 3", "--at", "x=1", "--expect", "y=0.3333")
    assert cli(*args).code == 1
    assert cli(*args, "--atol", "1e-3").code == 0
    assert cli(*args, "--rtol", "1e-3").code == 0


def test_check_gradcheck_against_finite_differences(cli):
    r = cli("check", "y = sin(x) * x", "--at", "x=0.3", "--gradcheck")
    assert r.code == 0
    assert "gradcheck" in r.stdout


def test_check_gradcheck_fails_for_a_wrong_custom_gradient(cli):
    program = (
        "import torch\n"
        "class Bad(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        x, = ctx.saved_tensors\n"
        "        return g * x\n"
        "y = Bad.apply(x)\n")
    r = cli("check", program, "--at", "x=1.5", "--gradcheck")
    assert r.code == 1


@pytest.mark.parametrize("program, x", [
    ("y = (x * randn(2)).sum()", "[1,2]"),          # random numbers: the same in every evaluation
    ("y = (x * rand(20) + randn(20)).sum()", "randn(20)"),
    ("y = x**3", "[1,2]"),                          # a non-scalar output: gradcheck needs no --grad
])
def test_check_gradcheck_of_random_and_non_scalar_programs(cli, program, x):
    r = cli("check", program, "--at", f"x={x}", "--gradcheck", "--json")
    assert r.code == 0 and r.json()["passed"] is True


def test_check_expects_no_gradient(cli):
    program = "y = x.detach() * w"
    r = cli("check", program, "--at", "x=2", "--at", "w=3", "--expect", "x.grad=None", "--json")
    assert r.code == 0 and r.json()["checks"][0]["ok"] is True
    r = cli("check", program, "--at", "x=2", "--at", "w=3", "--expect", "w.grad=None")
    assert r.code == 1  # w has a gradient (2.)


def test_check_expectation_on_an_unknown_name_is_an_error(cli):
    r = cli("check", "z = x * 2", "--at", "x=1", "--expect", "w.grad=1")
    assert r.code == 2
    assert len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------- plot

def test_plot_draws_output_and_derivative(cli):
    r = cli("plot", "y = tanh(x)", "--at", "x=-3:3", "--width", "40", "--height", "10")
    assert r.code == 0
    lines = r.stdout.splitlines()
    assert len(lines) >= 10
    assert max(len(line) for line in lines) <= 40 + 20


def _plot_grid(stdout, width, height):
    """The plot's labels and its rows of cells (the x axis line below says where they start)."""
    lines = stdout.splitlines()
    start = len(lines[height]) - len(lines[height].lstrip())
    return ([line[:start].strip() for line in lines[:height]],
            [line[start:].ljust(width) for line in lines[:height]])


def test_plot_draws_each_series_as_a_line_without_gaps(cli):
    # y = 2x over [-1, 1] sampled at 5 points: the output is a diagonal through every column,
    # its derivative the top row; the y axis is labelled at the top, at 0 and at the bottom
    r = cli("plot", "y = 2*x", "--at", "x=-1:1:5", "--width", "41", "--height", "9", "--ascii")
    assert r.code == 0, r.stderr
    labels, grid = _plot_grid(r.stdout, 41, 9)
    assert labels[0] == "2" and labels[4] == "0" and labels[8] == "-2"
    for c in range(41):
        column = [grid[i][c] for i in range(9)]
        assert column.count("*") == 1, (c, column)
    assert grid[8][0] == "*" and grid[0][40] == "*" and grid[4][20] == "*"
    assert grid[0].startswith("+" * 30) and set(grid[0]) == {"+", "*"}
    assert set(grid[4]) <= {"-", "|", "*"}


def test_plot_breaks_its_line_where_the_value_is_not_finite(cli):
    # x / x is 1 but nan at 0 (the middle sample): two pieces of line, with a gap between
    r = cli("plot", "y = x / x", "--at", "x=-1:1:5", "--width", "41", "--height", "9",
            "--ascii")
    assert r.code == 0, r.stderr
    labels, grid = _plot_grid(r.stdout, 41, 9)
    assert labels[0] == "1"
    top = grid[0]
    assert top[:11] == "*" * 11 and top[30:] == "*" * 11
    assert "*" not in top[11:30]


def test_plot_json_samples(cli):
    doc = cli("plot", "y = x ** 2", "--at", "x=-1:1", "--points", "5", "--json").json()
    assert doc == {"input": "x", "output": "y", "x": [-1.0, -0.5, 0.0, 0.5, 1.0],
                   "y": [1.0, 0.25, 0.0, 0.25, 1.0], "dy": [-2.0, -1.0, 0.0, 1.0, 2.0]}


def test_plot_needs_a_range(cli):
    r = cli("plot", "y = x", "--at", "x=3")
    assert r.code == 2
    assert len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------- ops

def test_ops_lists_the_table(cli):
    r = cli("ops")
    assert r.code == 0
    for name in ("add", "sin", "matmul", "sum"):
        assert re.search(rf"^{name}\b", r.stdout, re.M), name


def test_ops_one_op_and_json(cli):
    doc = cli("ops", "sin", "--json").json()
    (row,) = doc["ops"]
    assert row["name"] == "sin" and row["grad_fn"] == "SinBackward0"
    assert "cos" in row["formula"]
    assert row["doc"] == gradcli.ops.OPS["sin"].doc


@pytest.mark.parametrize("name", ["linalg.solve", "linalg.norm", "linalg.det"])
def test_ops_lists_the_torch_linalg_namespace(cli, name):
    """SPEC names linalg.norm and linalg.solve; `gradcli ops NAME` finds them under that name
    (or as another name of an op listed under its own, like det)."""
    (row,) = cli("ops", name, "--json").json()["ops"]
    assert name == row["name"] or name in row["aliases"]
    assert row["grad_fn"] and row["formula"]


def test_ops_overload_signatures_show_each_form(cli):
    (row,) = cli("ops", "sum", "--json").json()["ops"]
    assert row["signature"] == "sum(self, dtype=None) | sum(self, dim, keepdim=False, dtype=None)"
    assert "…" not in cli("ops").stdout


def test_ops_unknown_name(cli):
    r = cli("ops", "no_such_op")
    assert r.code == 2
    assert len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------- test (transcripts)

def test_test_command_passes_and_fails(cli, tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(">>> 1 + 1\n2\n")
    bad = tmp_path / "bad.txt"
    bad.write_text(">>> 1 + 1\n3\n")
    assert cli("test", str(good)).code == 0
    r = cli("test", str(bad))
    assert r.code == 1
    assert "-3" in r.stdout and "+2" in r.stdout


def test_test_command_fails_a_file_without_sessions(cli, tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(">>> 1 + 1\n2\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a transcript\n")
    r = cli("test", str(good), str(notes))
    assert r.code == 1
    assert f"{notes}: no transcript sessions in it" in r.stdout
    assert r.stdout.rstrip().endswith("total: 1/2 sessions match")


def test_test_command_missing_file(cli, tmp_path):
    r = cli("test", str(tmp_path / "none.txt"))
    assert r.code == 2 and r.stderr.startswith("UsageError: no such file")


# ---------------------------------------------------------------------- app-wide

def test_version(cli):
    r = cli("--version")
    from gradcli.kernel.wall import describe
    assert (r.code, r.stdout) == (0, f"gradcli {gradcli.__version__}\n{describe()}\n")


def test_unknown_command_and_option_are_usage_errors_with_exit_2(gradcli_process):
    assert gradcli_process("frobnicate").code == 2
    r = gradcli_process("eval", "y = x", "--bogus")
    assert r.code == 2
    assert "Traceback" not in r.stderr


def test_a_command_is_built_alone_and_errs_as_in_the_whole_app(gradcli_process):
    """Only the command argv names is built (start-up); its usage errors, and a misspelt
    command's suggestion, read as they do from the whole app."""
    from gradcli.cli.app import app, app_for
    assert [c.name for c in app_for(["eval", "x"]).registered_commands] == ["eval"]
    assert app_for(["--version"]) is app and app_for(["evl"]) is app
    r = gradcli_process("eval")
    assert r.code == 2 and r.stderr.splitlines()[0] == "Usage: gradcli eval [OPTIONS] {PROGRAM}"
    assert r.stderr.splitlines()[-1] == "Error: Missing argument 'PROGRAM'."
    r = gradcli_process("evl", "x")
    assert r.code == 2 and "No such command 'evl'. Did you mean 'eval'?" in r.stderr


def test_help_of_every_command(cli):
    for command in ("eval", "run", "repl", "test", "jacobian", "hessian", "graph", "explain",
                    "check", "plot", "ops"):
        r = cli(command, "--help")
        assert r.code == 0 and "Usage:" in r.stdout, command


def test_shell_completion_script(gradcli_process):
    r = gradcli_process("--show-completion", "bash", env={"SHELL": "/bin/bash"})
    assert r.code == 0, r.stderr
    assert "complete" in r.stdout and "gradcli" in r.stdout.lower()


def test_program_from_at_file(cli, tmp_path):
    path = tmp_path / "f.grad"
    path.write_text("z = (2*x)**3\n")
    doc = cli("eval", f"@{path}", "--at", "x=3", "--json").json()
    assert doc["gradients"] == {"z": {"x": 216.0}}


def test_program_that_is_an_error_in_json(cli):
    r = cli("jacobian", "y = x +", "--at", "x=1", "--json")
    assert r.code == 2
    err = r.json()["error"]
    assert err["type"] == "SyntaxError" and err["line"] == 1 and isinstance(err["column"], int)


def test_quiet_eval_prints_the_gradients_alone(cli):
    r = cli("eval", "y = relu(x) + w", "--at", "x=-1", "--at", "w=2", "--quiet")
    assert (r.code, r.stdout) == (0, "dy/dx = 0.\ndy/dw = 1.\n")


def test_quiet_check_prints_the_failures_alone(cli):
    ok = cli("check", "z=(2*x)**3", "--at", "x=3", "--expect", "x.grad=216", "--quiet")
    assert (ok.code, ok.stdout) == (0, "")
    bad = cli("check", "z=(2*x)**3", "--at", "x=3", "--expect", "x.grad=216", "--expect", "z=1",
              "-q")
    assert (bad.code, bad.stdout) == (1, "FAIL z: expected 1, got 216.0\n")


def test_ops_row_of_a_function_over_other_ops_shows_their_node_and_formula(cli):
    (row,) = cli("ops", "norm", "--json").json()["ops"]
    vector_norm = gradcli.ops.OPS["linalg_vector_norm"]
    assert row["grad_fn"] == vector_norm.grad_fn_name == "LinalgVectorNormBackward0"
    assert row["formula"] == vector_norm.formula


def test_graph_values_show_the_gradients_of_a_program_that_backpropagates_itself(cli):
    r = cli("graph", "y = (x**2).sum(); y.backward()", "--at", "x=[1.,3]", "--values")
    assert r.code == 0
    assert "PowBackward0  value=[1., 9.]  grad=[1., 1.]" in r.stdout
    assert "x (leaf, AccumulateGrad)  value=[1., 3.]  grad=[2., 6.]" in r.stdout


def test_check_expect_notes_the_kink_it_met(cli):
    # torch: relu'(0) = 0 and clamp(x, 0, 1)' = 1 at the bound 0 (the subgradients PyTorch uses)
    r = cli("check", "y = relu(x)", "--at", "x=0", "--expect", "x.grad=0")
    assert r.code == 0
    assert r.stdout.splitlines()[0] == ("ok   x.grad: expected 0, got 0.0 "
                                        "(kink: relu at 0: the subgradient 0 was used)")
    doc = cli("check", "y = clamp(x, 0, 1).sum()", "--at", "x=[0.,0.5]", "--expect",
              "x.grad=[1,1]", "--expect", "y=0.5", "--json").json()
    assert doc["checks"][0]["detail"] == "kink: clamp at its bound 0: the gradient 1 was used"
    assert "detail" not in doc["checks"][1]  # a value check meets no kink


def test_check_gradcheck_failure_says_numerical_and_analytical_on_one_line(cli):
    r = cli("check", "y = relu(x)", "--at", "x=[0.,1]", "--gradcheck")
    assert r.code == 1
    assert r.stdout.splitlines()[0] == (
        "FAIL gradcheck(y) (Jacobian mismatch for output 0 with respect to input 0: numerical "
        "tensor([[0.5000, 0.0000], [0.0000, 1.0000]]) analytical tensor([[0., 0.], [0., 1.]]); "
        "kink: relu at 0: the subgradient 0 was used)")
