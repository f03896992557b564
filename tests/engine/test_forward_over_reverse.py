"""Forward-over-reverse: a backward pass run inside a dual level differentiates through the
saved tensors' tangents, saved outputs included (tanh, sigmoid, exp, sqrt, softmax save their
output), so Hessians by forward-over-reverse equal the reverse-over-reverse ones."""

import numpy as np
import pytest

import gradcli

FUNCTIONS = {
    "tanh": lambda T, v: T.tanh(v),
    "sigmoid": lambda T, v: T.sigmoid(v),
    "exp": lambda T, v: T.exp(v),
    "sqrt": lambda T, v: (v * v + 1).sqrt(),
    "softmax": lambda T, v: v.softmax(0) * T.arange(3.0, dtype=T.float64),
    "sin_pow": lambda T, v: T.sin(v) ** 3,
    "log_softmax": lambda T, v: v.log_softmax(0) * v,
}
X = [0.3, -0.7, 1.1]
T_DIR = [1.0, 0.0, 0.5]


def tangent_of_gradient(T, name):
    fw = T.autograd.forward_ad
    x = T.tensor(X, dtype=T.float64, requires_grad=True)
    with fw.dual_level():
        xd = fw.make_dual(x, T.tensor(T_DIR, dtype=T.float64))
        (g,) = T.autograd.grad(FUNCTIONS[name](T, xd).sum(), xd, create_graph=True)
        tangent = fw.unpack_dual(g).tangent
        return None if tangent is None else np.array(tangent.tolist())


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_tangent_of_gradient_is_hessian_vector_product(name):
    x = gradcli.tensor(X, dtype=gradcli.float64)
    hessian = gradcli.autograd.functional.hessian(
        lambda v: FUNCTIONS[name](gradcli, v).sum(), x)
    expected = np.array(hessian.tolist()) @ np.array(T_DIR)
    np.testing.assert_allclose(tangent_of_gradient(gradcli, name), expected, atol=1e-12)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(tangent_of_gradient(gradcli, name),
                               tangent_of_gradient(torch, name), atol=1e-12)


def test_forward_mode_hessian_equals_reverse_mode():
    x = gradcli.tensor(X, dtype=gradcli.float64)

    def f(v):
        return gradcli.tanh(v).sum() + (v ** 3).sum() + v.softmax(0)[0]
    forward = gradcli.autograd.functional.hessian(f, x, vectorize=True,
                                                  outer_jacobian_strategy="forward-mode")
    reverse = gradcli.autograd.functional.hessian(f, x)
    np.testing.assert_allclose(forward.tolist(), reverse.tolist(), atol=1e-12)
