"""Numerical edge cases behave as PyTorch behaves: inf and nan propagate, division by zero and
log(0) give inf, derivatives at 0 of sqrt are inf, float32 overflows to inf, kinks take
PyTorch's subgradient (relu and abs at 0 give 0, clamp at its bounds passes the gradient) and no
NumPy RuntimeWarning ever reaches the user.  Each case is checked against the known PyTorch
values, and against PyTorch itself (values, gradients and printed form) when it is installed."""

import io
import math

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

INF, NAN = math.inf, math.nan

# name -> (program defining x (a leaf) and out, out's values, x.grad after out.sum().backward())
CASES = {
    "inf and nan propagate": (
        "x = torch.tensor([1., float('inf'), float('nan')], requires_grad=True)\nout = x * 2",
        [2.0, INF, NAN], [2.0, 2.0, 2.0]),
    "inf minus inf": (
        "x = torch.tensor([float('inf')], requires_grad=True)\nout = x - x", [NAN], [0.0]),
    "division by zero": (
        "x = torch.tensor([1., 0., -1.], requires_grad=True)\nout = x / 0.",
        [INF, NAN, -INF], [INF, INF, INF]),
    "division by a zero tensor": (
        "x = torch.tensor([2., 0.], requires_grad=True)\nout = 1 / x",
        [0.5, INF], [-0.25, -INF]),
    "log of zero": (
        "x = torch.tensor([0., 1.], requires_grad=True)\nout = torch.log(x)",
        [-INF, 0.0], [INF, 1.0]),
    "log of a negative number": (
        "x = torch.tensor([-1.], requires_grad=True)\nout = torch.log(x)", [NAN], [-1.0]),
    "sqrt at zero": (
        "x = torch.tensor([0., 4.], requires_grad=True)\nout = torch.sqrt(x)",
        [0.0, 2.0], [INF, 0.25]),
    "sqrt of a negative number": (
        "x = torch.tensor([-1.], requires_grad=True)\nout = x.sqrt()", [NAN], [NAN]),
    "power one half at zero": (
        "x = torch.tensor([0.], requires_grad=True)\nout = x ** 0.5", [0.0], [INF]),
    "square at zero": (
        "x = torch.tensor([0.], requires_grad=True)\nout = x ** 2", [0.0], [0.0]),
    "x log x at zero": (
        "x = torch.tensor([0.], requires_grad=True)\nout = x * torch.log(x)", [NAN], [NAN]),
    "float32 overflow": (
        "x = torch.tensor([1e38, 100.], requires_grad=True)\nout = x * 10",
        [INF, 1000.0], [10.0, 10.0]),
    "exp overflow": (
        "x = torch.tensor([100., 0.], requires_grad=True)\nout = torch.exp(x)",
        [INF, 1.0], [INF, 1.0]),
    "float32 underflow": (
        "x = torch.tensor([-200.], requires_grad=True)\nout = torch.exp(x)", [0.0], [0.0]),
    "relu at zero": (
        "x = torch.tensor([-1., 0., 1.], requires_grad=True)\nout = torch.relu(x)",
        [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
    "abs at zero": (
        "x = torch.tensor([-1., 0., 1.], requires_grad=True)\nout = x.abs()",
        [1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]),
    "clamp at its bounds": (
        "x = torch.tensor([-1., 0., 0.5, 1., 2.], requires_grad=True)\nout = x.clamp(0., 1.)",
        [0.0, 0.0, 0.5, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 0.0]),
    "clamp min at its bound": (
        "x = torch.tensor([0., 1.], requires_grad=True)\nout = torch.clamp(x, min=0.)",
        [0.0, 1.0], [1.0, 1.0]),
    "max with ties": (
        "x = torch.tensor([1., 3., 3.], requires_grad=True)\nout = x.max()",
        [3.0], [0.0, 0.5, 0.5]),
    "sign at zero": (
        "x = torch.tensor([0.], requires_grad=True)\nout = torch.sign(x)", [0.0], [0.0]),
    "tanh saturates": (
        "x = torch.tensor([100., -100.], requires_grad=True)\nout = torch.tanh(x)",
        [1.0, -1.0], [0.0, 0.0]),
    "sigmoid far out": (
        "x = torch.tensor([100.], requires_grad=True)\nout = torch.sigmoid(x)", [1.0], [0.0]),
    "nan through a reduction": (
        "x = torch.tensor([1., float('nan')], requires_grad=True)\nout = x.sum()",
        [NAN], [1.0, 1.0]),
    "zero over zero in float64": (
        "x = torch.tensor([0.], dtype=torch.float64, requires_grad=True)\nout = x / x",
        [NAN], [NAN]),
}


def _flat(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [v for item in value for v in _flat(item)]
    return [value]


def _same(actual, expected):
    actual, expected = _flat(actual), _flat(expected)
    return len(actual) == len(expected) and all(
        (math.isnan(a) and math.isnan(e)) or a == pytest.approx(e, rel=1e-6, abs=1e-30)
        for a, e in zip(actual, expected))


def run_gradcli(source):
    out = io.StringIO()
    session = Session(out=out)
    session.run(f"import torch\n{source}\nout.sum().backward()\nprint(out)\nprint(x.grad)")
    return session.namespace["out"], session.namespace["x"].grad, out.getvalue()


def run_torch(torch, source):
    printed = io.StringIO()
    namespace = {"torch": torch, "print": lambda *a: print(*a, file=printed)}
    exec(f"{source}\nout.sum().backward()\nprint(out)\nprint(x.grad)", namespace)
    return namespace["out"], namespace["x"].grad, printed.getvalue()


@pytest.mark.parametrize("source, values, grads", CASES.values(), ids=CASES.keys())
def test_edge_case_matches_pytorch_values(source, values, grads):
    out, grad, printed = run_gradcli(source)
    assert _same(out, values), (out, values)
    assert _same(grad, grads), (grad, grads)
    assert "Warning" not in printed


@pytest.mark.parametrize("source", [c[0] for c in CASES.values()], ids=CASES.keys())
def test_edge_case_matches_pytorch_itself(source, oracle):
    out, grad, printed = run_gradcli(source)

    def answer(torch):
        out, grad, printed = run_torch(torch, source)
        return out.tolist(), grad.tolist(), printed
    expected_out, expected_grad, expected_printed = oracle(answer)
    assert _same(out, expected_out)
    assert _same(grad, expected_grad)
    assert printed == expected_printed


# ---------------------------------------------------------------------- Python numbers

def _python_s(source):
    """The message this Python gives for source (its wording varies: 3.10 says `integer
    division or modulo by zero` for 1 % 0, 3.11-3.13 `integer modulo by zero`)."""
    try:
        eval(source)
    except ArithmeticError as e:
        return f"{type(e).__name__}: {e}"
    raise AssertionError(f"{source} raised nothing")


@pytest.mark.parametrize("source, message", [
    ("1 / 0", _python_s("1 / 0")),
    ("1.0 / 0", _python_s("1.0 / 0")),
    ("1 // 0", _python_s("1 // 0")),
    ("1 % 0", _python_s("1 % 0")),
    ("import math\nmath.log(0)", "ValueError: math domain error"),
    ("import math\nmath.sqrt(-1)", "ValueError: math domain error"),
    ("import math\nmath.exp(1000)", "OverflowError: math range error"),
    ("2.0 ** 10000", "OverflowError: (34, 'Numerical result out of range')"),
    ("log(0)", "ValueError: math domain error"),
])
def test_python_number_errors_are_python_s(source, message):
    with pytest.raises(ProgramError) as info:
        Session().run(source)
    assert info.value.format() == [message]


def test_python_floats_follow_python():
    session = Session()
    assert session.run("float('inf') - float('inf')") != session.run("0.0")
    assert session.run("1e308 * 10") == math.inf


# ---------------------------------------------------------------------- warnings

WARNING_PROGRAMS = [
    "import numpy as np\nnp.log(np.array([0., -1.]))",
    "import numpy as np\nnp.array([1., 0.]) / 0.",
    "import numpy as np\nnp.array([1., 0.]) / np.array([0., 0.])",
    "import numpy as np\nnp.float64(1e308) * 10",
    "import numpy as np\nnp.sqrt(np.array([-1.]))",
    "import numpy as np\nnp.exp(np.array([1000.]))",
    "import numpy as np\nnp.array([1., 2.]).astype('float16') * 1e5",
    "import torch\ntorch.tensor([0.]).log()",
    "import torch\nx = torch.tensor([0., -1.], requires_grad=True)\n"
    "y = (x.sqrt() + x.log() + 1 / x).sum()\ny.backward()\nprint(x.grad)",
    "import torch\ntorch.tensor([1e38]) * torch.tensor([1e38])",
    "import torch\ntorch.tensor([3e38], dtype=torch.float64).float()",
    "import torch\nx = torch.tensor([1., 2.])\n(x - x) / (x - x)",
    "import torch\ntorch.tensor([0.]).numpy() / 0",
]


@pytest.mark.parametrize("source", WARNING_PROGRAMS)
def test_no_numpy_runtime_warning_reaches_the_user(source, recwarn):
    out = io.StringIO()
    Session(out=out).run(source, echo=True)
    assert "Warning" not in out.getvalue()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
