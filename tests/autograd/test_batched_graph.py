"""autograd.grad(is_grads_batched=True, create_graph=True): the rows' gradients fold into the
graph PyTorch's vmap gives them where gradcli knows the batching rules (pointwise ops), with
the values of the row-by-row passes; elsewhere they stack.  (Against PyTorch:
tests/transcripts/oracle/pytorch_code_grads_batched_graph.txt.)"""

import numpy as np
import pytest

import gradcli as torch
from gradcli.analysis.record import Recording


pytestmark = pytest.mark.usefixtures("fresh_engine")


def rows(out, x, grads):
    return np.stack([torch.autograd.grad(out, x, g, retain_graph=True)[0].numpy()
                     for g in grads])


def test_a_pointwise_gradient_is_one_node_with_the_row_values():
    x = torch.tensor([0.5, 1., 2.], requires_grad=True)
    y = x.sin() * x.exp()
    go = torch.tensor([[1., 2., 3.], [0., -1., 0.5]])
    g, = torch.autograd.grad(y, x, go, create_graph=True, is_grads_batched=True)
    assert g.grad_fn.name() == "AddBackward0"
    assert np.array_equal(g.detach().numpy(), rows(y, x, go))
    # differentiable again, through the folded graph
    expected = sum(torch.autograd.grad(torch.autograd.grad(y, x, r, create_graph=True)[0].sum(),
                                       x, retain_graph=True)[0] for r in go)
    h, = torch.autograd.grad(g.sum(), x)
    assert torch.allclose(h, expected)


def test_what_gradcli_cannot_fold_stacks_with_the_same_values():
    """A matrix product's batching rule (PyTorch folds the batch into an mm) is not
    followed: the rows stack, as before."""
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    w = torch.tensor([[1., 2., 3.], [0., 1., -1.]], requires_grad=True)
    y = w @ x
    g, = torch.autograd.grad(y, x, torch.eye(2), create_graph=True, is_grads_batched=True)
    assert g.grad_fn.name() == "StackBackward0"
    assert np.array_equal(g.detach().numpy(), rows(y, x, torch.eye(2)))


def test_a_recording_around_still_sees_every_node():
    x = torch.tensor([0.5, 1.], requires_grad=True)
    with Recording() as recording:
        g, = torch.autograd.grad(x.cos(), x, torch.eye(2), create_graph=True,
                                 is_grads_batched=True)
    names = [type(n).__name__ for n in recording.records]
    # the rows' nodes, then the folded ones
    assert names.count("SinBackward0") == 2 and names[-2:] == ["ViewBackward0", "MulBackward0"]
    assert g.grad_fn is list(recording.records)[-1]
