"""Runaway input meets a limit: a clear one-line message that names the setting raising it,
before Python or NumPy would spend minutes inside C or exhaust memory.  Every limit can be
raised (gradcli/lang/limits.py lists the settings)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradcli.lang import limits
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

ROOT = Path(__file__).resolve().parents[2]

# name -> (source, error type, the setting the message names)
RUNAWAYS = {
    "tensor elements": ("torch.zeros(10 ** 5, 10 ** 5)", "RuntimeError",
                        "gradcli.set_element_limit"),
    "tensor from a range": ("torch.arange(10 ** 10)", "RuntimeError",
                            "gradcli.set_element_limit"),
    "tensor repeat": ("torch.ones(3).repeat(10 ** 9)", "RuntimeError",
                      "gradcli.set_element_limit"),
    "numpy array": ("np.zeros((10 ** 6, 10 ** 6))", "MemoryError", "GRADCLI_MAX_ELEMENTS"),
    "numpy broadcast": ("np.ones((10 ** 5, 1)) * np.ones(10 ** 5)", "MemoryError",
                        "GRADCLI_MAX_ELEMENTS"),
    "numpy random": ("np.random.randn(10 ** 5, 10 ** 5)", "MemoryError",
                     "GRADCLI_MAX_ELEMENTS"),
    "python int power": ("10 ** 10 ** 10", "OverflowError", "GRADCLI_MAX_INT_BITS"),
    "python int pow()": ("pow(10, 10 ** 10)", "OverflowError", "GRADCLI_MAX_INT_BITS"),
    "python int product": ("n = 2 ** 900000\nn * n", "OverflowError", "GRADCLI_MAX_INT_BITS"),
    "python int in-place power": ("n = 10\nn **= 10 ** 10", "OverflowError",
                                  "GRADCLI_MAX_INT_BITS"),
    "string repetition": ('"a" * 10 ** 10', "MemoryError", "GRADCLI_MAX_ITEMS"),
    "list repetition": ("[0] * 10 ** 10", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "tuple repetition": ("(0,) * 10 ** 10", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "repetition on the left": ("10 ** 10 * [0]", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "in-place repetition": ("s = 'ab'\ns *= 10 ** 10", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "bytes repetition": ('"ab".encode() * 10 ** 10', "MemoryError", "GRADCLI_MAX_ITEMS"),
    "nested repetition": ("[[0] * 10 ** 7] * 10 ** 7", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "doubling by concatenation": ("s = 'a' * 10 ** 7\ns + s", "MemoryError",
                                  "GRADCLI_MAX_ITEMS"),
    "join": ("','.join(['a' * 10 ** 6] * 9 + ['b' * 10 ** 6] * 9)", "MemoryError",
             "GRADCLI_MAX_ITEMS"),
    "sum of lists": ("sum([[0] * 10 ** 6] * 9 + [[1] * 10 ** 6] * 9, [])", "MemoryError",
                     "GRADCLI_MAX_ITEMS"),
    "doubling by slice assignment": ("x = [0] * 10 ** 6\nfor i in range(40):\n    x[:0] = x",
                                     "MemoryError", "GRADCLI_MAX_ITEMS"),
    "slice assignment from a range": ("x = []\nx[:] = range(10 ** 7 + 1)", "MemoryError",
                                      "GRADCLI_MAX_ITEMS"),
    "str.replace": ("('a' * 10 ** 6).replace('a', 'aaaaaaaaaaaaaaaaaaaa')", "MemoryError",
                    "GRADCLI_MAX_ITEMS"),
    "range": ("list(range(10 ** 12))", "MemoryError", "GRADCLI_MAX_ITEMS"),
    "format width": ("f'{1:>10000000000}'", "ValueError", "GRADCLI_MAX_WIDTH"),
    "padding": ("'x'.center(10 ** 10)", "ValueError", "GRADCLI_MAX_WIDTH"),
    "factorial": ("math.factorial(10 ** 7)", "OverflowError", "GRADCLI_MAX_INT_ARGUMENT"),
    "recursion": ("def f():\n    return f()\nf()", "RecursionError", "GRADCLI_MAX_RECURSION"),
    "mutual recursion": ("def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)",
                         "RecursionError", "GRADCLI_MAX_RECURSION"),
    "recursion through a lambda": ("k = lambda: k()\nk()", "RecursionError",
                                   "GRADCLI_MAX_RECURSION"),
    "nested parentheses": ("x = " + "(" * 10_000 + "1" + ")" * 10_000, "SyntaxError",
                           "GRADCLI_MAX_NESTING"),
    "nested brackets": ("x = " + "[" * 10_000 + "]" * 10_000, "SyntaxError",
                        "GRADCLI_MAX_NESTING"),
    "nested braces": ("x = " + "{" * 10_000 + "}" * 10_000, "SyntaxError",
                      "GRADCLI_MAX_NESTING"),
    "unclosed nesting": ("x = " + "(" * 10_000, "SyntaxError", "GRADCLI_MAX_NESTING"),
    "nested unary minus": ("x = " + "-" * 10_000 + "1", "RecursionError",
                           "GRADCLI_MAX_NESTING"),
    "nested not": ("x = " + "not " * 10_000 + "1", "RecursionError", "GRADCLI_MAX_NESTING"),
    "power tower": ("x = " + "2 ** " * 3_000 + "1", "RecursionError", "GRADCLI_MAX_NESTING"),
    "long sum": ("x = " + "1 + " * 5_000 + "1", "RecursionError", "GRADCLI_MAX_NESTING"),
    "attribute chain": ("x" + ".T" * 10_000, "RecursionError", "GRADCLI_MAX_NESTING"),
    "nested lambdas": ("k = " + "lambda: " * 5_000 + "1", "RecursionError",
                       "GRADCLI_MAX_NESTING"),
    "nested blocks": ("".join(" " * i + "if True:\n" for i in range(300)) + " " * 300 + "pass",
                      "IndentationError", "GRADCLI_MAX_NESTING"),
    "program length": ("#" * (limits.MAX_SOURCE + 1), "MemoryError", "GRADCLI_MAX_SOURCE"),
}


@pytest.fixture
def session():
    s = Session()
    s.run("import torch\nimport numpy as np\nimport math\nx = torch.tensor([1., 2.])")
    return s


def error_of(session, source, **kwargs):
    with pytest.raises(ProgramError) as info:
        session.run(source, **kwargs)
    return info.value


@pytest.mark.parametrize("source, kind, setting", RUNAWAYS.values(), ids=RUNAWAYS.keys())
def test_runaway_input_meets_a_limit_that_names_its_setting(session, source, kind, setting):
    error = error_of(session, source)
    assert error.type_name == kind, error.headline()
    assert setting in error.message, error.headline()
    assert "\n" not in error.headline()
    assert session.run("1 + 1") == 2


def test_tensor_broadcast_meets_the_element_limit(session):
    error = error_of(session, "torch.ones(10 ** 5, 1) + torch.ones(10 ** 5)")
    assert "set_element_limit" in error.message


def test_endless_loop_stops_at_the_timeout_named_in_the_message(session):
    error = error_of(session, "while True:\n    pass", timeout=0.2)
    assert error.format() == ["TimeoutError: program ran longer than 0.2 s (raise the limit "
                              "with --timeout)"]
    assert session.run("1 + 1") == 2


def test_endless_recursion_in_a_loop_stops_at_the_timeout(session):
    source = "def f(n):\n    return f(n + 1) if n < 500 else 0\nwhile True:\n    f(0)"
    assert error_of(session, source, timeout=0.3).type_name == "TimeoutError"


def test_the_timeout_covers_parsing(session):
    source = "y = x * 2 + sin(x) - x.sum() / 3\n" * 20_000
    assert error_of(session, source, timeout=0.05).type_name == "TimeoutError"


def test_slice_assignment_within_the_limits_is_python_s(session):
    session.run("x = [1, 2, 3, 4]\nx[1:3] = [7]\ny = [0] * 4\ny[::2] = [8, 9]\n"
                "y[1:2] = (i for i in range(3))\na = torch.ones(4)\na[1:3] = 5\n"
                "w = list(range(5))\nw[1:3], k = [9], 1")
    assert session.namespace["x"] == [1, 7, 4]
    assert session.namespace["y"] == [8, 0, 1, 2, 9, 0]
    assert session.namespace["a"].tolist() == [1.0, 5.0, 5.0, 1.0]
    assert session.namespace["w"] == [0, 9, 3, 4]
    with pytest.raises(ProgramError, match="extended slice of size 2"):
        session.run("y = [1, 2, 3, 4]\ny[::2] = [8]")


def test_a_loop_that_just_fits_the_limits_runs(session):
    assert session.run("s = 0\nfor i in range(100000):\n    s += i\ns") == 4999950000


# ---------------------------------------------------------------------- raising the limits

def test_the_recursion_limit_can_be_raised(session, monkeypatch):
    source = "def depth(n):\n    return n if n == 0 else depth(n - 1) + 1\ndepth(2500)"
    assert error_of(session, source).type_name == "RecursionError"
    monkeypatch.setattr(limits, "MAX_RECURSION", 4000)
    assert session.run(source) == 2500


def test_the_nesting_limit_can_be_raised(session, monkeypatch):
    source = "x = " + "(" * 250 + "1" + ")" * 250
    assert error_of(session, source).type_name == "SyntaxError"
    monkeypatch.setattr(limits, "MAX_NESTING", 300)
    session.run(source)
    assert session.run("x") == 1


def test_the_item_limit_can_be_raised(session, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ITEMS", 100)
    assert "the limit is 100 items" in error_of(session, "[0] * 101").message
    monkeypatch.setattr(limits, "MAX_ITEMS", 1000)
    assert session.run("len([0] * 101)") == 101


def test_the_width_limit_can_be_raised_beyond_seven_digits(session, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WIDTH", 20_000_000)
    assert session.run("len(f'{1:>12000000}')") == 12_000_000


def test_the_program_length_limit_can_be_raised(session, monkeypatch):
    monkeypatch.setattr(limits, "MAX_SOURCE", 100)
    assert error_of(session, "x = 1\n" * 20).type_name == "MemoryError"
    monkeypatch.setattr(limits, "MAX_SOURCE", 1000)
    session.run("x = 1\n" * 20)


def test_every_setting_comes_from_its_environment_variable():
    settings = {"GRADCLI_MAX_INT_BITS": "MAX_INT_BITS", "GRADCLI_MAX_ITEMS": "MAX_ITEMS",
                "GRADCLI_MAX_WIDTH": "MAX_WIDTH", "GRADCLI_MAX_INT_ARGUMENT": "MAX_INT_ARGUMENT",
                "GRADCLI_MAX_ITEMSIZE": "MAX_ITEMSIZE", "GRADCLI_MAX_RECURSION": "MAX_RECURSION",
                "GRADCLI_MAX_NESTING": "MAX_NESTING", "GRADCLI_MAX_SOURCE": "MAX_SOURCE"}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADCLI_MAX_ELEMENTS": "1000",
           **{variable: str(1234 + i) for i, variable in enumerate(settings)}}
    code = ("from gradcli.lang import limits\n"
            "from gradcli.lang.session import Session\n"
            f"print(*[getattr(limits, n) for n in {list(settings.values())!r}])\n"
            "s = Session()\n"
            "for source in ('import torch\\ntorch.zeros(2000)', 'import numpy\\n"
            "numpy.zeros(2000)'):\n"
            "    try:\n"
            "        s.run(source)\n"
            "    except Exception as e:\n"
            "        print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, cwd=ROOT, timeout=120)
    lines = result.stdout.splitlines()
    assert lines[0] == " ".join(str(1234 + i) for i in range(len(settings))), result.stderr
    assert "exceeds the limit of 1000 elements" in lines[1]
    assert "exceeds the limit of 1000 elements" in lines[2]


def test_a_malformed_setting_keeps_the_default(monkeypatch):
    monkeypatch.setenv("GRADCLI_MAX_ITEMS", "lots")
    assert limits._setting("GRADCLI_MAX_ITEMS", 10) == 10
