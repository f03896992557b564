"""Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD step as PyTorch 2.13's single-tensor
implementations: 25 steps on the same gradients (the parameters' own function plus noise, some
zero), float32 and float64, every option.  Bit for bit where the step takes no square root
(Rprop, ASGD, Adamax); within 2**-20 relative where it does: PyTorch's vectorised float32
sqrt (SLEEF's) is not the correctly rounded one, and float64's fused multiply-adds are rounded
twice here (see gradcli.optim).  Printing, state, errors: tests/oracle/names26_sessions.py."""

import numpy as np
import pytest

import gradcli

CASES = [
    ("Adagrad", {}), ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                      initial_accumulator_value=0.1, maximize=True)),
    ("Adadelta", {}), ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", {}), ("Adamax", dict(lr=0.05, betas=(0.5, 0.9), weight_decay=0.1)),
    ("NAdam", {}), ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", {}), ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Rprop", {}), ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2),
                                  maximize=True)),
    ("ASGD", {}), ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1)),
]
EXACT = ("Rprop", "ASGD", "Adamax")


def trajectory(lib, name, options, dtype, steps=25):
    rng = np.random.default_rng(0)
    params = [lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(dtype)))
              for shape in ((4, 3), (5,))]
    opt = getattr(lib.optim, name)(params, **options)
    out = []
    for i in range(steps):
        for q in params:
            g = np.tanh(q.detach().numpy().astype(np.float64) * 3 - 0.5
                        + 0.2 * rng.standard_normal(q.shape))
            if i % 7 == 3:
                g[0] = 0
            q.grad = lib.tensor(g.astype(dtype))
        opt.step()
        out.append(np.concatenate([q.detach().numpy().ravel() for q in params]))
    return np.array(out)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                      enumerate(CASES)])
def test_steps_are_pytorchs(name, options, dtype, oracle):
    expected = oracle(lambda torch: trajectory(torch, name, options, dtype))
    got = trajectory(gradcli, name, options, dtype)
    if name in EXACT and dtype == "float32":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=2 ** -20, atol=1e-7)
