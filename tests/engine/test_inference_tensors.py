"""Inference tensors (torch.inference_mode): what PyTorch 2.13 does with them, through the
Python API (the piped-REPL transcripts, tests/transcripts/oracle/pytorch_code_inference.txt, show
the same through programs)."""

import pytest

import gradcli as torch
from gradcli.engine.grad_mode import (INFERENCE_INPLACE, INFERENCE_REQUIRES_GRAD,
                                      INFERENCE_SAVED, INFERENCE_VERSION)


def _made_inside():
    with torch.inference_mode():
        return torch.ones(3), torch.ones(2, 2)


def test_made_in_the_mode_and_views_are_inference_tensors():
    x = torch.ones(3, requires_grad=True)
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        a, b = torch.ones(3), x * 2
        with torch.inference_mode(False):
            c = torch.ones(1)
            assert not torch.is_inference_mode_enabled()
    assert not torch.is_inference_mode_enabled()
    assert a.is_inference() and b.is_inference() and not b.requires_grad
    assert not c.is_inference() and not x.is_inference()
    assert a.view(3).is_inference() and a.detach().is_inference() and a.data.is_inference()
    assert not a.clone().is_inference() and not (a * 2).is_inference()
    assert torch.is_inference(a)


@pytest.mark.parametrize("change", [
    lambda a: a.add_(1), lambda a: a.mul_(2), lambda a: a.zero_(),
    lambda a: a.copy_(torch.zeros(3)), lambda a: a.__setitem__(0, 5.0),
    lambda a: a[:2].fill_(3.0)])
def test_in_place_outside_the_mode_fails_after_the_change(change):
    a, _ = _made_inside()
    before = a.clone()
    with pytest.raises(RuntimeError) as e:
        change(a)
    assert str(e.value) == INFERENCE_INPLACE
    assert not bool((a == before).all())  # PyTorch's check runs when the version is bumped


def test_inside_the_mode_inference_tensors_change_in_place():
    with torch.inference_mode():
        a = torch.ones(3)
        a.add_(1)
        a.requires_grad_()
    assert a.tolist() == [2.0, 2.0, 2.0] and a.requires_grad


def test_version_requires_grad_and_saving_fail_outside_the_mode():
    a, m = _made_inside()
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^" + INFERENCE_VERSION):
        a._version
    for set_it in (lambda: a.requires_grad_(), lambda: setattr(a, "requires_grad", True),
                   lambda: torch.nn.Parameter(a)):
        with pytest.raises(RuntimeError) as e:
            set_it()
        assert str(e.value) == INFERENCE_REQUIRES_GRAD
    assert a.requires_grad_(False) is a
    w = torch.ones(2, 2, requires_grad=True)
    for use in (lambda: x * a, lambda: torch.dot(x, a), lambda: w @ m,
                lambda: x.unsqueeze(0) @ a.unsqueeze(1)):
        with pytest.raises(RuntimeError) as e:
            use()
        assert str(e.value) == INFERENCE_SAVED
    # what saves no inference tensor is allowed
    assert (x + a).sum().grad_fn.name() == "SumBackward0"
    (torch.exp(a) * x).sum().backward()   # saves exp(a), a normal tensor
    assert x.grad.tolist() == torch.exp(a).tolist()


def test_a_custom_function_may_not_save_one():
    a, _ = _made_inside()
    x = torch.ones(3, requires_grad=True)

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, p, q):
            ctx.save_for_backward(q)
            return p * 2

        @staticmethod
        def backward(ctx, g):
            q, = ctx.saved_tensors
            return g * q, None

    with pytest.raises(RuntimeError) as e:
        Scale.apply(x, a)
    assert str(e.value) == INFERENCE_SAVED
    Scale.apply(x, a.clone()).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_normal_tensors_changed_inside_keep_their_version():
    n = torch.ones(3)
    with torch.inference_mode():
        n.add_(1)
        v = n[:2]
        assert not v.is_inference()
    assert n._version == 1
    v.add_(1)
    assert n._version == 2 and n.tolist() == [3.0, 3.0, 2.0]


def test_a_decorated_function_makes_inference_tensors():
    @torch.inference_mode()
    def infer(t):
        return t * 3

    @torch.inference_mode
    def bare(t):
        return t * 3

    x = torch.ones(2, requires_grad=True)
    assert infer(x).is_inference() and bare(x).is_inference()
    assert not infer(x).requires_grad
    assert not torch.is_inference_mode_enabled()
