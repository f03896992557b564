"""Every differentiable op of the table, on every one of its samples: forward-mode AD (the op's
JVP, declared or derived) against the central difference along a random tangent.  Composite
ops are checked through their composition."""

import pytest

from checks import cases, check_grads, ids

DIFFERENTIABLE = cases(lambda op: op.differentiable)


@pytest.mark.parametrize("op, sample", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_jvp_matches_finite_differences(op, sample):
    check_grads(op, sample, orders=(), modes=("fwd",))
