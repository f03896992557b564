"""polygamma(n, x) for n >= 2 as PyTorch 2.13's calc_polygamma computes it: its factor
exp(lgamma(n + 1)) in the input's dtype overflows past n = 170 in float64 (past 34 in float32),
to inf, or nan where zeta(n + 1, x) is 0 (no OverflowError), and zeta is Cephes' sum, which
PyTorch also runs for a negative x.  Values and gradients (polygamma(n + 1, x)), against torch
(README "The oracle tests")."""

import math

import pytest

import gradcli

XS = [-2.5, -1.0, -0.5, 0.0, 1e-3, 0.3, 0.5, 1.0, 1.5, 2.0, 5.0, 30.0, 200.0, math.inf,
      -math.inf, math.nan]
ORDERS = [2, 3, 20, 33, 34, 35, 40, 100, 169, 170, 171, 172, 200, 500]
CASES = [(dtype, n) for dtype in ("float32", "float64") for n in ORDERS]


def _same(expected, actual):
    return all(a == e or (math.isnan(a) and math.isnan(e)) or
               (math.isfinite(a) and math.isfinite(e) and abs(a - e) <= 1e-6 * abs(e))
               for e, a in zip(expected, actual))


@pytest.mark.parametrize("dtype, n", CASES, ids=[f"{d}-{n}" for d, n in CASES])
def test_polygamma_values_and_gradients(dtype, n, oracle):
    def compute(lib):
        x = lib.tensor(XS, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.polygamma(n, x)
        y.backward(lib.ones_like(y))
        return [y.tolist(), x.grad.tolist()]
    expected = oracle(compute)
    actual = compute(gradcli)
    assert _same(expected[0], actual[0]), (expected[0], actual[0])
    assert _same(expected[1], actual[1]), (expected[1], actual[1])


def test_polygamma_of_an_integer_tensor_is_float32(oracle):
    def compute(lib):
        y = lib.polygamma(200, lib.tensor([1, 2, 300]))
        return [str(y.dtype), [repr(v) for v in y.tolist()]]  # (nan == nan as text)
    assert compute(gradcli) == oracle(compute)


def test_a_far_negative_x_is_reflected_not_summed():
    # (PyTorch's sum would take 1e15 steps: gradcli reflects, psi_2(x) = psi_2(1 - x) at a
    # half-integer, about -1 / x ** 2)
    y = gradcli.polygamma(2, gradcli.tensor([-1e15 - 0.5], dtype=gradcli.float64)).item()
    assert y == pytest.approx(-1e-30, rel=1e-3)
