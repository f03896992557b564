"""The Python that PyTorch snippets use (issue 20): try/except/else/finally, raise, global and
nonlocal, names with one leading underscore, type/dir/help, exception classes; and the rules
that keep them inside the sandbox (no timeout or Ctrl-C is ever caught)."""

import os
import signal
import threading
import time

import pytest

from gradcli.lang import sandbox
from gradcli.lang.session import Session


def lines(run, source):
    return run(source).splitlines()


def test_try_except_else_finally_run_in_pythons_order(run):
    assert lines(run, "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)\n"
                      "else:\n    print('else')\nfinally:\n    print('finally')\n"
                      "try:\n    pass\nexcept Exception:\n    print('no')\nelse:\n"
                      "    print('else')\n") == ["caught division by zero", "finally", "else"]


def test_an_engine_error_is_caught_by_pytorchs_type_with_pytorchs_message(run):
    out = lines(run, "import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n"
                     "y = (x * x).sum()\ny.backward()\n"
                     "try:\n    y.backward()\nexcept RuntimeError as e:\n    print(e)\n"
                     "try:\n    torch.ones(2) @ torch.ones(3)\n"
                     "except RuntimeError as e:\n    print(type(e).__name__)\n")
    assert out[0].startswith("Trying to backward through the graph a second time")
    assert out[1] == "RuntimeError"


def test_raise_from_bare_raise_and_exception_classes_of_the_program(run):
    source = """\
class ShapeError(ValueError):
    def __init__(self, message, dims):
        super().__init__(message)
        self.dims = dims
def check(t):
    try:
        raise ShapeError("bad shape", 3)
    except ShapeError:
        raise
try:
    check(1)
except ValueError as e:
    print(repr(e), e.dims, e.args)
try:
    try:
        {}["k"]
    except KeyError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    raise IndexError
except (KeyError, IndexError) as e:
    print("tuple", type(e).__name__)
"""
    assert lines(run, source) == ["ShapeError('bad shape') 3 ('bad shape',)",
                                  "RuntimeError wrapped", "tuple IndexError"]


def test_an_uncaught_raise_is_the_programs_error(run):
    assert run.error("raise ValueError('no good')").headline() == "ValueError: no good"
    assert run.error("assert 1 == 2, 'one is not two'").headline() == \
        "AssertionError: one is not two"


def test_global_nonlocal_del_starred_lambda_defaults_print_options(run):
    source = """\
count = 0
def bump():
    global count
    count += 1
def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
    inc(); inc()
    return n
bump(); bump()
first, *rest = [1, 2, 3]
scale = lambda v, k=10: v * k
d = {"a": 1}
del d["a"]
print(count, counter(), first, rest, scale(2), d, sep=", ", end=".\\n")
"""
    assert run(source) == "2, 2, 1, [2, 3], 20, {}.\n"


def test_names_with_one_leading_underscore_are_program_variables(run):
    source = ("def backward(ctx, _grad_out):\n    _scale = 2\n    return _grad_out * _scale\n"
              "_x = backward(None, 3)\nprint(_x, __name__)\n")
    assert run(source) == "6 __main__\n"
    assert run.error("__x = 1").headline() == \
        "NameError: names starting with '__' are not allowed: '__x'"
    assert run.error("_getattr = 1").headline() == \
        "NameError: '_getattr' is a name gradcli reserves for itself"


def test_type_dir_help_and_version_names(run):
    source = """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * 3).sum()
print(type(x), type(y.grad_fn).__name__, type(3).__name__, type(torch.exp))
print(isinstance(x, type(x)), x._version, torch.__version__.split("+")[0])
print("backward" in dir(x), "grad" in dir(torch.autograd))
help(torch.autograd.grad)
"""
    out = lines(run, source)
    assert out[:3] == ["<class 'torch.Tensor'> SumBackward0 int "
                       "<class 'builtin_function_or_method'>", "True 0 2.13.0", "True True"]
    assert out[3] == "Help on function grad:"


def test_the_names_of_numpy_classes_print_as_in_python(run):
    """`type(t.numpy()).__name__` (tutorials print it): the stand-in classes a program holds
    for ndarray and dtype give their real class's name, and nothing else of it."""
    source = ("import torch\nimport numpy as np\nz = torch.ones(2).numpy()\n"
              "print(type(z).__name__, type(np.float32(1)).__name__, type(z.dtype).__name__, "
              "np.ndarray.__name__, np.dtype.__name__)\n")
    assert lines(run, source) == ["ndarray float32 Float32DType ndarray dtype"]
    assert run.error("import numpy as np\nnp.ndarray.__dict__").type_name == "AttributeError"


@pytest.mark.parametrize("source, message", [
    ("x = await f()", "`await` is not supported in gradcli programs"),
    ("async def f():\n    pass", "`async` is not supported in gradcli programs"),
    ("match x:\n    case 1:\n        pass", "`match` is not supported in gradcli programs"),
    ("try:\n    pass\nexcept* ValueError:\n    pass",
     "`except*` is not supported in gradcli programs"),
    ("import os", "`import os` is not supported in gradcli programs (programs may import "
                  "torch, numpy, math, random, functools (partial, reduce), copy and io (its BytesIO))"),
])
def test_statements_outside_the_subset_are_named(run, source, message):
    assert run.error(source).message == message


@pytest.mark.parametrize("jump", ["break", "continue"])
def test_a_jump_out_of_a_finally_block_is_refused(run, jump):
    error = run.error(f"while True:\n    try:\n        pass\n    finally:\n        {jump}\n")
    assert error.message.startswith(f"`{jump}` in a `finally` block is not supported")
    assert run("for i in range(2):\n    try:\n        pass\n    finally:\n"
               "        for j in range(3):\n            break\n") == ""


# Programs that try to outlive their timeout by catching it, or what replaces it
ENDLESS = {
    "bare except": "while True:\n    try:\n        pass\n    except:\n        pass\n",
    "a with block": "while True:\n    with no_grad():\n        pass\n",
    "a try/finally block": "while True:\n    try:\n        pass\n    finally:\n        pass\n",
    "a bare except": "while True:\n    try:\n        pass\n    except:\n        pass\n",
    "a finally block that raises": ("while True:\n    try:\n        try:\n"
                                    "            while True:\n                pass\n"
                                    "        finally:\n            1 / 0\n"
                                    "    except ZeroDivisionError:\n        pass\n"),
    "a finally block that loops": ("try:\n    while True:\n        pass\nfinally:\n"
                                   "    while True:\n        pass\n"),
    "a function raising in a finally block": (
        "def f():\n    try:\n        raise ValueError\n    except ValueError:\n        pass\n"
        "    raise TypeError\nwhile True:\n    try:\n        try:\n"
        "            while True:\n                pass\n        finally:\n            f()\n"
        "    except Exception:\n        pass\n"),
}


@pytest.mark.parametrize("source", ENDLESS.values(), ids=ENDLESS.keys())
def test_no_program_outlives_its_timeout(run, source):
    started = time.monotonic()
    assert run.error(source, timeout=0.3).type_name == "TimeoutError"
    assert time.monotonic() - started < 2
    assert run("print(1)") == "1\n"


def test_ctrl_c_is_never_caught_even_when_a_finally_block_replaces_it():
    source = ENDLESS["a finally block that raises"]
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            Session().run(source)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_every_underscore_builtin_of_a_program_is_a_reserved_name():
    names = sandbox.program_builtins(print, None, None)
    underscored = {n for n in names if n.startswith("_") and not n.startswith("__")}
    assert underscored == sandbox.GUARD_NAMES
