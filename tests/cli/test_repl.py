"""The interactive REPL driven through prompt-toolkit's pipe input and a dummy output (as pgcli
and ptpython test theirs): every keystroke goes through the real PromptSession."""

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gradcli.cli.history import history_path, open_history
from gradcli.cli.lexer import ReplLexer
from gradcli.cli.repl import Repl, input_is_ready, split_statements
from gradcli.cli.toolbar import toolbar_fragments
from gradcli.engine.pyversion import COLUMNS
from gradcli.engine import dtypes
from gradcli.engine.grad_mode import GradMode
from gradcli.lang.parser import is_complete
from tests.interrupts import interrupting_loop

ROOT = Path(__file__).resolve().parents[2]
ENTER = "\r"
CTRL_C, CTRL_D, CTRL_R = "\x03", "\x04", "\x12"
UP, RIGHT = "\x1b[A", "\x1b[C"
PAUSE = None  # let prompt-toolkit's background tasks (completion, suggestion, history) finish


def paste(text):
    return "\x1b[200~" + text + "\x1b[201~"


@pytest.fixture(autouse=True)
def _engine_state():
    yield
    dtypes.set_default_dtype(dtypes.float32)
    GradMode.enabled = True


class NarrowOutput(DummyOutput):
    def get_size(self):
        return Size(rows=10, columns=12)


@pytest.fixture
def repl_run(tmp_path):
    """Type `keys` into a fresh REPL; returns (exit status, everything it printed, the Repl)."""
    def run(*keys, history_file=None, output=None, color=False, session_factory=None):
        out = io.StringIO()
        with create_pipe_input() as inp:
            repl = Repl(out=out, color=color, input=inp, output=output or DummyOutput(),
                        history_file=history_file or tmp_path / "history",
                        session_factory=session_factory)
            typist = threading.Thread(target=type_keys, args=(inp, keys + (CTRL_D,), repl))
            typist.start()
            status = repl.loop()
            typist.join()
        return status, out.getvalue(), repl
    return run


def type_keys(inp, keys, repl=None):
    chunk = ""
    for key in keys:
        if key is PAUSE:
            inp.send_text(chunk)
            chunk = ""
            _settle(repl)
        else:
            chunk += key
    inp.send_text(chunk)


def _completing(task):
    name = getattr(task.get_coro(), "__qualname__", "")
    return "complet" in name or "suggest" in name


def _settle(repl, quiet=0.3, limit=5.0):
    """Wait until prompt-toolkit's completion and suggestion tasks are done
    and the line being typed has not changed for `quiet` seconds, at most `limit` seconds: a
    fixed pause is too short on a busy machine."""
    time.sleep(quiet)
    if repl is None:
        return
    tasks = getattr(repl.prompt.app, "_background_tasks", ())
    waited = quiet
    while any(not t.done() and _completing(t) for t in list(tasks)) and waited < limit:
        time.sleep(0.05)
        waited += 0.05
    buffer = repl.prompt.default_buffer
    last, steady = buffer.text, 0.0
    while steady < quiet and waited < limit:
        time.sleep(0.05)
        waited += 0.05
        text = buffer.text
        steady = steady + 0.05 if text == last else 0.0
        last = text


def lines(text):
    return text.splitlines()[1:]  # without the banner


# ---------------------------------------------------------------------- running statements

def test_expression_values_are_echoed_as_pytorch_prints_them(repl_run):
    status, out, _ = repl_run("import torch", ENTER, "x = torch.tensor(3., requires_grad=True)",
                              ENTER, "y = (2*x)**3", ENTER, "y", ENTER, "y.backward()", ENTER,
                              "x.grad", ENTER)
    assert status == 0
    assert lines(out) == ["tensor(216., grad_fn=<PowBackward0>)", "tensor(216.)"]


def test_a_compound_statement_continues_until_an_empty_line(repl_run):
    _, out, repl = repl_run("total = 0", ENTER, "for i in range(3):", ENTER, "total += i",
                            ENTER, "print(total)", ENTER, ENTER, "total", ENTER)
    assert lines(out) == ["0", "1", "3", "3"]
    (session,) = repl.transcript.sessions
    assert session.statements[1].source == "for i in range(3):\n    total += i\n    print(total)"


def test_incomplete_input_continues_and_complete_input_runs(repl_run):
    _, out, _ = repl_run("(1 +", ENTER, "2)", ENTER)
    assert lines(out) == ["3"]


def test_tab_at_the_start_of_a_line_indents(repl_run):
    _, out, repl = repl_run("if True:", ENTER, "\t", "print(5)", ENTER, ENTER)
    assert lines(out) == ["5"]
    assert repl.transcript.sessions[0].statements[0].source == "if True:\n        print(5)"


def test_enter_decision_comes_from_the_parser():
    assert input_is_ready("x = 1", is_complete)
    assert not input_is_ready("x = (1 +", is_complete)
    assert not input_is_ready("x = (1 +\n", is_complete)  # a blank line inside brackets
    assert not input_is_ready("for i in x:", is_complete)
    assert not input_is_ready("for i in x:\n    y = i", is_complete)
    assert input_is_ready("for i in x:\n    y = i\n", is_complete)
    assert input_is_ready("for i in x:\n", is_complete)  # runs, and reports the missing block
    assert input_is_ready("def f():\n    return 1\nf()", is_complete)
    assert input_is_ready(":vars", is_complete)


def test_a_pasted_snippet_runs_statement_by_statement(repl_run):
    snippet = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\nx.sum()\n"
               "undefined_name\ndef f(t):\n    return t * 2\nf(x)\nx.grad\n")
    _, out, repl = repl_run(paste(snippet))
    assert lines(out) == [
        "tensor(3., grad_fn=<SumBackward0>)",
        "NameError: name 'undefined_name' is not defined (line 4, column 1)",
        "    undefined_name", "    ^",
        "hint: your tensors: x",
        "tensor([2., 4.], grad_fn=<MulBackward0>)"]
    statements = [s.source for s in repl.transcript.sessions[0].statements]
    assert statements[3:] == ["undefined_name", "def f(t):\n    return t * 2", "f(x)", "x.grad"]


def test_a_paste_without_final_newline_waits_for_enter(repl_run):
    _, out, _ = repl_run(paste("a = 2\na * 3"), ENTER)
    assert lines(out) == ["6"]


def test_statements_are_split_as_the_piped_repl_reads_them():
    assert split_statements("a = 1; a\nb = 2\n@dec\ndef f():\n    pass\nf()", is_complete) == [
        "a = 1; a", "b = 2", "@dec\ndef f():\n    pass", "f()"]


def test_a_statement_with_a_syntax_error_stands_alone():
    assert split_statements("x = 2 ^ 3\ny = (1,\n2) $\nz = 1", is_complete) == [
        "x = 2 ^ 3", "y = (1,\n2) $", "z = 1"]


# ---------------------------------------------------------------------- errors

def test_errors_are_type_message_with_a_hint_never_a_traceback(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "x = torch.tensor([1., 2.], requires_grad=True)",
                         ENTER, "y = x * 2", ENTER, "y.backward()", ENTER, "xx", ENTER)
    assert lines(out) == [
        "RuntimeError: grad can be implicitly created only for scalar outputs",
        "hint: y has shape [2]; it is not a scalar: pass a gradient of its shape, "
        "y.backward(torch.ones_like(y)), or reduce it first, y.sum().backward()",
        "NameError: name 'xx' is not defined",
        "hint: did you mean x?"]
    assert "Traceback" not in out


def test_backward_twice_names_the_users_variable(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "a = torch.tensor(2., requires_grad=True)", ENTER,
                         "m = a.exp()", ENTER, "m.backward()", ENTER, "m.backward()", ENTER)
    assert lines(out)[0].startswith("RuntimeError: Trying to backward through the graph a second")
    assert lines(out)[1] == ("hint: m was already backpropagated; call "
                             "m.backward(retain_graph=True) the first time, or recompute m")


def test_syntax_errors_show_a_caret(repl_run):
    _, out, _ = repl_run("x = (1 +", ENTER, ")", ENTER)
    first, source, caret = lines(out)[:3]
    assert first.startswith("SyntaxError: ") and "(line 2, column 1)" in first
    assert source == "    )" and caret == "    ^"


def test_an_error_in_a_paste_shows_its_line_in_the_paste(repl_run):
    _, out, _ = repl_run(paste("a = 1\nx = tensor([1.,2.,3.])\ny = x + tensor([1.,2.])\n"
                               "print('after')\n"))
    shown = 3 if COLUMNS else 2  # (3.10: the line alone, no caret: pyversion.COLUMNS)
    assert lines(out)[:shown] == [
        "RuntimeError: The size of tensor a (3) must match the size of tensor b (2) at "
        "non-singleton dimension 0 " + ("(line 3, column 5)" if COLUMNS else "(line 3)"),
        "    y = x + tensor([1.,2.])", "        ^"][:shown]
    assert lines(out)[shown] == "after"


def test_an_error_in_a_block_shows_its_line(repl_run):
    _, out, _ = repl_run("x = tensor([1.])", ENTER, "for i in range(2):", ENTER, "z = x[5]",
                         ENTER, ENTER)
    shown = 3 if COLUMNS else 2
    assert lines(out)[:shown] == [
        "IndexError: index 5 is out of bounds for dimension 0 with size 1 " +
        ("(line 2, column 9)" if COLUMNS else "(line 2)"),
        "        z = x[5]", "            ^"][:shown]


def test_the_session_survives_errors(repl_run):
    _, out, _ = repl_run("a = 5", ENTER, "1/0", ENTER, "a + 1", ENTER)
    assert lines(out) == ["ZeroDivisionError: division by zero", "6"]


# ---------------------------------------------------------------------- Ctrl-C, Ctrl-D

def test_ctrl_c_clears_the_input(repl_run):
    _, out, _ = repl_run("1 + half typed", CTRL_C, "40 + 2", ENTER)
    assert lines(out) == ["KeyboardInterrupt", "42"]


def test_ctrl_c_clears_a_multi_line_input(repl_run):
    _, out, _ = repl_run("for i in range(3):", ENTER, "print(i)", CTRL_C, "7", ENTER)
    assert lines(out) == ["KeyboardInterrupt", "7"]


def test_ctrl_d_exits_and_ignores_what_follows(repl_run):
    status, out, _ = repl_run("1", ENTER, CTRL_D, "2", ENTER)
    assert status == 0 and lines(out) == ["1"]


def test_quit_command_exits(repl_run):
    status, out, _ = repl_run(":quit", ENTER, "2", ENTER)
    assert status == 0 and lines(out) == []


def _interrupting(factory):
    """A session whose run() of a `while` loop gets Ctrl-C (SIGINT) while the loop runs (see
    tests.interrupts; the session's timeout ends a run whose interrupts all got lost)."""
    def make(out):
        session = factory(out)
        run = session.run

        def run_and_interrupt(source, **kw):
            if not source.startswith("while"):
                return run(source, **kw)
            kw.setdefault("timeout", 30)
            with interrupting_loop(lambda: session.namespace.get("n", 0)):
                return run(source, **kw)
        session.run = run_and_interrupt
        return session
    return make


def test_ctrl_c_interrupts_a_running_program_and_keeps_the_session(repl_run):
    from gradcli.cli.repl import _default_session
    _, out, repl = repl_run(
        "n = 0", ENTER, "while True:", ENTER, "n += 1", ENTER, ENTER, "n > 0", ENTER,
        session_factory=_interrupting(_default_session))
    assert lines(out) == ["KeyboardInterrupt", "True"]
    assert [s.source for s in repl.transcript.sessions[0].statements] == ["n = 0", "n > 0"]
    assert repl.transcript.interrupted == 1


# ---------------------------------------------------------------------- editing features

def test_tab_completes_a_tensor_attribute(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "x = torch.tensor(1., requires_grad=True)",
                         ENTER, "x.is_le\t", PAUSE, ENTER)
    assert lines(out) == ["True"]


def test_tab_completes_a_keyword_argument(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "torch.ones(2, requires_\t", PAUSE, "True)", ENTER)
    assert lines(out) == ["tensor([1., 1.], requires_grad=True)"]


def test_tab_completes_a_meta_command(repl_run):
    _, out, _ = repl_run(":dty\t", PAUSE, " float64", ENTER, "import torch", ENTER,
                         "torch.tensor(1.).dtype", ENTER)
    assert lines(out) == ["default dtype: float64", "torch.float64"]


def test_history_persists_across_sessions(repl_run, tmp_path):
    history = tmp_path / "state" / "gradcli" / "history"
    repl_run("6 * 7", ENTER, history_file=history)
    assert "+6 * 7" in history.read_text()
    _, out, _ = repl_run(PAUSE, UP, ENTER, history_file=history)
    assert lines(out) == ["42"]


def test_ctrl_r_searches_history(repl_run, tmp_path):
    history = tmp_path / "history"
    repl_run("11 * 11", ENTER, "2 + 2", ENTER, history_file=history)
    _, out, _ = repl_run(PAUSE, CTRL_R, "11 *", ENTER, ENTER, history_file=history)
    assert lines(out) == ["121"]


def test_auto_suggestion_from_history(repl_run, tmp_path):
    history = tmp_path / "history"
    repl_run("123 + 877", ENTER, history_file=history)
    _, out, _ = repl_run("123", PAUSE, RIGHT, ENTER, history_file=history)
    assert lines(out) == ["1000"]


def test_multi_line_history_entry_comes_back_whole(repl_run, tmp_path):
    history = tmp_path / "history"
    repl_run("for i in range(2):", ENTER, "print(i * 10)", ENTER, ENTER, history_file=history)
    _, out, _ = repl_run(PAUSE, UP, ENTER, ENTER, history_file=history)
    assert lines(out) == ["0", "10"]


def test_the_history_file_lives_in_the_xdg_state_directory(tmp_path):
    assert history_path({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "gradcli" / "history"
    assert history_path({}) == Path.home() / ".local" / "state" / "gradcli" / "history"
    assert history_path({"XDG_STATE_HOME": "relative"}) == history_path({})


def test_syntax_highlighting_uses_pythons_lexer_and_marks_meta_commands():
    from prompt_toolkit.document import Document
    lexer = ReplLexer()
    tokens = lexer.lex_document(Document("for x in y: pass"))(0)
    assert ("class:pygments.keyword", "for") in tokens
    assert lexer.lex_document(Document(":graph y"))(0) == [
        ("class:meta.command", ":graph"), ("class:meta.argument", " y")]


def test_toolbar_shows_grad_mode_and_default_dtype(repl_run):
    text = "".join(t for _, t in toolbar_fragments(80))
    assert "grad: enabled" in text and "dtype: float32" in text
    _, _, repl = repl_run("import torch", ENTER, "torch.set_grad_enabled(False)", ENTER,
                          ":dtype float64", ENTER)
    # (the evaluator's grad mode and dtype, as its last answer reported them)
    text = "".join(t for _, t in toolbar_fragments(80, repl.state["grad"], repl.state["dtype"]))
    assert "grad: no_grad" in text and "dtype: float64" in text


def test_toolbar_fits_a_narrow_terminal():
    for width in (4, 12, 20, 40):
        assert sum(len(t) for _, t in toolbar_fragments(width)) <= width


def test_a_very_narrow_terminal_still_works(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "torch.ones(2)", ENTER, ":vars", ENTER,
                         output=NarrowOutput())
    assert lines(out)[0] == "tensor([1., 1.])"


# ---------------------------------------------------------------------- degrading gracefully

def test_an_unwritable_history_falls_back_to_memory(repl_run, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    status, out, _ = repl_run("1 + 1", ENTER, PAUSE, UP, ENTER, history_file=blocker / "history")
    assert status == 0
    assert "history kept in memory only" in out.splitlines()[1]
    assert out.splitlines()[2:] == ["2", "2"]


def test_a_corrupt_history_file_is_tolerated(repl_run, tmp_path):
    history = tmp_path / "history"
    history.write_bytes(b"\xff\xfe\x00garbage\n+\xc3(\n\x00\x00")
    status, out, _ = repl_run("3 * 3", ENTER, history_file=history)
    assert status == 0 and lines(out) == ["9"]


def test_a_history_file_that_breaks_later_switches_to_memory(repl_run, tmp_path):
    history = tmp_path / "history"
    h, note = open_history(history)
    assert note is None
    history.unlink()
    history.mkdir()  # writing now fails
    h.store_string("x")
    assert "cannot write" in h.failed


def test_no_colour_means_no_escape_sequences(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "torch.tensor([1., 2.])", ENTER, "1/0", ENTER)
    assert "\x1b" not in out


def test_colour_output_is_highlighted_on_a_terminal(repl_run):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    with create_pipe_input() as inp:
        repl = Repl(out=out, color=True, input=inp, output=DummyOutput(),
                    history_file=os.devnull)
        repl.renderer.console._force_terminal = True
        repl.renderer.console._color_system = repl.renderer.console._detect_color_system()
        inp.send_text("import torch" + ENTER + "torch.tensor([1., 2.])" + ENTER + CTRL_D)
        repl.loop()
    text = out.getvalue()
    assert "\x1b[" in text and "1." in text


# ---------------------------------------------------------------------- start-up

def test_eval_never_imports_prompt_toolkit():
    code = ("import sys; from gradcli.cli.main import main; rc = main(['eval', 'y = x*2', "
            "'--at', 'x=3']); print('prompt_toolkit' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert p.stdout.strip().splitlines()[-1] == "False", p.stderr


# ---------------------------------------------------------------------- :save, replayed

def test_saved_session_is_a_transcript_the_replayer_accepts(repl_run, tmp_path):
    transcript = pytest.importorskip("gradcli.lang.transcript")
    saved = tmp_path / "session.txt"
    repl_run("import torch", ENTER, "x = torch.tensor([1., 2.], requires_grad=True)", ENTER,
             "y = (x ** 2).sum()", ENTER, "y", ENTER, "for k in range(2):", ENTER,
             "print(k)", ENTER, ENTER, "y.backward()", ENTER, "x.grad", ENTER,
             "y.backward()", ENTER, ":vars", ENTER, f":save {saved}", ENTER)
    text = saved.read_text()
    assert text.startswith("## session: ")
    assert ">>> for k in range(2):\n...     print(k)\n...\n0\n1\n" in text
    out = io.StringIO()
    assert transcript.replay_files([str(saved)], out) == 0, out.getvalue()


# ---------------------------------------------------------------------- Python habits (issue 21)

def test_up_with_a_prefix_searches_history_by_it(repl_run, tmp_path):
    history = tmp_path / "history"
    repl_run("11 * 11", ENTER, "2 + 2", ENTER, history_file=history)
    _, out, _ = repl_run("11", PAUSE, UP, ENTER, history_file=history)
    assert lines(out) == ["121"]


@pytest.mark.parametrize("word", ["exit", "quit", "exit()", "quit()"])
def test_exit_and_quit_leave_the_repl(repl_run, word):
    status, out, _ = repl_run("1 + 1", ENTER, word, ENTER, "2 + 2", ENTER)
    assert status == 0 and lines(out) == ["2"]


def test_help_and_question_mark_describe_an_op(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "help(torch.sin)", ENTER, "torch.sin?", ENTER)
    shown = lines(out)
    assert shown[:4] == ["sin(self)", "  sine", "  derivative: d/dself = cos(self)",
                         "  grad_fn: SinBackward0"]
    assert shown[4:] == shown[:4]


def test_help_of_a_tensor_type_dir_and_underscore(repl_run):
    _, out, _ = repl_run("x = tensor([1., 2.], requires_grad=True)", ENTER, "x?", ENTER,
                         "type(x)", ENTER, "type(1.5)", ENTER, "x.sum()", ENTER, "_ * 2", ENTER,
                         "dir(x)", ENTER)
    shown = lines(out)
    assert shown[0] == "x: Tensor of shape [2], torch.float32"
    assert "  requires_grad=True, is_leaf=True, grad_fn=None" in shown
    assert "<class 'torch.Tensor'>" in shown and "<class 'float'>" in shown
    assert "tensor(6., grad_fn=<MulBackward0>)" in shown
    names = eval(shown[-1])  # (a list of strings)
    assert {"grad", "backward", "requires_grad", "sum"} <= set(names)
    assert not any(n.startswith("_") for n in names)


def test_a_program_that_binds_help_keeps_it(repl_run):
    _, out, _ = repl_run("help = 3", ENTER, "help?", ENTER)
    assert lines(out)[0] == "help: <class 'int'> 3"


def test_a_mistyped_attribute_gets_did_you_mean(repl_run):
    _, out, _ = repl_run("x = tensor([1.], requires_grad=True)", ENTER, "x.gard", ENTER,
                         "import torch", ENTER, "torch.sinn", ENTER)
    assert lines(out) == ["AttributeError: 'Tensor' object has no attribute 'gard'",
                          "hint: did you mean 'grad'?",
                          "AttributeError: module 'torch' has no attribute 'sinn'",
                          "hint: did you mean 'sin'?"]


def test_an_integer_tensor_that_requires_grad_gets_a_hint(repl_run):
    _, out, _ = repl_run("import torch", ENTER, "torch.tensor(2, requires_grad=True)", ENTER)
    assert lines(out) == [
        "RuntimeError: Only Tensors of floating point and complex dtype can require gradients",
        "hint: 2 is an integer, so the tensor is int64, and integer tensors cannot require "
        "grad: write 2. (a float), or pass dtype=torch.float32"]


def test_dtype_takes_torch_names(repl_run):
    _, out, _ = repl_run(":dtype torch.float64", ENTER, "tensor(1.).dtype", ENTER)
    assert lines(out) == ["default dtype: float64", "torch.float64"]


def test_graph_of_an_expression(repl_run):
    _, out, _ = repl_run("x = tensor(2., requires_grad=True)", ENTER, ":graph x * 3", ENTER)
    assert lines(out)[0] == "x * 3"
    assert "MulBackward0  value=6.  grad=1." in lines(out)[1]


def test_vars_filters_by_name(repl_run):
    _, out, _ = repl_run("a = tensor(1.)", ENTER, "b = tensor(2.)", ENTER, "c = tensor(3.)",
                         ENTER, ":vars a c", ENTER, ":vars zz", ENTER)
    shown = lines(out)
    assert [row.split()[0] for row in shown[1:3]] == ["a", "c"]
    assert shown[3] == "NameError: name 'zz' is not defined"


def test_why_names_the_node_as_eval_does(repl_run, gradcli_process):
    _, out, _ = repl_run("x = tensor(2., requires_grad=True)", ENTER, "y = relu(x - 3)", ENTER,
                         "y.backward()", ENTER, ":why x", ENTER)
    why = gradcli_process("eval", "y = relu(x - 3)", "--at", "x=2").stdout.splitlines()[-1]
    assert why.startswith("  why: the gradient is zero: ReluBackward0")
    assert lines(out) == ["x.grad is zero: " + why[len("  why: "):]]


def test_piped_quit_ends_the_input(gradcli_process):
    r = gradcli_process("repl", input="print(1)\nquit()\nprint(2)\n")
    assert (r.code, r.stdout) == (0, "1\n")


# ---------------------------------------------------------------------- pastes (issue 21)

def test_a_pasted_block_with_blank_lines_runs_as_one_unit(repl_run):
    _, out, _ = repl_run(paste("def f(a):\n    b = a * 2\n\n    return b + 1\n\nprint(f(3))\n"))
    assert lines(out) == ["7"]


def test_a_pasted_class_with_blank_lines_between_methods(repl_run):
    snippet = ("import torch\nclass Cube(torch.autograd.Function):\n    @staticmethod\n"
               "    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        return x ** 3\n"
               "\n    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n"
               "\n        return 3 * x ** 2 * g\n\nx = torch.tensor(2., requires_grad=True)\n"
               "Cube.apply(x).backward()\nx.grad\n")
    _, out, _ = repl_run(paste(snippet))
    assert lines(out) == ["tensor(12.)"]


def test_pasted_doctest_text_runs_without_prompts_or_expected_output(repl_run):
    snippet = (">>> import torch\n>>> x = torch.tensor(2., requires_grad=True)\n"
               ">>> for i in range(2):\n...     print(i)\n...\n0\n1\n>>> y = x ** 3\n"
               ">>> y.backward()\n>>> x.grad\ntensor(99.)\n")
    _, out, _ = repl_run(paste(snippet))
    assert lines(out) == ["0", "1", "tensor(12.)"]


def test_enter_groups_a_wide_statement_without_parsing_it_whole():
    from gradcli.cli.repl import input_is_ready
    from gradcli.lang.parser import is_complete
    seen = []

    def counting(source):
        seen.append(len(source))
        return is_complete(source)
    text = "x = (\n" + ("1+" * 2000 + "\n") * 20
    assert input_is_ready(text, counting) is False
    assert input_is_ready(text + "1)", counting) is True
    assert input_is_ready("def f():\n" + text + "1)", counting) is False
    assert input_is_ready("def f():\n" + text + "1)\n", counting) is True
    assert sum(seen) < 20_000


def test_a_file_name_typed_at_the_prompt_reaches_the_terminal_without_its_escapes():
    """(The frontend's own error line quotes the name: an OSC 52 in it set the clipboard.)"""
    import io
    import os

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from gradcli.cli.repl import Repl
    with create_pipe_input() as inp:
        repl = Repl(out=io.StringIO(), color=False, input=inp, output=DummyOutput(),
                    history_file=os.devnull)
        try:
            repl.execute(":load /nonexistent\x1b]52;c;aGk=\x07\x1b[2J-file")
            repl.execute(":save /nonexistent/\x1b[>4;2mx")
        finally:
            repl.close()
    assert repl.out.getvalue() == ("OSError: cannot read /nonexistent-file: No such file or "
                                   "directory\nOSError: cannot write /nonexistent/x: No such "
                                   "file or directory\n")
