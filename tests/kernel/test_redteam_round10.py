"""Red team, round 10: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator): the fills
and random ops, the layer ops, polygamma of a far-negative x, and the text of a list that
holds one tensor many times."""

import ast
import math

import pytest
from processes import program_error as _error, program_output


pytestmark = pytest.mark.usefixtures("fresh_engine")


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
