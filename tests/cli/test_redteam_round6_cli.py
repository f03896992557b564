"""Red team, round 6: programs run through the command line (both walls up), as regression
tests that state the SAFE behaviour (they fail until fixed)."""

import pytest

# a legitimate curve whose finite values span more than the largest float: its y range
# (hi - lo, and the 5 % margin) overflows to inf, and the drawing to NaN
HUGE_RANGE = "y = sign(x) * 1.7e308"


@pytest.mark.parametrize("extra", [[], ["--ascii"]], ids=["braille", "ascii"])
def test_a_curve_of_huge_finite_values_is_plotted(cli, extra):
    """`gradcli plot "y = sign(x) * 1.7e308" --at x=-1:1` ended in `ValueError: cannot convert
    float NaN to integer`, an error of the frontend's drawing reported as if it were the
    program's (the values are finite and the program ran without error).  Expected: the plot,
    exit status 0."""
    r = cli("plot", HUGE_RANGE, "--at", "x=-1:1", "--dtype", "float64", "--points", "11",
            "--no-color", *extra)
    assert r.code == 0, (r.code, r.stdout[-300:], r.stderr)
    assert "NaN" not in r.stderr and "y" in r.stdout


def test_the_y_limits_of_a_huge_range_are_finite():
    """The range the image file's axes get (matplotlib refuses limits that are not finite)."""
    import math
    from gradcli.render.plot import y_limits
    lo, hi = y_limits([-1.7e308, 1.7e308] * 6)
    assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
    lo, hi = y_limits([1e308] * 3)   # (one value: hi == lo, widened by 1, which is lost)
    assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
