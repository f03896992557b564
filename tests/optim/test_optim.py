"""torch.optim (issue 20): SGD and Adam check their arguments and step as PyTorch steps, given
the same gradients; a model trained with them fits."""

import numpy as np
import pytest

import gradcli as torch
from gradcli import nn


pytestmark = pytest.mark.usefixtures("fresh_engine")


def test_sgd_with_momentum_converges_on_a_linear_fit():
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.], [-2.], [0.5]]) + 0.3
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(200):
        opt.zero_grad()
        loss = nn.MSELoss()(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 1e-8


def test_optimizer_arguments_are_checked_as_pytorch_checks_them():
    p = [nn.Parameter(torch.ones(1))]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        torch.optim.SGD(p, lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                                         "dampening"):
        torch.optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        torch.optim.Adam(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.Adam([])


OPTIMIZERS = {"sgd": ("SGD", dict(lr=0.05, weight_decay=0.1, momentum=0.5, nesterov=True)),
              "sgd with dampening": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1)),
              "sgd maximize": ("SGD", dict(lr=0.01, maximize=True)),
              "adam": ("Adam", dict(lr=0.05, weight_decay=0.1)),
              "adam amsgrad": ("Adam", dict(lr=0.01, amsgrad=True)),
              "adam decoupled": ("Adam", dict(lr=0.01, weight_decay=0.1,
                                              decoupled_weight_decay=True)),
              "adamw": ("AdamW", dict(lr=0.05)),
              "adamw amsgrad": ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
              "rmsprop": ("RMSprop", dict(lr=0.01)),
              "rmsprop centered": ("RMSprop", dict(lr=0.01, centered=True, alpha=0.9)),
              "rmsprop weight decay maximize": ("RMSprop", dict(lr=0.02, weight_decay=0.1,
                                                                maximize=True)),
              "rmsprop momentum": ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True))}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_steps_as_pytorch_steps(name, oracle):
    """Given the same gradients, SGD's steps are PyTorch's bit for bit; Adam's, AdamW's and
    RMSprop's within a unit in the last place (PyTorch's vectorised sqrt rounds its own way)."""
    kind, options = OPTIMIZERS[name]
    rng = np.random.default_rng(0)
    start = rng.standard_normal((7, 33)).astype(np.float32)
    grads = [rng.standard_normal((7, 33)).astype(np.float32) for _ in range(6)]

    def steps(T):
        w = T.tensor(start.copy(), requires_grad=True)
        opt = getattr(T.optim, kind)([w], **options)
        for g in grads:
            w.grad = T.tensor(g.copy())
            opt.step()
        return w.detach().numpy().copy()
    results = [oracle(steps), steps(torch)]
    if kind == "SGD":
        assert np.array_equal(results[0], results[1])
    else:
        # (RMSprop's momentum carries a last-bit difference of sqrt into parameters near 0:
        # within a unit in the last place of the parameters' scale, 1)
        np.testing.assert_allclose(results[1], results[0], rtol=3e-7,
                                   atol=2.5e-7 if kind == "RMSprop" else 1e-7)
