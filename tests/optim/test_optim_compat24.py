"""torch.optim's RMSprop (the optimizer of "Learning PyTorch with examples"), AdamW and
lr_scheduler, torch.nn.utils' gradient clipping, and the optimizers' check of their
parameters: as PyTorch 2.13 steps, schedules, clips and refuses."""

import numpy as np
import pytest

import gradcli as torch
from gradcli import nn


pytestmark = pytest.mark.usefixtures("fresh_engine")

def test_state_and_hyperparameters_are_pytorchs(oracle):
    """The state an optimizer keeps, its repr and its parameter groups' hyperparameters."""
    def kept(T):
        out = []
        for kind, options in (("RMSprop", dict(momentum=0.9, centered=True)), ("RMSprop", {}),
                              ("AdamW", dict(amsgrad=True))):
            w = T.ones(3, requires_grad=True)
            opt = getattr(T.optim, kind)([w], **options)
            w.grad = T.tensor([0.5, -1., 2.])
            opt.step()
            state = opt.state_dict()
            out.append((sorted(state["state"][0]), repr(opt), state["param_groups"][0]))
        return out
    assert kept(torch) == oracle(kept)


def test_rmsprop_square_average_is_pytorchs_bit_for_bit(oracle):
    """square_avg = alpha * square_avg + (1 - alpha) * g * g rounds as PyTorch's addcmul (one
    fused multiply-add of (1 - alpha) * g and g)."""
    rng = np.random.default_rng(2)
    grads = [rng.standard_normal(4000).astype(np.float32) for _ in range(3)]

    def square_avg(T):
        w = T.zeros(4000, requires_grad=True)
        opt = T.optim.RMSprop([w], alpha=0.93)
        for g in grads:
            w.grad = T.tensor(g.copy())
            opt.step()
        return opt.state_dict()["state"][0]["square_avg"].numpy().copy()
    assert np.array_equal(square_avg(torch), oracle(square_avg))


SCHEDULERS = {"StepLR": dict(step_size=3, gamma=0.5),
              "MultiStepLR": dict(milestones=[2, 5, 5], gamma=0.1),
              "ExponentialLR": dict(gamma=0.9),
              "LambdaLR": dict(lr_lambda=lambda epoch: 1 / (epoch + 1))}


@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_sets_the_rates_pytorch_sets(name, oracle):
    def rates(T):
        w = T.ones(2, requires_grad=True)
        opt = T.optim.SGD([{"params": [w]}, {"params": [T.ones(1, requires_grad=True)],
                                             "lr": 0.3}], lr=1.0)
        sched = getattr(T.optim.lr_scheduler, name)(opt, **SCHEDULERS[name])
        seen = [sched.get_last_lr()]
        for _ in range(7):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        return seen, sched.last_epoch, [g["initial_lr"] for g in opt.param_groups]
    assert rates(torch) == oracle(rates)


def test_optimizers_refuse_what_pytorch_refuses(oracle):
    def refusals(T):
        out = []
        for params in ([T.ones(2, requires_grad=True) * 2], [1.0], [{"params": [[1.0]]}]):
            try:
                T.optim.Adam(params)
            except (TypeError, ValueError) as e:
                out.append(f"{type(e).__name__}: {e}")
        kept = T.ones(2, requires_grad=True) * 2
        kept.retain_grad()
        out.append(len(T.optim.SGD([kept]).param_groups[0]["params"]))
        out.append(len(T.optim.SGD([{"params": T.ones(1, requires_grad=True)}])
                       .param_groups[0]["params"]))
        return out
    assert refusals(torch) == oracle(refusals)


def test_clip_grad_norm_and_value_clip_as_pytorch_clips(oracle):
    def clipped(T):
        T.manual_seed(0)
        m = T.nn.Linear(3, 2)
        (m(T.tensor([[1., 2., 3.], [-4., 5., 6.]])) * 10).sum().backward()
        norms = [T.nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0).item(),
                 T.nn.utils.clip_grad_norm_(m.parameters(), 0.5, norm_type="inf").item(),
                 T.nn.utils.clip_grad_norm_(m.weight, 100.).item(),
                 T.nn.utils.clip_grad_norm_([T.zeros(1, requires_grad=True)], 1.).item()]
        grads = [m.weight.grad.numpy().copy(), m.bias.grad.numpy().copy()]
        T.nn.utils.clip_grad_value_(m.parameters(), 0.1)
        return norms, grads, m.weight.grad.numpy().copy()
    expected, got = oracle(clipped), clipped(torch)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
    for g, e in zip(got[1] + [got[2]], expected[1] + [expected[2]]):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_clip_grad_norm_refuses_a_nonfinite_norm_when_asked():
    w = nn.Parameter(torch.ones(2))
    w.grad = torch.tensor([float("inf"), 1.])
    with pytest.raises(RuntimeError, match=r"^The total norm of order 2.0 for gradients from "
                                           r"`parameters` is non-finite"):
        torch.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)


def test_an_optimizers_state_holds_tensors_as_pytorchs_does(oracle):
    """`opt.state[p]` (printed in Q&A answers): tensors, the step count a float tensor, kept
    through state_dict and load_state_dict."""
    def state(T):
        w = T.tensor([2.0, -1.0], requires_grad=True)
        out = []
        for opt in (T.optim.Adam([w], lr=0.1), T.optim.SGD([w], lr=0.1, momentum=0.9),
                    T.optim.RMSprop([w], centered=True)):
            for _ in range(3):
                opt.zero_grad()
                (w ** 2).sum().backward()
                opt.step()
            out.append(repr(opt.state[w]))
            out.append(all(v is opt.state[w][k] for k, v in opt.state_dict()["state"][0].items()))
        w2 = T.tensor([2.0, -1.0], requires_grad=True)
        again = T.optim.RMSprop([w2], centered=True)
        again.load_state_dict(opt.state_dict())
        (w2 ** 2).sum().backward()
        again.step()
        out.append(repr(again.state[w2]))
        return out
    assert state(torch) == oracle(state)
