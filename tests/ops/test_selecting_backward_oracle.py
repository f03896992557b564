"""Backward formulas that select rather than multiply, as PyTorch's kernels do: outside the
region they give +0. (never -0. from a negative gradient, nor nan from an infinite one), and
the 2-norm's gradient is grad * (self / norm), exactly +-1 for a norm of one element; var's
backward is PyTorch's, infinities and nans included."""

import numpy as np
import pytest

import gradcli

CASES = {
    "clamp": lambda T, x: x.clamp(min=0.5),
    "clamp_both": lambda T, x: x.clamp(min=-0.5, max=0.5),
    "clamp_max": lambda T, x: x.clamp(max=-1.5),
    "clamp_min": lambda T, x: T.clamp_min(x, 0.5),
    "hardsigmoid": lambda T, x: T.nn.functional.hardsigmoid(x * 3),
    "softshrink": lambda T, x: T.nn.functional.softshrink(x, 1.5),
    "hardshrink": lambda T, x: T.nn.functional.hardshrink(x, 1.5),
    "zero_": lambda T, x: (x * 1).zero_(),
    "floor": lambda T, x: x.floor(),
    "norm_rows": lambda T, x: T.linalg.vector_norm(x.reshape(3, 1), dim=1),
    "max_dim": lambda T, x: x.reshape(1, 3).max(dim=1).values.expand(3),
    "min_all": lambda T, x: x.min().expand(3),
    "max_ties": lambda T, x: T.stack([x[1], x[1], x[0]]).max().expand(3),
}
X = [-1.0, 2.0, -0.7]
GRAD = [-1.0, float("inf"), -2.0]


def _grad(T, name):
    x = T.tensor(X, requires_grad=True)
    y = CASES[name](T, x)
    y.backward(T.tensor(GRAD).reshape(tuple(y.shape)) if y.numel() == 3 else T.ones_like(y))
    return x.grad.numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_bits_match_pytorch(name, oracle):
    ours, theirs = _grad(gradcli, name), oracle(lambda torch: _grad(torch, name))
    assert ours.tobytes() == theirs.tobytes(), (ours, theirs)


def test_selected_gradients_are_positive_zero_and_finite():
    for name in ("clamp", "clamp_min", "softshrink", "hardshrink", "zero_", "floor", "max_dim",
                 "min_all"):
        g = _grad(gradcli, name)
        outside = g == 0
        assert outside.any() and not np.signbit(g[outside]).any(), name
        assert not np.isnan(g).any(), name
    assert _grad(gradcli, "norm_rows").tolist() == [1.0, float("inf"), 2.0]  # g * (+-1)


def test_prod_of_a_zero_dim_tensor_passes_the_gradient_itself():
    """PyTorch's prod_backward returns grad for a 0-d input: with create_graph the gradient of
    x.prod() is the implicit ones, without a graph (a second backward through it fails)."""
    x = gradcli.tensor(-1.0113, requires_grad=True)
    for h in (gradcli.autograd.grad(x.prod(), x, create_graph=True)[0],
              gradcli.autograd.grad(x.prod(0), x, create_graph=True)[0]):
        assert repr(h) == "tensor(1.)" and h.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        gradcli.autograd.grad(x.prod(), x, create_graph=True)[0].sum().backward()


VAR_CASES = {
    "scalar": (lambda T, x: x.var(), 1.5),
    "correction_equals_n": (lambda T, x: x.var(correction=2), [1.5, 2.5]),
    "rows": (lambda T, x: x.var(1).sum(), [[1.5, 2.5], [0.3, -1.0]]),
    "rows_dof_0": (lambda T, x: x.var(1, correction=2).sum(), [[1.5, 2.5], [0.3, -1.0]]),
    "std_scalar": (lambda T, x: x.std(), 1.5),
}


@pytest.mark.parametrize("name", list(VAR_CASES))
def test_var_backward_matches_pytorch_where_dof_is_zero(name, oracle):
    """var_backward is (2 / dof) * grad * (self - mean), and over all elements with dof <= 0,
    grad times inf (nan where self is its mean): PyTorch's bits, infinities and nans."""
    f, value = VAR_CASES[name]

    def grad(T):
        x = T.tensor(value, dtype=T.float64, requires_grad=True)
        f(T, x).backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(grad(gradcli), oracle(grad))
