"""`import functools` in programs (PyTorch's Jacobians tutorial binds `partial(predict, weight,
bias)`): partial and reduce compute as Python's do, and the function a partial will call
passes the callable check when the partial is made, as every call a program makes does."""

import pytest

PROGRAMS = {
    "partial binds positions and keywords": """\
from functools import partial
def f(a, b, c=1):
    return a * b + c
p = partial(f, 2, c=3)
print(p(4), p(4, c=0), partial(p, 5)())
print(type(p).__name__)
""",
    "reduce with and without a start": """\
import functools
print(functools.reduce(lambda x, y: x * y, [1, 2, 3, 4]))
print(functools.reduce(lambda x, y: x + y, [], 10))
print(functools.reduce(max, (3, 9, 2)))
try:
    functools.reduce(lambda x, y: x, [])
except TypeError as e:
    print(e)
""",
    "partial of something that cannot be called": """\
from functools import partial
try:
    partial(3)
except TypeError as e:
    print(e)
""",
}


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=list(PROGRAMS))
def test_functools_computes_as_python(run, python_prints, source):
    assert run(source) == python_prints(source)


def test_a_partial_calls_the_checked_stand_in_of_a_replaced_callable(run):
    # int() is metered in programs (calls.safe_int): partial(int, ...) calls that one
    assert run("from functools import partial\nprint(partial(int, '11', base=2)())\n") == "3\n"
    error = run.error("from functools import partial\n"
                      "partial(int, '1' * 10 ** 6, base=16)()\n")
    assert error.headline().startswith("OverflowError: integer too large")


def test_a_partial_of_a_refused_callable_is_refused_when_made(run):
    error = run.error("import numpy as np\nfrom functools import partial\n"
                      "p = partial(np.ndarray, (1,), 'O')\np()\n")
    assert "numpy.ndarray() is not available in gradcli programs" in error.headline()


def test_a_partials_insides_and_class_are_out_of_reach(run):
    for source, message in (
            ("p = partial(print, 1)\np.func\n",
             "AttributeError: 'partial' object attribute 'func' is not available"),
            ("p = partial(print, 1)\np.func = len\n",
             "AttributeError: cannot set attribute 'func' of 'partial' object"),
            ("type(partial(print))(print, 2)\n", "is not callable"),
            ("class P(type(partial(print))):\n    pass\n", "TypeError: ")):
        error = run.error("from functools import partial\n" + source)
        assert message in error.headline(), source


def test_reduce_meters_what_it_builds(run):
    error = run.error("from functools import reduce\n"
                      "reduce(lambda a, b: a + a, range(40), 'x')\n")
    assert error.headline().startswith("MemoryError: sequence too long")


def test_only_partial_and_reduce_are_there(run):
    error = run.error("import functools\nfunctools.wraps\n")
    assert error.headline() == "AttributeError: module 'functools' has no attribute 'wraps'"
