"""remainder (`%`) on floats as PyTorch's CPU kernel computes it: fmod, moved into the divisor's
sign unless it is zero (a zero result keeps the dividend's sign; NumPy's remainder gives the
divisor's)."""

import itertools
import math

import numpy as np
import pytest

import gradcli

VALUES = [0.0, -0.0, 2.0, -2.0, 3.5, -3.5, 0.75, -0.75, 7.0, -7.0, math.inf, -math.inf, math.nan]


def assert_same_bits(ours, theirs):
    """Equal bit for bit (signed zeros included), NaNs equal whatever their sign and payload."""
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    keep = ~np.isnan(ours)
    bits = np.uint32 if ours.dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(ours[keep].view(bits), theirs[keep].view(bits))


def test_a_zero_remainder_keeps_the_dividend_s_sign():
    a = gradcli.tensor([2.0, -2.0, 0.0, -0.0])
    b = gradcli.tensor([-2.0, 2.0, -2.0, 2.0])
    out = (a % b).numpy()
    assert list(np.signbit(out)) == [False, True, False, True]
    assert not np.signbit((gradcli.tensor(4.0) % -2).item())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_matches_pytorch_bit_for_bit(dtype, oracle):
    pairs = list(itertools.product(VALUES, [v for v in VALUES if v != 0]))
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]

    def remainders(T):
        kind = getattr(T, dtype)
        return ((T.tensor(a, dtype=kind) % T.tensor(b, dtype=kind)).numpy(),
                (T.tensor(a, dtype=kind) % -2.0).numpy())
    ours, scalar_ours = remainders(gradcli)
    theirs, scalar_theirs = oracle(remainders)
    assert_same_bits(ours, theirs)
    assert_same_bits(scalar_ours, scalar_theirs)
