"""A floating tensor to the power 2, 3, -2, -0.5 or -1 is computed as PyTorch's CPU kernel does
(x*x, x*x*x, 1/(x*x), 1/sqrt(x), 1/x), so `x ** 3 - x ** 2 * x` is exactly zero, as there."""

import hashlib

import numpy as np
import pytest

import gradcli


@pytest.mark.parametrize("exponent", [2, 3, -2, -0.5, -1, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_exponents_have_pytorch_s_bits(exponent, dtype, oracle):
    rng = np.random.default_rng(3)
    data = np.abs(rng.standard_normal(5000) * 3).astype(dtype) + 0.01

    def bits(lib):  # (the golden file keeps a digest of PyTorch's 5,000 results)
        return hashlib.sha256((lib.tensor(data) ** exponent).numpy().tobytes()).hexdigest()
    assert bits(gradcli) == oracle(bits)


def test_cube_is_two_roundings():
    x = gradcli.tensor([1.1, 2.3, 0.7])
    assert (x ** 3 - x ** 2 * x).tolist() == [0.0, 0.0, 0.0]
    assert (x ** 3).tolist() == (x * x * x).tolist()


def test_where_s_gradient_is_a_where():
    """PyTorch's where.self derivative is where(condition, grad, 0): a create_graph gradient
    through where has WhereBackward0 on top."""
    x = gradcli.tensor([1., -2., 3.], requires_grad=True)
    (h,) = gradcli.autograd.grad(gradcli.where(x > 0, x, 0.0).sum(), x, create_graph=True)
    assert h.tolist() == [1., 0., 1.]
    y = gradcli.tensor([1., -2., 3.], requires_grad=True)
    (h,) = gradcli.autograd.grad(gradcli.where(y > 0, y * y, 0.0).sum(), y, create_graph=True)
    assert type(h.grad_fn).__name__ == "AddBackward0"
    assert type(gradcli.autograd.grad(gradcli.where(y > 0, y * y, 0.0).sum(), y,
                                      create_graph=True)[0].grad_fn.next_functions[0][0]
                ).__name__ == "MulBackward0"
