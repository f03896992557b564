"""Every differentiable op of the table, on every one of its samples: the VJP against central
differences, and the VJP of the VJP (create_graph) where the sample asks for second order.
The VJPs checked are those the ops' declared formulas compile to (gradcli.ops.derivatives), the
same formulas `gradcli ops` and `explain` show; composite ops are checked as users call them,
through the ops they run.

(Named test_op_gradcheck: tests/autograd/test_gradcheck.py owns the module name test_gradcheck
under pytest's default import mode.)"""

import numpy as np
import pytest

import gradcli
from gradcli.ops.registry import Op, Sample
from checks import cases, check_grads, finite_differences_apply, ids, op_function, rng_for

DIFFERENTIABLE = cases(finite_differences_apply)
SECOND_ORDER = [c for c in DIFFERENTIABLE if c[1].gradgrad]


@pytest.mark.parametrize("op, sample", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_vjp_matches_finite_differences(op, sample):
    check_grads(op, sample, orders=(1,), modes=("rev",))


@pytest.mark.parametrize("op, sample", SECOND_ORDER, ids=ids(SECOND_ORDER))
def test_vjp_of_vjp_matches_finite_differences(op, sample):
    check_grads(op, sample, orders=(2,), modes=("rev",))


# ------------------------------------------------------------------ the checker itself

SIN = Sample((2, 3))
WRONG = {
    "wrong first derivative": Op("bad_sin", np.sin, lambda g, self: g * self.sin(),
                                  samples=[SIN]),
    "derivative not differentiable again": Op(
        "bad_sin", np.sin, lambda g, self: g * self.cos().detach(), samples=[SIN]),
    "wrong JVP": Op("bad_sin", np.sin, lambda g, self: g * self.cos(),
                    jvp=lambda t, self: t * self.sin(), samples=[SIN]),
}


@pytest.mark.parametrize("wrong, orders, modes", [
    ("wrong first derivative", (1,), ("rev",)),
    ("derivative not differentiable again", (2,), ("rev",)),
    ("wrong JVP", (), ("fwd",))], ids=["first-order", "second-order", "forward"])
def test_checker_rejects_a_wrong_derivative(wrong, orders, modes):
    with pytest.raises(AssertionError, match="analytical and numerical derivatives differ"):
        check_grads(WRONG[wrong], SIN, orders=orders, modes=modes)


def test_checker_accepts_the_right_derivatives_of_the_wrong_ops_elsewhere():
    check_grads(WRONG["derivative not differentiable again"], SIN, orders=(1,), modes=("rev",))
    check_grads(WRONG["wrong JVP"], SIN, orders=(1, 2), modes=("rev",))


# ------------------------------------------------------------------ gradcli.autograd.gradcheck

AGREEMENT = [("sin", 0), ("mul", 3), ("mm", 0), ("sum.dim_IntList", 2)]


def _gradcheck_module():
    try:
        from gradcli.autograd import gradcheck, gradgradcheck
    except ImportError:
        pytest.skip("gradcli.autograd.gradcheck does not exist yet")
    return gradcheck, gradgradcheck


@pytest.mark.parametrize("name, index", AGREEMENT, ids=[f"{n}-{i}" for n, i in AGREEMENT])
def test_autograd_gradcheck_agrees_on_table_ops(name, index):
    gradcheck, gradgradcheck = _gradcheck_module()
    op = gradcli.ops.OPS[name]
    sample = op.samples[min(index, len(op.samples) - 1)]
    check_grads(op, sample)
    fn, xs = op_function(op, sample)
    inputs = tuple(gradcli.tensor(x, dtype=gradcli.float64, requires_grad=True) for x in xs)
    assert gradcheck(lambda *t: tuple(fn(list(t))), inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(lambda *t: tuple(fn(list(t))), inputs)


@pytest.mark.parametrize("wrong", ["wrong first derivative", "derivative not differentiable again"])
def test_autograd_gradcheck_agrees_on_wrong_derivatives(wrong):
    gradcheck, gradgradcheck = _gradcheck_module()
    op = WRONG[wrong]
    x = gradcli.tensor(rng_for(op, SIN).uniform(-2, 2, (2, 3)), dtype=gradcli.float64,
                       requires_grad=True)
    check = gradcheck if wrong == "wrong first derivative" else gradgradcheck
    assert not check(op, (x,), raise_exception=False)
