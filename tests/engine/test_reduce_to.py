"""Gradients reduced back to an input's shape use PyTorch's at::sum_to: a plain sum for a 0-d
input (SumBackward0), sum(dims, keepdim=True) then a view when leading dims go."""

import pytest

import gradcli


@pytest.mark.parametrize("shape, name", [((), "SumBackward0"), ((1, 2), "SumBackward1"),
                                         ((2,), "ViewBackward0")])
def test_reduced_gradient_graph(shape, name):
    a = gradcli.ones(3, 2, requires_grad=True)
    s = gradcli.ones(shape, requires_grad=True)   # (torch.ones() of no size is a TypeError)
    (g,) = gradcli.autograd.grad((a * s).sum(), s, create_graph=True)
    assert g.shape == s.shape
    assert g.grad_fn.name() == name
    assert g.tolist() == (6.0 if not shape else [[3.0, 3.0]] if len(shape) == 2 else [3.0, 3.0])
