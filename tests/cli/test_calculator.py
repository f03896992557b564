"""The calculator as people use it (issue 21): error positions, `run @FILE`, sweeps, shell
completion, consistent JSON, calculator names; through the real console script."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.engine.pyversion import COLUMNS

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
MISMATCH = "x = tensor([1.,2.,3.])\ny = tensor([1.,2.])\nz = x + y\n"
# 3.10 keeps no instruction columns (gradcli.engine.pyversion.COLUMNS): line only, no caret
COLUMN = ":5" if COLUMNS else ""
CARET = ["        ^"] if COLUMNS else []
WHERE = "(line 3, column 5)" if COLUMNS else "(line 3)"
SIZE_ERROR = ("RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at "
              "non-singleton dimension 0")


def on_terminal(*args, env=None, input_bytes=None):
    """gradcli with stdout and stderr on a pseudo-terminal; (exit code, text without ANSI)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    e = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="250")
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.Popen([sys.executable, "-m", "gradcli.cli.main", *args],
                         stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=e, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = p.wait(timeout=120)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")


# ---------------------------------------------------------------------- 1. error positions

def test_run_prints_file_line_column_source_and_caret(gradcli_process, tmp_path):
    path = tmp_path / "mismatch.grad"
    path.write_text(MISMATCH)
    r = gradcli_process("run", str(path))
    assert r.code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [f"{path}:3{COLUMN}: {SIZE_ERROR}", "    z = x + y", *CARET]


def test_run_from_stdin_names_stdin(gradcli_process):
    r = gradcli_process("run", "-", input=MISMATCH)
    assert r.code == 2
    assert r.stderr.splitlines()[0] == f"<stdin>:3{COLUMN}: {SIZE_ERROR}"


def test_run_syntax_error_has_the_same_form(gradcli_process, tmp_path):
    path = tmp_path / "bad.grad"
    path.write_text("x = 1\ny = (2\n")
    r = gradcli_process("run", str(path))
    assert r.code == 2
    assert r.stderr.splitlines() == [f"{path}:2:5: SyntaxError: '(' was never closed",
                                     "    y = (2", "        ^"]


def test_run_json_error_keeps_line_and_column(gradcli_process, tmp_path):
    path = tmp_path / "mismatch.grad"
    path.write_text(MISMATCH)
    r = gradcli_process("run", str(path), "--json")
    assert r.code == 2
    assert r.json()["error"] == {"type": "RuntimeError", "message": SIZE_ERROR[14:],
                                 "line": 3, "column": 5 if COLUMNS else None}


def test_eval_on_a_terminal_shows_the_position():
    code, text = on_terminal("eval", MISMATCH)
    assert code == 2
    lines = text.splitlines()
    assert lines[0] == f"{SIZE_ERROR} {WHERE}"
    assert lines[1:1 + 1 + len(CARET)] == ["    z = x + y", *CARET]


def test_eval_of_a_file_on_a_terminal_names_the_file(tmp_path):
    path = tmp_path / "m.grad"
    path.write_text(MISMATCH)
    code, text = on_terminal("eval", f"@{path}")
    assert code == 2 and text.splitlines()[0] == f"{path}:3{COLUMN}: {SIZE_ERROR}"


def test_piped_eval_keeps_the_one_line_error(gradcli_process):
    r = gradcli_process("eval", MISMATCH)
    assert r.code == 2 and r.stderr == SIZE_ERROR + "\n"


def test_piped_repl_keeps_pytorchs_line_alone(gradcli_process):
    r = gradcli_process("repl", input=MISMATCH + "print(1)\n")
    assert r.stdout == SIZE_ERROR + "\n1\n"


# ---------------------------------------------------------------------- 4. run @FILE

def test_run_at_file_works_like_every_other_command(gradcli_process, tmp_path):
    path = tmp_path / "p.grad"
    path.write_text("print(2 + 3)\n")
    r = gradcli_process("run", f"@{path}")
    assert (r.code, r.stdout, r.stderr) == (0, "5\n", "")


def test_run_at_missing_file_is_a_usage_error(gradcli_process, tmp_path):
    r = gradcli_process("run", f"@{tmp_path}/nope.grad")
    assert r.code == 2
    assert r.stderr.startswith("UsageError: cannot read ") and "Traceback" not in r.stderr


@pytest.mark.parametrize("expect, code", [("dy/dx=12", 0), ("dy/dw=1", 0), ("dy/dx=13", 1),
                                          ("x.grad=12", 0)])
def test_check_expect_takes_the_label_eval_prints(gradcli_process, expect, code):
    r = gradcli_process("check", "y = x**3 + w", "--at", "x=2", "--at", "w=1", "--expect",
                        expect)
    assert r.code == code, r.stderr
    assert r.stdout.splitlines()[0].split(":")[0] in (f"ok   {expect.split('=')[0]}",
                                                      f"FAIL {expect.split('=')[0]}")


def test_check_expect_label_of_an_expression_output(gradcli_process):
    r = gradcli_process("check", "x**3", "--at", "x=2", "--expect", "d(x**3)/dx=12", "--json")
    assert r.code == 0
    assert r.json()["checks"] == [{"name": "d(x**3)/dx", "expected": 12, "actual": 12.0,
                                   "ok": True}]


@pytest.mark.parametrize("expect, message", [
    ("dz/dx=1", "UsageError: --expect dz/dx: z is not an output (outputs: y; choose with --of)"),
    ("dy/dq=1", "UsageError: --expect dy/dq: q is not an --at input (inputs: x, w)")])
def test_check_expect_label_errors(gradcli_process, expect, message):
    r = gradcli_process("check", "y = x**3 + w", "--at", "x=2", "--at", "w=1", "--expect",
                        expect)
    assert r.code == 2 and r.stderr == message + "\n"


# ---------------------------------------------------------------------- 11. help, test's diff

def test_help_lists_each_command_with_its_whole_summary(gradcli_process):
    r = gradcli_process("--help")
    assert r.code == 0 and "..." not in r.stdout.split("Commands:")[1]
    joined = " ".join(r.stdout.split())
    assert ("eval Evaluate PROGRAM and print values and gradients of each output with respect "
            "to each leaf.") in joined
    assert "check Check derivatives for scripts: exit 0 when every expectation holds, 1 " \
           "otherwise." in joined


def test_test_diff_labels_the_transcript_side_expected(gradcli_process, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("## s\n>>> 1 + 1\n3\n")
    r = gradcli_process("test", str(path))
    assert r.code == 1
    assert "--- " in r.stdout and "(expected)" in r.stdout and "(PyTorch)" not in r.stdout


# ---------------------------------------------------------------------- 10. ops

def test_ops_on_a_terminal_keeps_bracketed_text():
    code, text = on_terminal("ops", env={"COLUMNS": "400"})
    assert code == 0
    assert "self limited to [min, max]" in text and "self[i]" in text


def test_ops_piped_is_one_unpadded_line_a_row(gradcli_process):
    r = gradcli_process("ops", env={"COLUMNS": "100"})
    lines = r.stdout.splitlines()
    assert lines[0] == "op\tsignature\tgrad_fn\tderivative\tdoc"
    assert all(line.count("\t") == 4 and "  " not in line and line == line.strip()
               for line in lines)
    row = next(line for line in lines if line.startswith("clamp\t"))
    assert "[min, max]" in row


def test_ops_of_one_op_fits_and_stays_aligned(gradcli_process):
    r = gradcli_process("ops", "sin", env={"COLUMNS": "200"})
    assert r.stdout.splitlines()[0].split() == ["op", "signature", "grad_fn", "derivative", "doc"]
    assert all(len(line) <= 200 for line in r.stdout.splitlines())


# ---------------------------------------------------------------------- 6. shell completion

def _complete(gradcli_process, shell, words):
    """What the completion script typer installs asks gradcli for, as each shell asks it."""
    env = {"_GRADCLI_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env.update(COMP_WORDS=" ".join(words), COMP_CWORD=str(len(words) - 1))
    else:
        env["_TYPER_COMPLETE_ARGS"] = " ".join(words)
        if shell == "fish":
            env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    r = gradcli_process(env=env)
    assert r.code == 0 and r.stderr == ""
    return r.stdout


def test_bash_completes_commands_options_and_values(gradcli_process):
    assert _complete(gradcli_process, "bash", ["gradcli", "ev"]).split() == ["eval"]
    assert _complete(gradcli_process, "bash", ["gradcli", "eval", "x", "--dt"]).split() == \
        ["--dtype"]
    assert _complete(gradcli_process, "bash", ["gradcli", "eval", "x", "--dtype", "float6"]) \
        .split() == ["float64"]
    every = _complete(gradcli_process, "bash", ["gradcli", ""]).split()
    assert {"eval", "run", "repl", "jacobian", "check", "ops"} <= set(every)


def test_zsh_and_fish_complete_commands_and_options(gradcli_process):
    assert '"eval":' in _complete(gradcli_process, "zsh", ["gradcli", "ev"])
    assert "--dtype" in _complete(gradcli_process, "zsh", ["gradcli", "eval", "x", "--dt"])
    fish = _complete(gradcli_process, "fish", ["gradcli", "eval", "x", "--dt"])
    assert fish.startswith("--dtype\t")
    assert _complete(gradcli_process, "fish", ["gradcli", "ev"]).startswith("eval\t")


def test_install_completion_then_bash_completes(tmp_path):
    """`gradcli --install-completion` in bash, then the installed function, as bash calls it."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "gradcli").exists():
        pytest.skip("the gradcli console script is not installed beside this Python")
    env = dict(os.environ, HOME=str(tmp_path), SHELL="/bin/bash",
               PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    p = subprocess.run(["bash", "-c", "gradcli --install-completion"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    script = tmp_path / ".bash_completions" / "gradcli.sh"
    assert script.exists() and str(script) in (tmp_path / ".bashrc").read_text()
    probe = (f"source {script}\n"
             "COMP_WORDS=(gradcli ev); COMP_CWORD=1; _gradcli_completion gradcli\n"
             "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
             "COMP_WORDS=(gradcli eval x --dt); COMP_CWORD=3; _gradcli_completion gradcli\n"
             "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.stdout.split() == ["eval", "--dtype"], p.stderr


def test_no_arguments_without_completion_is_still_the_repl(gradcli_process):
    r = gradcli_process(input="1 + 1\n")
    assert r.code == 0 and r.stdout == "2\n"


# ---------------------------------------------------------------------- 7. JSON everywhere

def test_graph_json_has_nodes_edges_values_and_grads(gradcli_process):
    r = gradcli_process("graph", "z = (2*x)**3 + x", "--at", "x=3", "--json")
    assert r.code == 0, r.stderr
    doc = r.json()
    assert doc["dtype"] == "float32" and doc["outputs"] == ["z"]
    nodes = {n["id"]: n for n in doc["nodes"]}
    root = nodes[doc["roots"]["z"]]
    assert (root["grad_fn"], root["name"], root["value"], root["grad"]) == \
        ("AddBackward0", "z", 219.0, 1.0)
    (leaf,) = [n for n in doc["nodes"] if n["leaf"]]
    assert (leaf["name"], leaf["value"], leaf["grad"]) == ("x", 3.0, 217.0)
    assert {"from": root["id"], "to": leaf["id"], "input": 1} in doc["edges"]
    assert len(doc["edges"]) == 4  # add -> pow, add -> x, pow -> mul, mul -> x


def test_explain_json_has_the_steps(gradcli_process):
    r = gradcli_process("explain", "z = relu(x)*w", "--at", "x=0", "--at", "w=2", "--json")
    assert r.code == 0, r.stderr
    doc = r.json()
    (exp,) = doc["explanations"]
    assert doc["outputs"] == ["z"] and exp["at"] == {"x": 0.0, "w": 2.0}
    assert [s["node"] for s in exp["steps"]] == ["MulBackward0", "ReluBackward0"]
    assert exp["steps"][0]["contributions"][0] == {"target": "relu(x)", "local": 2.0,
                                                   "gradient": 2.0, "accumulates": None}
    assert exp["steps"][1]["kink"].startswith("relu at 0")
    assert exp["gradients"] == {"x": 0.0, "w": 0.0} and "x" in exp["why"]


def test_graph_and_explain_json_errors_are_documents(gradcli_process):
    for command in ("graph", "explain"):
        r = gradcli_process(command, "y = (x", "--json")
        assert r.code == 2 and r.json()["error"]["type"] == "SyntaxError"


@pytest.mark.parametrize("args, path, expected", [
    (["plot", "1/x", "--at", "x=-1:1:3"], ("y", 1), "inf"),
    (["plot", "1/x", "--at", "x=-1:1:3"], ("dy", 1), "-inf"),
    (["eval", "y = log(x)", "--at", "x=-1"], ("values", "y"), "nan"),
    (["jacobian", "y = 1/x", "--at", "x=[0., 1.]"], ("jacobian", "y", "x", 0, 0), "-inf"),
    (["hessian", "y = 1/x", "--at", "x=0"], ("hessian", "y", "x", "x"), "inf"),
    (["check", "y = 1/x", "--at", "x=0", "--expect", "y=inf"], ("checks", 0, "actual"), "inf"),
    (["graph", "y = 1/x", "--at", "x=0"], ("nodes", 0, "value"), "inf"),
])
def test_non_finite_numbers_are_strings_in_every_document(gradcli_process, args, path,
                                                          expected):
    r = gradcli_process(*args, "--json")
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout
    node = r.json()
    for key in path:
        node = node[key]
    assert node == expected


@pytest.mark.parametrize("command", ["jacobian", "hessian"])
def test_matrix_documents_carry_the_dtype(gradcli_process, command):
    r = gradcli_process(command, "y = (x**2).sum()", "--at", "x=[1., 2.]", "--json")
    assert r.json()["dtype"] == "float32"
    r = gradcli_process(command, "y = (x**2).sum()", "--at", "x=[1., 2.]", "--json",
                        "--dtype", "float64")
    assert r.json()["dtype"] == "float64"


# ---------------------------------------------------------------------- 2. eval --order N

def test_order_2_of_a_vector_leaf_is_its_hessian_block(gradcli_process):
    r = gradcli_process("eval", "y = x[0]*x[1]", "--at", "x=[1,2]", "--order", "2")
    assert r.code == 0
    assert r.stdout.splitlines()[2:] == ["d2y/dx2 = [[0., 1.],", "           [1., 0.]]"]


def test_order_2_gives_the_mixed_partial_of_two_leaves(gradcli_process):
    r = gradcli_process("eval", "y = x**2*w**3", "--at", "x=2", "--at", "w=1", "--order", "2")
    assert r.stdout.splitlines()[3:] == ["d2y/dx2 = 2.", "d2y/dx dw = 12.", "d2y/dw2 = 24."]
    doc = gradcli_process("eval", "y = x**2*w**3", "--at", "x=2", "--at", "w=1", "--order",
                          "2", "--json").json()
    assert doc["gradients"] == {"y": {"x": 2.0, "x,w": 12.0, "w": 24.0}}


def test_order_3_gives_pure_and_mixed_partials_of_scalar_leaves(gradcli_process):
    r = gradcli_process("eval", "y = x**2*w**3", "--at", "x=2", "--at", "w=1", "--order", "3")
    assert r.stdout.splitlines()[3:] == ["d3y/dx3 = 0.", "d3y/dx2 dw = 6.", "d3y/dx dw2 = 24.",
                                         "d3y/dw3 = 24."]


def test_a_zero_higher_derivative_has_no_why_line(gradcli_process):
    r = gradcli_process("eval", "x**3", "--at", "x=2", "--order", "4")
    assert r.code == 0 and r.stdout.splitlines()[-1] == "d4(x**3)/dx4 = 0." \
        and "why" not in r.stdout


def test_order_above_2_of_a_vector_leaf_is_a_usage_error(gradcli_process):
    r = gradcli_process("eval", "y = (x**2).sum()", "--at", "x=[1,2]", "--order", "3")
    assert r.code == 2 and r.stdout == ""
    assert r.stderr == ("UsageError: --order 3 takes scalar inputs; x has shape [2]: use gradcli "
                        "hessian (second partials) or gradcli jacobian for a vector input\n")


@pytest.mark.parametrize("program, at", [
    ("y = (x**2).sum() * w + (x[0]*x[1]).sin()", {"x": [0.5, 1.5], "w": 2.0}),
    ("y = (w * x.exp()).sum() + (w**3).sum()", {"x": [0.1, -0.3, 0.7], "w": [1.0, 2.0, 3.0]}),
])
def test_order_2_matches_torch_hessian(gradcli_process, program, at, oracle):
    args = [a for name, v in at.items() for a in ("--at", f"{name}={v}")]
    doc = gradcli_process("eval", program, *args, "--order", "2", "--dtype", "float64",
                          "--json").json()
    names = list(at)

    def torch_hessian(torch):
        inputs = tuple(torch.tensor(v, dtype=torch.float64) for v in at.values())

        def f(*tensors):
            scope = dict(zip(names, tensors))
            exec(program.replace("y =", "_y ="), {"torch": torch}, scope)
            return scope["_y"]
        blocks = torch.autograd.functional.hessian(f, inputs)
        return [[block.numpy() for block in row] for row in blocks]
    hessian = oracle(torch_hessian)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if j < i:
                continue
            key = a if a == b else f"{a},{b}"
            import numpy as np
            assert np.allclose(doc["gradients"]["y"][key], hessian[i][j], rtol=1e-9)


# ---------------------------------------------------------------------- 3. calculator names

@pytest.mark.parametrize("expression, expected", [
    ("sigmoid(1.5)", 1 / (1 + 2.718281828459045 ** -1.5)), ("relu(-1)", 0.0),
    ("softplus(2)", 2.1269280110429727), ("erf(0.5)", 0.5204998778130465),
    ("gamma(3.5)", 3.323350970447842), ("gamma(-0.5)", -3.544907701811032),
    ("sec(1)", 1.8508157176809255), ("csc(1)", 1.1883951057781212),
    ("cot(1)", 0.6420926159343308), ("factorial(5)", 120), ("factorial(5.)", 120),
    ("leaky_relu(-2., 0.1)", -0.2), ("clamp(5, 0, 1)", 1.0), ("exp(1.5)", 4.4816890703380645),
])
def test_bare_ops_on_python_numbers_are_python_numbers(gradcli_process, expression, expected):
    r = gradcli_process("repl", input=f"{expression}\n")
    (value,) = r.stdout.splitlines()  # (echoed as Python echoes a float or int: no tensor(...))
    assert float(value) == pytest.approx(expected, rel=1e-12)
    assert value == repr(type(expected)(float(value)))


def test_calculator_names_on_tensors_match_torch(gradcli_process, oracle):
    program = ("x = tensor([-0.5, 0.5, 3.5], dtype=float64, requires_grad=True)\n"
               "y = gamma(x) + sec(x) + csc(x) + cot(x) + factorial(x + 1)\n"
               "y.sum().backward()\nprint(y.tolist())\nprint(x.grad.tolist())\n")
    r = gradcli_process("repl", input=program)
    values, grads = (json.loads(line) for line in r.stdout.splitlines())

    def torch_values(torch):
        x = torch.tensor([-0.5, 0.5, 3.5], dtype=torch.float64, requires_grad=True)
        y = (torch.lgamma(x).exp() * torch.tensor([-1., 1., 1.], dtype=torch.float64)
             + 1 / torch.cos(x) + 1 / torch.sin(x) + 1 / torch.tan(x) + torch.lgamma(x + 2).exp())
        y.sum().backward()
        return y.tolist(), x.grad.tolist()
    expected_values, expected_grads = oracle(torch_values)
    assert values == pytest.approx(expected_values, rel=1e-12)
    assert grads == pytest.approx(expected_grads, rel=1e-9)


def test_the_torch_namespace_is_still_pytorchs(gradcli_process):
    r = gradcli_process("repl", input="import torch\ntorch.sigmoid(1.5)\n")
    assert r.stdout.startswith("TypeError: sigmoid(): argument ") and \
        r.stdout.endswith("must be Tensor, not float\n")


def test_factorial_errors_are_one_line(gradcli_process):
    r = gradcli_process("eval", "factorial(2.5)")
    assert r.code == 2 and r.stderr == "ValueError: factorial() only accepts integral values\n"


def test_an_unbound_name_gets_a_binding_hint_on_a_terminal():
    code, text = on_terminal("eval", "y = x**2")
    assert code == 2 and "hint: bind it: --at x=..." in text
    code, text = on_terminal("eval", "y = xx**2", "--at", "x=1")
    assert "hint: did you mean x?" in text


@pytest.mark.parametrize("binding", ["x=torch.tensor(3.)", "x=np.float64(3)", "x=math.sqrt(9)"])
def test_at_values_may_name_torch_numpy_and_math(gradcli_process, binding):
    r = gradcli_process("eval", "y = x**2", "--at", binding, "--json")
    assert r.code == 0, r.stderr
    assert r.json()["gradients"] == {"y": {"x": 6.0}}


def test_at_modules_do_not_leak_into_the_program(gradcli_process):
    r = gradcli_process("eval", "y = torch.exp(x)", "--at", "x=torch.tensor(0.)")
    assert r.code == 2 and r.stderr.startswith("NameError: name 'torch' is not defined")


def test_at_takes_any_program_name(gradcli_process):
    r = gradcli_process("eval", "y = α**2", "--at", "α=3")
    assert r.code == 0 and r.stdout.splitlines()[-1] == "dy/dα = 6."
    r = gradcli_process("eval", "y = 1", "--at", "__x=1")
    assert r.code == 2 and r.stderr == "UsageError: --at expects NAME=VALUE, got '__x=1'\n"


# ---------------------------------------------------------------------- 5. sweeps

def test_eval_sweep_prints_a_table(gradcli_process):
    r = gradcli_process("eval", "y = x**2", "--at", "x=-1:1:5")
    assert r.code == 0, r.stderr
    assert [line.split() for line in r.stdout.splitlines()] == [
        ["x", "y", "dy/dx"], ["-1", "1.", "-2."], ["-0.5", "0.2500", "-1."], ["0", "0.", "0."],
        ["0.5", "0.2500", "1."], ["1", "1.", "2."]]


def test_eval_sweep_grid_as_csv(gradcli_process):
    r = gradcli_process("eval", "y = x**2*w", "--at", "x=-1:1:3", "--at", "w=1:2:2", "--csv")
    assert r.stdout.splitlines() == [
        "x,w,y,dy/dx,dy/dw", "-1.0,1.0,1.0,-2.0,1.0", "-1.0,2.0,2.0,-4.0,1.0",
        "0.0,1.0,0.0,0.0,0.0", "0.0,2.0,0.0,0.0,0.0", "1.0,1.0,1.0,2.0,1.0",
        "1.0,2.0,2.0,4.0,1.0"]


def test_eval_sweep_zip_as_jsonl(gradcli_process):
    r = gradcli_process("eval", "y = x*w", "--at", "x=0:1:2", "--at", "w=1:2:2", "--zip",
                        "--jsonl")
    assert [json.loads(line) for line in r.stdout.splitlines()] == [
        {"at": {"x": 0.0, "w": 1.0}, "values": {"x": 0.0, "w": 1.0, "y": 0.0},
         "gradients": {"y": {"x": 1.0, "w": 0.0}}},
        {"at": {"x": 1.0, "w": 2.0}, "values": {"x": 1.0, "w": 2.0, "y": 2.0},
         "gradients": {"y": {"x": 2.0, "w": 1.0}}}]


def test_eval_sweep_json_is_one_document_with_fixed_bindings(gradcli_process):
    doc = gradcli_process("eval", "y = 1/x*w", "--at", "x=0:1:2", "--at", "w=3",
                          "--json").json()
    assert (doc["dtype"], doc["outputs"], doc["order"]) == ("float32", ["y"], 1)
    assert [p["at"] for p in doc["points"]] == [{"x": 0.0}, {"x": 1.0}]
    assert doc["points"][0]["values"]["y"] == "inf"
    assert doc["points"][1]["gradients"] == {"y": {"x": -3.0, "w": 1.0}}


def test_a_sweep_runs_in_one_evaluator(cli, monkeypatch):
    from gradcli.kernel import process
    calls = []
    real = process.run_task
    monkeypatch.setattr(process, "run_task", lambda *a, **k: calls.append(1) or real(*a, **k))
    r = cli("eval", "y = x**2", "--at", "x=-1:1:50", "--csv")
    assert r.code == 0 and len(r.stdout.splitlines()) == 51 and calls == [1]


def test_check_sweep_reports_each_failing_point(gradcli_process):
    r = gradcli_process("check", "y = x**2", "--at", "x=-1:1:5", "--expect", "dy/dx=2")
    assert r.code == 1
    assert r.stdout.splitlines() == [
        "FAIL at x=-1: dy/dx: expected 2, got -2.0", "FAIL at x=-0.5: dy/dx: expected 2, got -1.0",
        "FAIL at x=0: dy/dx: expected 2, got 0.0", "FAIL at x=0.5: dy/dx: expected 2, got 1.0",
        "1/5 points passed"]
    r = gradcli_process("check", "y = x**2", "--at", "x=-1:1:5", "--expect", "dy/dx=2*x",
                        "--gradcheck")
    assert (r.code, r.stdout) == (0, "5/5 points passed\n")


def test_check_sweep_json(gradcli_process):
    r = gradcli_process("check", "y = x**2", "--at", "x=0:1:2", "--expect", "dy/dx=2", "--json")
    doc = r.json()
    assert r.code == 1 and doc["passed"] is False
    assert [(p["at"], p["passed"]) for p in doc["points"]] == [({"x": 0.0}, False),
                                                               ({"x": 1.0}, True)]


def test_jacobian_sweep_keeps_the_inputs_order(gradcli_process):
    r = gradcli_process("jacobian", "y = x*w", "--at", "x=[1.,2.]", "--at", "w=0:1:2", "--csv")
    assert r.stdout.splitlines() == ["w,J[y/x],J[y/w]",
                                     '0.0,"[[0.0, 0.0], [0.0, 0.0]]","[1.0, 2.0]"',
                                     '1.0,"[[1.0, 0.0], [0.0, 1.0]]","[1.0, 2.0]"']
    doc = gradcli_process("jacobian", "y = x*w", "--at", "x=[1.,2.]", "--at", "w=0:1:2",
                          "--json").json()
    assert doc["points"][1] == {"at": {"w": 1.0},
                                "jacobian": {"y": {"x": [[1.0, 0.0], [0.0, 1.0]],
                                                   "w": [1.0, 2.0]}}}


@pytest.mark.parametrize("args, message", [
    (["--at", "x=1", "--zip"], "--zip pairs sweeps: give --at NAME=START:STOP:POINTS"),
    (["--at", "x=1:2:3", "--at", "w=1:2:2", "--zip"],
     "--zip pairs sweeps of the same number of points, not x (3), w (2)"),
    (["--at", "x=1:2:0"], "--at x=1:2:0: the number of points must be 1 to 1,000,000"),
    (["--at", "x=1:2:3", "--at", "x=1"], "--at x is given twice"),
    (["--at", "x=0:1:1001", "--at", "w=0:1:1000"],
     "the sweep grid has 1,001,000 points (at most 1,000,000); use fewer points or --zip"),
])
def test_sweep_usage_errors(gradcli_process, args, message):
    r = gradcli_process("eval", "y = x", *args)
    assert r.code == 2 and r.stdout == ""
    assert r.stderr == f"UsageError: {message}\n"


def test_sweep_usage_error_with_jsonl_is_a_json_document(gradcli_process):
    r = gradcli_process("eval", "y = x", "--at", "x=1:2:0", "--jsonl")
    assert r.code == 2 and r.json()["error"]["type"] == "UsageError"
    r = gradcli_process("eval", "y = x", "--at", "x=1:2:3", "--csv", "--jsonl")
    assert r.code == 2
    assert r.json()["error"]["message"] == "choose one of --csv, --json and --jsonl"


def test_a_program_error_in_a_sweep_is_one_line(gradcli_process):
    r = gradcli_process("eval", "y = x + tensor([1., 2.])[5]", "--at", "x=0:1:3", "--csv")
    assert r.code == 2 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("IndexError: ")


# ---------------------------------------------------------------------- 12. plots and pictures

BRAILLE = re.compile("[\u2801-\u28ff]")


def test_plot_draws_two_panels_with_their_own_axes(gradcli_process):
    pytest.importorskip("plotille")
    r = gradcli_process("plot", "1/x", "--at", "x=-3:3", "--width", "60", "--height", "20")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    titles = [i for i, line in enumerate(lines) if line.lstrip().startswith("(") and "^" in line]
    assert [lines[i].split()[0] for i in titles] == ["(1/x)", "(d(1/x)/dx)"]
    top, bottom = lines[titles[0]:titles[1]], lines[titles[1]:]
    for panel in (top, bottom):
        assert sum(bool(BRAILLE.search(line)) for line in panel) >= 4  # not one flat row
    # each panel's y axis is its own: 1/x's within about +-11, its derivative's down to -105
    top_labels = [float(line.split("|")[0]) for line in top[1:] if "|" in line and
                  line.split("|")[0].strip().lstrip("-").replace(".", "").isdigit()]
    bottom_labels = [float(line.split("|")[0]) for line in bottom[1:] if "|" in line and
                     line.split("|")[0].strip().lstrip("-").replace(".", "").isdigit()]
    assert max(top_labels) < 20 and min(bottom_labels) < -50
    assert lines[-1] == "1/x (top) and d(1/x)/dx (bottom), x from -3 to 3, 61 points"


def test_plot_ascii_keeps_the_character_grid(gradcli_process):
    r = gradcli_process("plot", "y = 2*x", "--at", "x=-1:1:5", "--width", "41", "--height",
                        "9", "--ascii")
    assert r.code == 0 and not BRAILLE.search(r.stdout) and "*" in r.stdout


def _png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_plot_output_png_and_svg(gradcli_process, tmp_path):
    pytest.importorskip("matplotlib")
    png, svg = tmp_path / "p.png", tmp_path / "p.svg"
    r = gradcli_process("plot", "1/x", "--at", "x=-3:3", "--output", str(png))
    assert (r.code, r.stdout) == (0, f"wrote {png} (PNG, 800x600 px)\n"), r.stderr
    assert _png_size(png.read_bytes()) == (800, 600)
    r = gradcli_process("plot", "sin(x)", "--at", "x=-3:3", "-o", str(svg))
    assert r.code == 0, r.stderr
    import xml.etree.ElementTree as ET
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and (root.get("width"), root.get("height")) == \
        ("576pt", "432pt")


@pytest.mark.parametrize("name, message", [
    ("p.gif", "UsageError: --output {path}: the file must end in .png or .svg"),
    ("missing/p.png", "UsageError: cannot write {path}: No such file or directory")])
def test_plot_output_errors(gradcli_process, tmp_path, name, message):
    pytest.importorskip("matplotlib")
    path = tmp_path / name
    r = gradcli_process("plot", "x", "--at", "x=-1:1", "-o", str(path))
    assert r.code == 2 and r.stderr == message.format(path=path) + "\n"


def test_plot_output_without_matplotlib_says_how_to_install(gradcli_process, tmp_path):
    blocker = tmp_path / "block"
    blocker.mkdir()
    # a Python on which matplotlib cannot be found (sitecustomize hides it)
    (blocker / "sitecustomize.py").write_text(
        "import sys\nclass Hide:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'matplotlib':\n            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n")
    r = gradcli_process("plot", "x", "--at", "x=-1:1", "-o", str(tmp_path / "p.png"),
                        env={"PYTHONPATH": f"{blocker}{os.pathsep}{ROOT}"})
    assert r.code == 2
    assert r.stderr == "UsageError: --output needs matplotlib: pip install 'gradcli[plot]'\n"


def test_plot_rejects_malformed_data_from_the_evaluator():
    from gradcli.render.plot import curve_from_json
    for bad in ([], {"x": [1], "y": [1, 2], "dy": [1]}, {"x": ["1"], "y": [1], "dy": [1]},
                {"x": [True], "y": [1], "dy": [1]}, {"x": [1], "y": [{}], "dy": [1]}):
        with pytest.raises(ValueError):
            curve_from_json(bad)
    curve = curve_from_json({"x": [0, 1], "y": ["inf", 2], "dy": ["nan", "-inf"],
                             "input": "x", "output": "y"})
    assert curve.ys[0] == float("inf") and curve.dys[1] == float("-inf")
    with pytest.raises(ValueError):  # (matplotlib's axis limits would raise)
        curve_from_json({"x": ["nan", 1], "y": [1, 2], "dy": [1, 2]})


@pytest.mark.parametrize("spec", ["x=-1e308:1e308", "x=-inf:0", "x=0:nan:5"])
def test_plot_of_a_range_whose_points_overflow_is_a_usage_error(gradcli_process, spec):
    """(-1e308:1e308 spaced its points by inf: plotille's AssertionError reached the user.)"""
    r = gradcli_process("plot", "y = x * 2", "--at", spec)
    assert (r.code, r.stdout) == (2, "")
    assert r.stderr == (f"UsageError: --at {spec!r}: START and STOP must be finite and less "
                        f"than 1.8e+308 apart\n")


needs_dot = pytest.mark.skipif(__import__("shutil").which("dot") is None,
                               reason="Graphviz's dot is not on PATH")


@needs_dot
def test_graph_svg_and_png_through_graphviz(gradcli_process, tmp_path):
    r = gradcli_process("graph", "z = (2*x)**3 + x", "--at", "x=3", "--format", "svg",
                        "--values")
    assert r.code == 0, r.stderr
    import xml.etree.ElementTree as ET
    root = ET.fromstring(r.stdout)
    assert root.tag.endswith("svg")
    width, height = (float(root.get(k).rstrip("pt")) for k in ("width", "height"))
    assert 100 < width < 2000 and 100 < height < 2000
    assert "MulBackward0" in r.stdout and "AccumulateGrad" in r.stdout
    png = tmp_path / "g.png"
    r = gradcli_process("graph", "z = (2*x)**3 + x", "--at", "x=3", "--format", "png", "-o",
                        str(png))
    assert r.code == 0, r.stderr
    w, h = _png_size(png.read_bytes())
    assert 50 < w < 4000 and 50 < h < 4000


def test_graph_picture_without_dot_is_a_clear_usage_error(gradcli_process, tmp_path):
    r = gradcli_process("graph", "z = x*2", "--at", "x=1", "--format", "svg",
                        env={"PATH": str(tmp_path)})
    assert r.code == 2
    assert r.stderr.startswith("UsageError: --format svg needs Graphviz's dot on PATH")


def test_graph_dot_from_untrusted_json_escapes_and_checks():
    from gradcli.render.pictures import dot_from_json
    text = dot_from_json({"outputs": ["z"], "roots": {"z": "n0"}, "edges": [],
                          "nodes": [{"id": "n0", "label": 'a"] ; n9 [image="/etc/passwd'}]})
    assert 'label="a\\"] ; n9 [image=\\"/etc/passwd"' in text
    with pytest.raises(ValueError):
        dot_from_json({"outputs": [], "roots": {}, "edges": [],
                       "nodes": [{"id": "n0; x [image=y]", "label": ""}]})


def test_graph_output_writes_the_text_formats_too(gradcli_process, tmp_path):
    path = tmp_path / "g.dot"
    r = gradcli_process("graph", "z = x*2", "--at", "x=3", "--format", "dot", "-o", str(path))
    assert r.code == 0 and r.stdout == ""
    assert path.read_text().startswith("digraph backward {")
