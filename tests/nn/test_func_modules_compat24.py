"""torch.func over modules as its tutorials use it: functional_call with the dotted names of an
nn.Sequential's parameters ("0.weight", per-sample gradients), and stack_module_state for a
vmap over an ensemble (model ensembling), as PyTorch 2.13 computes them."""

import numpy as np
import pytest

import gradcli as torch


pytestmark = pytest.mark.usefixtures("fresh_engine")


def _per_sample_grads(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.ReLU(), T.nn.Linear(3, 2))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params, sample, target):
        out = T.func.functional_call(model, params, (sample.unsqueeze(0),))
        return T.nn.functional.cross_entropy(out, target.unsqueeze(0))
    data = T.tensor(np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4))
    targets = T.tensor([0, 1, 1, 0, 1])
    grads = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    return {k: g.numpy().copy() for k, g in grads.items()}


def test_functional_call_takes_a_sequentials_dotted_names(oracle):
    expected, got = oracle(_per_sample_grads), _per_sample_grads(torch)
    assert sorted(got) == sorted(expected) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-7)


def test_functional_call_still_refuses_private_names():
    model = torch.nn.Sequential(torch.nn.Linear(2, 1))
    with pytest.raises(AttributeError, match="'0._parameters' does not name a parameter"):
        torch.func.functional_call(model, {"0._parameters": torch.ones(1)}, (torch.ones(2),))


def _ensemble(T):
    T.manual_seed(0)
    models = [T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
              for _ in range(3)]
    params, buffers = T.func.stack_module_state(models)
    x = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))

    def fmodel(params, buffers, x):
        return T.func.functional_call(models[0], (params, buffers), (x,))
    out = T.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    return ({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()},
            buffers, out.detach().numpy().copy())


def test_stack_module_state_stacks_an_ensemble_for_vmap(oracle):
    expected, got = oracle(_ensemble), _ensemble(torch)
    assert got[:2] == expected[:2]
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-5, atol=1e-7)


def test_stack_module_state_refuses_what_pytorch_refuses(oracle):
    def refusals(T):
        out = []
        a, b = T.nn.Linear(2, 1), T.nn.Linear(2, 1)
        b.eval()
        frozen = T.nn.Linear(2, 1)
        frozen.bias.requires_grad_(False)
        for models in ([], [a, b], [a, T.nn.Tanh()], [a, frozen]):
            try:
                T.func.stack_module_state(models)
            except RuntimeError as e:
                out.append(str(e))
        return out
    assert refusals(torch) == oracle(refusals)
