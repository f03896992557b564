"""ops.numerics.fused: a * b + c rounded once, as PyTorch's contracted kernels compute it, checked
against exact rational arithmetic; fma, the hot paths' version, fused for float32 only."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gradcli.ops.numerics import fma, fused

FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)


def exact(a, b, c, dtype):
    value = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if dtype == np.float64:
        try:
            return float(value)
        except OverflowError:
            return np.inf if value > 0 else -np.inf
    with np.errstate(over="ignore"):
        below = np.float32(float(value))  # (a double rounding may be one float32 step off)
    steps = [np.nextafter(below, np.float32(-np.inf)), below,
             np.nextafter(below, np.float32(np.inf))]
    return min(steps, key=lambda f: (abs(Fraction(float(f)) - value) if np.isfinite(f)
                                     else Fraction(2) ** 1000,
                                     int(np.float32(f).view(np.int32)) & 1))


@settings(max_examples=400, deadline=None)
@given(FLOATS, FLOATS, FLOATS)
def test_float64_is_rounded_once(a, b, c):
    got = fused(np.float64(a), np.float64(b), np.float64(c))
    want = exact(a, b, c, np.float64)
    assert got == want or (np.isnan(got) and np.isnan(want))


@settings(max_examples=400, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=32),
       st.floats(allow_nan=False, allow_infinity=False, width=32),
       st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_float32_is_rounded_once(a, b, c):
    got = fma(np.float32(a), np.float32(b), np.float32(c))
    assert got.dtype == np.float32
    assert got == exact(a, b, c, np.float32) or not np.isfinite(got)


@pytest.mark.parametrize("case", ["cancellation", "ties", "extremes"])
def test_float64_arrays_at_their_hardest(case):
    """Where the candidate's error is near half a unit, or the error terms would overflow or
    underflow, the exact fallback decides."""
    rng = np.random.default_rng(["cancellation", "ties", "extremes"].index(case))
    n = 4000
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    if case == "cancellation":
        c = -(a * b) * (1 + rng.standard_normal(n) * 1e-15)
    elif case == "ties":  # products that end exactly half-way between two doubles
        a = rng.integers(1, 2 ** 26, n).astype(float)
        b = rng.integers(1, 2 ** 27, n) + 0.5
        c = rng.integers(-2 ** 52, 2 ** 52, n).astype(float)
    else:
        a = a * 2.0 ** rng.integers(-600, 500, n)
        c = rng.standard_normal(n) * 2.0 ** rng.integers(-1070, 1020, n)
    got = fused(a, b, c)
    want = np.array([exact(x, y, z, np.float64) for x, y, z in zip(a, b, c)])
    np.testing.assert_array_equal(got, want)


def test_fma_is_plain_for_float64():
    """The elementwise kernels' hot paths (tanh's backward) compute float64 plainly."""
    a, b, c = np.float64(0.1), np.float64(3.0), np.float64(-0.30000000000000004)
    assert fma(a, b, c) == a * b + c
    assert fused(a, b, c) == float(Fraction(0.1) * 3 + Fraction(c))
    assert fused(a, b, c) != a * b + c


def test_shapes_broadcast_and_scalars_stay_scalars():
    out = fused(np.ones((2, 3)), 2.0, np.arange(3.0))
    np.testing.assert_array_equal(out, [[2, 3, 4], [2, 3, 4]])
    assert np.ndim(fused(1.0, 2.0, 3.0)) == 0
