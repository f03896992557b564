"""Formulas evaluated in PyTorch's order, so that float32 values and gradients are PyTorch's to
the bit: the divisor's gradient of a division (-grad * ((self / other) / other)) and its
forward derivative ((self_t - other_t * result) / other), addcdiv's
gradients (value / tensor2 a true division), and the kernels PyTorch compiles with fused
multiply-adds (tanh's backward 1 - out^2, addcmul, lerp: gradcli.ops.numerics.fma)."""

import hashlib

import numpy as np
import pytest

import gradcli
from gradcli.ops.numerics import fma

N = 4000
CASES = {
    "div": (lambda T, a, b, c: a / b, 2),
    "div of a broadcast": (lambda T, a, b, c: a.reshape(40, 100) / b[:100], 2),
    "tanh": (lambda T, a, b, c: T.tanh(a), 1),
    "addcdiv": (lambda T, a, b, c: T.addcdiv(a, b, c, value=2.5), 3),
    "addcdiv, value -1": (lambda T, a, b, c: T.addcdiv(a, b, c, value=-1), 3),
    "addcmul": (lambda T, a, b, c: T.addcmul(a, b, c, value=0.3), 3),
    "lerp, tensor weight": (lambda T, a, b, c: T.lerp(a, b, c - 1), 3),
    "lerp, number weight": (lambda T, a, b, c: T.lerp(a, b, 0.7), 2),
    "lerp, small number weight": (lambda T, a, b, c: T.lerp(a, b, 0.3), 2),
}


def _digest(array):
    """The bits of a result (the golden files keep digests of PyTorch's 4,000-element ones)."""
    return hashlib.sha256(array.tobytes()).hexdigest()


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_have_pytorch_s_bits(name, oracle):
    fn, n = CASES[name]
    rng = np.random.default_rng(7)
    data = [rng.uniform(0.5, 2.0, N).astype(np.float32) for _ in range(3)]
    upstream = rng.standard_normal(N).astype(np.float32)

    def bits(T):
        xs = [T.tensor(d, requires_grad=i < n) for i, d in enumerate(data)]
        y = fn(T, *xs)
        y.backward(T.tensor(upstream[:y.numel()].reshape(tuple(y.shape))))
        return [_digest(y.detach().numpy())] + [_digest(x.grad.numpy()) for x in xs[:n]]
    results = [bits(gradcli), oracle(bits)]
    for k, (ours, theirs) in enumerate(zip(*results, strict=True)):
        assert ours == theirs, ("value" if k == 0 else f"gradient {k - 1}")


def test_fma_rounds_once_in_float32():
    a = np.float32(1 + 2 ** -12)
    # a * a = 1 + 2^-11 + 2^-24: the plain float32 product drops 2^-24, the fused sum keeps it
    assert fma(a, a, np.float32(-1)) == np.float32(2 ** -11 + 2 ** -24)
    assert a * a - np.float32(1) == np.float32(2 ** -11)
    assert fma(np.float64(3), np.float64(2), 1.0) == 7.0  # float64: computed plainly


@pytest.mark.parametrize("tangents", ["self", "other", "both"])
def test_forward_derivative_of_division_has_pytorch_s_bits(tangents, oracle):
    rng = np.random.default_rng(8)
    a, b, ta, tb = (rng.uniform(0.5, 2.0, N).astype(np.float32) for _ in range(4))
    tb[:5] = 0  # a zero tangent: PyTorch's result is -0. where self has none

    def bits(T):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(T.tensor(a), T.tensor(ta)) if tangents != "other" else T.tensor(a)
            y = fw.make_dual(T.tensor(b), T.tensor(tb)) if tangents != "self" else T.tensor(b)
            return _digest(fw.unpack_dual(x / y).tangent.numpy())
    assert bits(gradcli) == oracle(bits)
