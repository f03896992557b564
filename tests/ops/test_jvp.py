"""Every differentiable op of the table, on every one of its samples: forward-mode AD (the op's
JVP, declared or derived) against the central difference along a random tangent.  Composite
ops are checked through their composition."""

import pytest

import gradcli
from checks import _dual_level, _make_dual, _tangent, cases, check_grads, finite_differences_apply, ids, leaves, op_function


def no_tangent(op, sample):
    """The samples PyTorch's forward-mode AD gives no tangent at all (its JVP formula returns
    an undefined tensor): scatter_reduce's prod."""
    return op.name == "scatter_reduce.two" and sample.attrs.get("reduce") == "prod"


DIFFERENTIABLE = cases(finite_differences_apply)
WITH_TANGENT = [c for c in DIFFERENTIABLE if not no_tangent(*c)]
WITHOUT_TANGENT = [c for c in DIFFERENTIABLE if no_tangent(*c)]


@pytest.mark.parametrize("op, sample", WITH_TANGENT, ids=ids(WITH_TANGENT))
def test_jvp_matches_finite_differences(op, sample):
    check_grads(op, sample, orders=(), modes=("fwd",))


@pytest.mark.parametrize("op, sample", WITHOUT_TANGENT, ids=ids(WITHOUT_TANGENT))
def test_no_tangent_where_pytorch_gives_none(op, sample):
    fn, xs = op_function(op, sample)
    with _dual_level():
        duals = [_make_dual(x, gradcli.ones_like(x)) for x in leaves(xs, False)]
        assert [_tangent(o) for o in fn(duals)] == [None]
