"""Red team, round 7: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator).  The numpy
facade sized the results of its functions from the shapes of their arguments, and took those
shapes with np.shape, which makes an array of a list first: a list of arrays (`[a] * 1000`,
1,000 references) is stacked, concatenated or made an array before any check, and the
functions whose result is not a broadcast of their arguments (a `*_like` given `shape=`, the
random draws whose parameters broadcast) made theirs unchecked."""

import io

import pytest
from processes import refusal_and_peak as _refusal_and_peak

from gradcli.engine import tensor as engine_tensor
from gradcli.lang.session import Session
from gradcli.lang.transcript import fresh_interpreter


@pytest.fixture(autouse=True)
def _fresh_engine_state():
    with fresh_interpreter():
        yield


def _run(source):
    """What a program prints, run in-process (it must end without error)."""
    out = io.StringIO()
    Session(out=out).run(source, timeout=10)
    return out.getvalue()


# ---------------------------------------------------------------------- the numpy facade

# each makes 10 ** 6 elements (8 MB) from inputs of a few thousand, under an element limit of
# 10 ** 5
MADE_FIRST = {
    "np.stack of a list": "np.stack([np.ones(1000)] * 1000)",
    "np.concatenate of a list": "np.concatenate([np.ones(1000)] * 1000)",
    "np.array of a list": "np.array([np.ones(1000)] * 1000)",
    "np.asarray of a list": "np.asarray([np.ones(1000)] * 1000)",
    "np.add of a list": "np.add([np.ones(1000)] * 1000, 1.0)",
    "np.zeros_like shape=": "np.zeros_like(1.0, shape=(1000, 1000))",
    "np.ones_like shape=": "np.ones_like(np.ones(3), shape=(1000, 1000))",
    "np.full_like shape=": "np.full_like(1.0, 2.0, shape=(1000, 1000))",
    "np.full_like shape at its place": "np.full_like(1.0, 2.0, None, 'K', True, (1000, 1000))",
    "np.random.normal broadcast": "np.random.normal(np.zeros(1000), np.ones((1000, 1)))",
    "np.random.uniform broadcast": "np.random.uniform(np.zeros(1000), np.ones((1000, 1)))",
    "np.random.randint broadcast": "np.random.randint(np.zeros(1000, np.int64), "
                                   "np.ones((1000, 1), np.int64))",
}


@pytest.mark.parametrize("source", MADE_FIRST.values(), ids=MADE_FIRST.keys())
def test_the_numpy_facade_refuses_a_result_before_it_is_made(monkeypatch, source):
    """`np.stack([a] * 10 ** 4)` of an array of 10 ** 7 elements is 10 ** 11 floats (800 GB)
    from a list of 10,000 references: the facade's size check took the arguments' shapes with
    np.shape, which makes the whole array of a list first; `np.zeros_like(1.0, shape=...)`
    and `np.random.normal(loc, scale)` with parameters that broadcast were never sized at all
    (only their arguments' shapes, or `size=`).  Expected: refused before NumPy allocates (the
    peak of traced memory stays under the result's size)."""
    monkeypatch.setattr(engine_tensor.ElementLimit, "limit", 100_000)
    line, peak = _refusal_and_peak(source)
    assert "exceeds the limit" in line, line
    assert peak < 4_000_000, f"{peak:,} bytes allocated before the refusal"


SMALL_ENOUGH = {
    "np.stack": ("np.stack([np.ones(3)] * 2).shape", "(2, 3)"),
    "np.concatenate": ("np.concatenate([np.ones(3), [1, 2]]).shape", "(5,)"),
    "np.array nested": ("np.array([[1, 2], [3, 4]]).sum()", "10"),
    "np.array of a scalar": ("np.array(2.5).ndim", "0"),
    "np.zeros_like shape=": ("np.zeros_like(np.ones(3), shape=(2, 2)).shape", "(2, 2)"),
    "np.full_like": ("np.full_like(np.ones(3), 7).sum()", "21.0"),
    "np.random.normal": ("np.random.normal(np.zeros(3), np.ones((2, 1))).shape", "(2, 3)"),
    "np.random.normal size": ("np.random.normal(0, 1, size=(4, 5)).shape", "(4, 5)"),
    "np.random.randint": ("np.random.randint(0, 5, 7).shape", "(7,)"),
    "np.add broadcast": ("np.add([[1], [2]], [1, 2, 3]).shape", "(2, 3)"),
}


@pytest.mark.parametrize("source, shown", SMALL_ENOUGH.values(), ids=SMALL_ENOUGH.keys())
def test_the_numpy_facade_still_makes_what_is_under_the_limit(source, shown):
    assert _run(f"import numpy as np\nprint({source})\n") == shown + "\n"
