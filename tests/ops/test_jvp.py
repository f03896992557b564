"""Every differentiable op of the table, on every one of its samples: forward-mode AD (the op's
JVP, declared or derived) against the central difference along a random tangent.  Composite
ops are checked through their composition and through their declared JVP (`-declared`)."""

import pytest

from checks import cases, check_grads, ids

DIFFERENTIABLE = cases(lambda op: op.differentiable, declared=True)


@pytest.mark.parametrize("op, sample, declared", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_jvp_matches_finite_differences(op, sample, declared):
    check_grads(op, sample, orders=(), modes=("fwd",), declared=declared)
