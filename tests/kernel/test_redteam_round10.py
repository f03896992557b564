"""Red team, round 10: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator): the fills
and random ops, the layer ops, polygamma of a far-negative x, and the text of a list that
holds one tensor many times."""

import ast
import math

import pytest
from processes import program_error as _error, program_output, traced_peak


pytestmark = pytest.mark.usefixtures("fresh_engine")


def _assert_pytorchs_error(oracle, source, setup=""):
    """`r = source`, after `import torch`, `F = torch.nn.functional` and setup, ends in
    PyTorch's error (its first line) and prints nothing (oracle: PyTorch 2.13's answer)."""
    def pytorchs(torch):
        names = {"torch": torch, "F": torch.nn.functional}
        exec(setup, names)
        try:
            eval(source, names)
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"
        return "computed"
    assert _error(f"import torch\nF = torch.nn.functional\n{setup}\nr = {source}\n") == (
        oracle(pytorchs), "")


# ---------------------------------------------------------------------- polygamma

NEGATIVE = [-1e6 - 0.5, -123.456, -7.9, -0.5, -1e5 - 0.3, -3.999]


@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_polygamma_of_a_far_negative_x_reflects_it(n, oracle):
    """polygamma(n, x) for n >= 2 took a negative x up to 20 + n by the recurrence, one NumPy
    step per unit: `torch.polygamma(2, torch.tensor(-1e15 - 0.5, dtype=torch.float64))` ran
    10 ** 15 steps (round 8 reflected digamma and trigamma only).  PyTorch sums zeta(n + 1, x)
    term by term from x, as long a loop (it answers for -1e6 - 0.5; for -1e15 - 0.5 it runs for
    days).  Expected: the reflection psi_n(x) = (-1)^n psi_n(1 - x) - pi (d/dx)^n cot(pi x), at
    once: PyTorch's values where PyTorch answers (PyTorch 2.13's answers)."""
    theirs = oracle(lambda torch: torch.polygamma(
        n, torch.tensor(NEGATIVE, dtype=torch.float64)).tolist())
    out = program_output(f"import torch\nx = torch.tensor({NEGATIVE}, dtype=torch.float64)\n"
                         f"print(torch.polygamma({n}, x).tolist())\n")
    ours = ast.literal_eval(out)
    # (-1e6 - 0.5: a sum of a million terms in PyTorch, a difference of two values 10 ** 12
    # larger than the result: only its size)
    assert abs(ours[0] - theirs[0]) < 1e-12 * 10 ** (n - 2)
    assert ours[1:] == pytest.approx(theirs[1:], rel=1e-9)


def test_polygamma_of_minus_ten_to_the_fifteen_answers_at_once(oracle):
    """Where PyTorch itself loops (-1e15 - 0.5), the reflection's value: for a half-integer x,
    cot(pi x) is 0, so psi_2(x) = psi_2(1 - x) and psi_3(x) = 2 pi^4 - psi_3(1 - x)."""
    mirrored = oracle(lambda torch: [torch.polygamma(n, torch.tensor(
        1e15 + 1.5, dtype=torch.float64)).item() for n in (2, 3)])
    out = program_output("import torch\nx = torch.tensor(-1e15 - 0.5, dtype=torch.float64)\n"
                         "print([torch.polygamma(n, x).item() for n in (2, 3)])\n")
    assert ast.literal_eval(out) == pytest.approx([mirrored[0], 2 * math.pi ** 4 - mirrored[1]],
                                                  rel=1e-12)


def test_polygamma_at_infinities_is_pytorchs(oracle):
    """polygamma(n >= 2, x) was 0 at inf and nan at -inf; PyTorch's zeta(n + 1, x) gives nan
    at inf and takes -inf for a pole (PyTorch 2.13's answers)."""
    values = [-math.inf, math.inf, -2.0, 0.0, 1.5]
    theirs = oracle(lambda torch: [torch.polygamma(n, torch.tensor(
        values, dtype=torch.float64)).tolist() for n in (2, 3)])
    out = program_output(f"import torch\nx = torch.tensor({values}, dtype=torch.float64)\n"
                         "for n in (2, 3):\n    r = torch.polygamma(n, x).tolist()\n"
                         "    print(r[:-1], r[-1])\n").splitlines()
    assert [line.split("] ")[0] + "]" for line in out] == [repr(row[:-1]) for row in theirs]
    assert [float(line.split("] ")[1]) for line in out] == pytest.approx(
        [row[-1] for row in theirs], rel=1e-12)


# ---------------------------------------------------------------------- fills

UNIFORM_BOUNDS = ["torch.ones(3).uniform_(-1e308, 1e308)",
                  "torch.ones(3, dtype=torch.float64).uniform_(-1e308, 1e308)",
                  "torch.ones(3).uniform_(float('nan'), 1)",
                  "torch.ones(3).uniform_(-float('inf'), float('inf'))",
                  "torch.ones(3).uniform_(0, 1e39)",
                  "torch.ones(3).uniform_(-3e38, 3e38)",
                  "torch.ones(3, dtype=torch.float16).uniform_(-65504, 65504)",
                  "torch.ones(3, dtype=torch.float16).uniform_(0, 1e5)",
                  "torch.nn.init.uniform_(torch.ones(3), 0, float('inf'))",
                  "torch.nn.init.xavier_uniform_(torch.ones(2, 2), gain=float('nan'))",
                  "torch.nn.init.kaiming_uniform_(torch.ones(2, 2), a=float('nan'))"]


@pytest.mark.parametrize("source", UNIFORM_BOUNDS, ids=range(len(UNIFORM_BOUNDS)))
def test_uniform_bounds_are_checked_as_pytorch(source, oracle):
    """uniform_ (and nn.init's fills built on it) checked only from <= to: bounds past the
    dtype's range, nan or infinite filled the tensor with nan or inf (x * (to - from) + from
    overflowed), as did a range wider than the dtype's largest value.  Expected: PyTorch's
    check_uniform_bounds errors (PyTorch 2.13's answers)."""
    _assert_pytorchs_error(oracle, source)


def test_uniform_within_the_bounds_still_fills():
    assert program_output(
        "import torch\nx = torch.ones(1000, dtype=torch.float64).uniform_(-1e300, 1e300)\n"
        "y = torch.ones(1000).uniform_(-65504, 65504)\n"
        "print(bool(x.isfinite().all()), bool(y.abs().max() <= 65504), x.std() > 1e299)\n"
    ) == "True True tensor(True)\n"


# ---------------------------------------------------------------------- batch_norm

BATCH_NORM_CALLS = [
    "F.batch_norm(x, torch.zeros(3, requires_grad=True), torch.ones(3), training=True)",
    "F.batch_norm(x, torch.zeros(3, requires_grad=True), torch.ones(3), training=False)",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3, requires_grad=True), training=True)",
    "F.batch_norm(x, (x * torch.ones(1, requires_grad=True))[0], torch.ones(3), training=True)",
    "F.batch_norm(x, torch.zeros(3, dtype=torch.int64), torch.ones(3), training=True)",
    "F.batch_norm(x.double(), torch.zeros(3), torch.ones(3), training=True)",
    "F.batch_norm(x, torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), "
    "training=True)",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(3, dtype=torch.float64), "
    "training=True)",
    "F.batch_norm(x, torch.zeros(3, dtype=torch.float16), torch.ones(3, dtype=torch.float16), "
    "training=True)",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), training=True, eps=-1)",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False, eps=-1)",
    "F.batch_norm(x, torch.zeros(3), torch.ones(3), training=True, eps=0)",
    "torch.nn.BatchNorm1d(3)(x.double())",
]


@pytest.mark.parametrize("source", BATCH_NORM_CALLS, ids=range(len(BATCH_NORM_CALLS)))
def test_batch_norm_checks_its_parameters_as_pytorch(source, oracle):
    """batch_norm wrote its running stats in place whatever they were: a leaf that requires
    grad (an in-place write every other op refuses), a tensor of the graph (its saved values
    changed, no version said so: wrong gradients), an int64 tensor (the mean truncated); it
    took parameters of any dtype and any eps (a negative one: nan).  Expected: PyTorch's
    errors (its autograd's refusal of running stats that require grad, check_mixed_data_type,
    F.batch_norm's eps checks; PyTorch 2.13's answers)."""
    _assert_pytorchs_error(oracle, source, "x = torch.arange(6.).view(2, 3)")


def test_batch_norm_still_updates_its_stats():
    assert program_output(
        "import torch\nF = torch.nn.functional\nx = torch.arange(6.).view(2, 3)\n"
        "m, v = torch.zeros(3), torch.ones(3)\n"
        "with torch.no_grad():\n    p = torch.zeros(3, requires_grad=True)\n"
        "    F.batch_norm(x, p, torch.ones(3), training=True)\n"
        "y = F.batch_norm(x, m, v, training=True)\n"
        "print(m.tolist(), [round(t, 4) for t in v.tolist()], p.tolist(),\n"
        "      F.batch_norm(x.half(), m, v, training=True).dtype,\n"
        "      F.batch_norm(x, m, v, training=True, eps=float('nan')).shape)\n"
    ) == ("[0.15000000596046448, 0.25, 0.3499999940395355] [1.35, 1.35, 1.35] "
          "[0.15000000596046448, 0.25, 0.3499999940395355] torch.float16 torch.Size([2, 3])\n")


# ---------------------------------------------------------------------- the text of a list

LIST_TEXTS = ["repr(l)", "str(l)", "f'{l}'", "f'{l!r}'", "'{}'.format(l)",
              "'{x}'.format_map({'x': l})", "'%s' % (l,)", "'%r' % [l]", "format(l)", "str([l])", "repr({1: m})", "repr(m)"]


@pytest.mark.parametrize("source", LIST_TEXTS, ids=range(len(LIST_TEXTS)))
def test_the_text_of_a_list_of_tensors_is_metered_as_one(source, small_limits):
    """A tensor's text is checked against the item limit (round 8), but a list's text is made
    in C, one tensor's text at a time: `repr([t] * 10 ** 7)` made ten million of them, each
    within the limit, hundreds of megabytes of text in minutes.  Expected: the tensors' texts
    within one repr, str, print, format, f-string or `%` counted together (1,000 characters
    here), the text refused once they pass the limit."""
    line, _ = _error("import torch\nl = [torch.ones(3)] * 500\nm = [torch.ones(100)] * 20\n"
                     f"r = {source}\n")
    assert line.startswith("MemoryError: tensor text too long"), line


def test_print_of_a_list_of_tensors_is_metered_as_one(small_limits):
    line, printed = _error("import torch\nprint('a')\nprint([torch.ones(3)] * 500)\n")
    assert line.startswith("MemoryError: tensor text too long") and printed == "a\n", line


def test_texts_within_the_limit_are_made(small_limits):
    """Each text its own budget: a loop of texts, or texts side by side, each within it (each
    tensor's text is 20 characters: 100 * (880 + 20 + 44))."""
    assert program_output(
        "import torch\nt = torch.ones(3)\nl = [t] * 40\nn = 0\n"
        "for i in range(100):\n    n += len(repr(l)) + len(f'{t}') + len(str(l[:2]))\n"
        "print(n, [str(x) for x in [t] * 3][0], '%s|%r' % (t, [t]), '{}'.format([t, t]))\n"
    ) == ("94400 tensor([1., 1., 1.]) tensor([1., 1., 1.])|[tensor([1., 1., 1.])] "
          "[tensor([1., 1., 1.]), tensor([1., 1., 1.])]\n")


# ---------------------------------------------------------------------- convolutions

EMPTY_KERNELS = [
    "F.conv_transpose1d(torch.ones(1, 1, 5), torch.ones(1, 0, 2))",
    "F.conv_transpose1d(torch.ones(1, 1, 5), torch.ones(1, 1, 0))",
    "F.conv_transpose2d(torch.ones(1, 1, 5, 5), torch.ones(1, 0, 2, 2), stride=10 ** 4)",
    "F.conv_transpose3d(torch.ones(1, 1, 5, 5, 5), torch.ones(1, 0, 2, 2, 2), stride=10 ** 6)",
    "F.conv_transpose3d(torch.ones(1, 1, 5, 5, 5), torch.ones(1, 1, 0, 2, 2))",
    "F.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 0))",
    "F.conv2d(torch.ones(1, 1, 5, 5), torch.ones(1, 1, 0, 2))",
    "F.conv3d(torch.ones(1, 1, 5, 5, 5), torch.ones(1, 1, 0, 2, 2))",
]


@pytest.mark.parametrize("source", EMPTY_KERNELS, ids=range(len(EMPTY_KERNELS)))
def test_a_kernel_of_no_elements_is_pytorchs_error(source, oracle):
    """A transposed convolution's weight of no output channel made an output of no channel and
    any size ([1, 0, 40002, 40002]; at a stride of 10 ** 6, NumPy's `ValueError: array is too
    big`); a kernel of no elements computed a window of nothing (conv1d of a kernel of width 0:
    an output wider than its input).  Expected: the CPU kernels' errors (PyTorch 2.13's
    answers)."""
    _assert_pytorchs_error(oracle, source)


# ---------------------------------------------------------------------- random ops

def test_multinomial_without_replacement_keeps_no_array_a_row():
    """multinomial without replacement (and any draw of one sample) stacked a list of one
    NumPy array a row: 430 bytes of Python objects for a row of one float, 43 GB for the
    10 ** 8 rows the element limit allows (round 9 bounded randperm's and poisson's lists).
    Expected: the rows' indices written into one array, the same values."""
    peak = traced_peak("import torch\np = torch.ones(20000, 1)\n", "r = torch.multinomial(p, 1)\n")
    assert peak < 4_000_000, f"{peak:,} bytes"


def test_multinomial_without_replacement_still_draws_pytorchs(oracle):
    theirs = oracle(lambda torch: (torch.manual_seed(3), torch.multinomial(
        torch.tensor([[1., 2., 3., 4.], [4., 0., 1., 1.], [1., 1., 1., 1.]]), 3).tolist())[1])
    assert program_output(
        "import torch\ntorch.manual_seed(3)\nprint(torch.multinomial(torch.tensor([[1., 2., 3., "
        "4.], [4., 0., 1., 1.], [1., 1., 1., 1.]]), 3).tolist())\n") == f"{theirs}\n"


COMPLEX_DRAWS = ["C.log_normal_()", "C.geometric_(0.5)", "C.bernoulli_()",
                 "C.bernoulli_(torch.ones(3))", "torch.poisson(C)", "C.cauchy_()", "C.random_()"]


@pytest.mark.parametrize("source", COMPLEX_DRAWS, ids=range(len(COMPLEX_DRAWS)))
def test_random_kernels_of_real_values_refuse_complex_tensors(source, oracle):
    """log_normal_, geometric_, bernoulli_ and poisson drew real values into a complex tensor
    (poisson printed NumPy's `ComplexWarning: Casting complex values to real discards the
    imaginary part` into the program's output); cauchy_ and random_ refused it in other words
    than PyTorch's.  Expected: PyTorch's errors (PyTorch 2.13's answers)."""
    _assert_pytorchs_error(oracle, source, "C = torch.ones(3, dtype=torch.complex64)")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_draws_are_pytorchs(dtype, oracle):
    """rand, randn, uniform_ and normal_ of a complex dtype drew n real values, the imaginary
    parts 0 (normal_(1, 2) also printed NumPy's ComplexWarning).  Expected: PyTorch's draws
    on the real view's 2n elements (normal's with std / sqrt(2)), bit for bit."""
    calls = [f"torch.rand(3, dtype=torch.{dtype})", f"torch.randn(3, dtype=torch.{dtype})",
             f"torch.randn(20, dtype=torch.{dtype})[-2:]",
             f"torch.ones(3, dtype=torch.{dtype}).uniform_(-1, 2)",
             f"torch.ones(20, dtype=torch.{dtype}).normal_(1, 2)[-2:]"]

    def pytorchs(torch):
        out = []
        for call in calls:
            torch.manual_seed(0)
            out.append(str([[z.real, z.imag] for z in eval(call, {"torch": torch}).tolist()]))
        return out
    theirs = oracle(pytorchs)
    program = "import torch\n" + "".join(
        f"torch.manual_seed(0)\nprint([[z.real, z.imag] for z in {call}.tolist()])\n"
        for call in calls)
    assert program_output(program).splitlines() == theirs
