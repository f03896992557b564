"""torch.func (issue 20): transforms compose, give plain tensors at the top level and stay
differentiable under regular autograd; functional_call only reaches parameters.  (Sessions
against PyTorch: tests/transcripts/oracle/pytorch_code_func.txt.)"""

import pytest

import gradcli as torch
from gradcli.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, \
    vjp, vmap
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session


pytestmark = pytest.mark.usefixtures("fresh_engine")


X = [0.5, 1.0, 2.0]


def close(a, b):
    return torch.allclose(a, b, atol=1e-6)


def test_results_at_the_top_level_are_plain_tensors():
    x = torch.tensor(X)
    g, value = grad_and_value(lambda x: (x ** 3).sum())(x)
    assert g.grad_fn is None and not g.requires_grad and value.grad_fn is None
    assert close(g, 3 * x ** 2)
    assert not x.requires_grad


def test_nested_transforms_give_higher_derivatives():
    t = torch.tensor(0.7)
    d = torch.sin
    for expected in (torch.cos(t), -torch.sin(t), -torch.cos(t), torch.sin(t)):
        d = grad(d)
        assert close(d(t), expected)
    x = torch.tensor(X)
    f = lambda x: (x ** 3).sum()
    assert close(hessian(f)(x), torch.diag(6 * x))
    assert close(jacrev(jacrev(f))(x), jacfwd(jacrev(f))(x))


def test_a_closure_over_an_outer_input_is_differentiated_by_the_outer_transform():
    inner = lambda x: grad(lambda y: (x * y).sum())(torch.ones(3))   # = x
    assert close(jacrev(inner)(torch.tensor(X)), torch.eye(3))


def test_regular_autograd_differentiates_through_a_transform():
    w = torch.tensor(X, requires_grad=True)
    g = grad(lambda v: (v ** 3).sum())(w)
    assert g.requires_grad
    g.sum().backward()
    assert close(w.grad, 6 * w.detach())


def test_inputs_the_output_does_not_depend_on_get_zero_gradients():
    x, y = torch.tensor(X), torch.tensor(X)
    gx, gy = grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y)
    assert close(gy, torch.zeros(3)) and close(gx, torch.ones(3))


def test_vjp_jvp_and_jacobians_agree():
    x = torch.tensor(X)
    f = lambda x: torch.stack([x[0] * x[1], x.exp().sum(), x[2] ** 2])
    J = jacrev(f)(x)
    assert close(J, jacfwd(f)(x))
    v, t = torch.tensor([1., 2., 3.]), torch.tensor([0.5, -1., 2.])
    assert close(vjp(f, x)[1](v)[0], v @ J)
    assert close(jvp(f, (x,), (t,))[1], J @ t)


def test_vmap_maps_over_in_dims_and_stacks_along_out_dims():
    A = torch.arange(6.).reshape(2, 3)
    assert close(vmap(lambda r: r * 2, in_dims=1, out_dims=1)(A), A * 2)
    assert close(vmap(lambda a, v: a * v, in_dims=(0, None))(A, torch.tensor([1., 2., 3.])),
                 A * torch.tensor([1., 2., 3.]))
    assert close(vmap(vmap(torch.mul))(A, A), A * A)
    with pytest.raises(ValueError, match="Expected all tensors to have the same size"):
        vmap(torch.add)(torch.ones(2), torch.ones(3))


def test_functional_call_swaps_parameters_for_one_call():
    model = torch.nn.Linear(2, 1)
    before = model.weight.detach().clone()
    out = functional_call(model, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)},
                          (torch.tensor([1., 2.]),))
    assert close(out, torch.tensor([3.]))
    assert torch.equal(model.weight.detach(), before)
    assert isinstance(model.weight, torch.nn.Parameter)


@pytest.mark.parametrize("key", ["__class__", "_parameters", "weight.__dict__", "forward.x"])
def test_functional_call_reaches_nothing_but_module_attributes(key):
    with pytest.raises(ProgramError) as info:
        Session().run(f"import torch\nm = torch.nn.Linear(2, 1)\n"
                      f"torch.func.functional_call(m, {{{key!r}: torch.ones(1)}}, "
                      f"(torch.ones(2),))\n")
    assert info.value.type_name == "AttributeError"


def test_vmap_refuses_samples_that_draw_differently():
    """gradcli runs vmap's function sample by sample and hands each sample its part of one
    batched draw: a sample that draws other sizes than the first has no part to get."""
    calls = []

    def f(r):
        calls.append(1)
        return r.sum() + torch.rand(len(calls))
    x = torch.ones(3, 2)
    for randomness in ("different", "same"):
        calls.clear()
        with pytest.raises(RuntimeError, match="drew random numbers differently for different "
                                               "samples"):
            torch.func.vmap(f, randomness=randomness)(x)
    from gradcli.engine.random import Vmap
    assert Vmap.levels == []   # (the level is gone after the error)
    assert torch.func.vmap(lambda r: r.sum().item, randomness="same") is not None
