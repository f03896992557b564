"""float16 `F.interpolate` (issue 20): linear, bilinear, trilinear and bicubic results and
gradients PyTorch 2.13's to the bit.  Its CPU kernels compute a float16 input in float: the
generic kernel keeps each tap's weight as float16 (lambda0 as 1 - lambda1 of the stored
lambda1) and rounds each output once; the channels-last bilinear kernel (outputs of H + W <=
128) keeps float weights and sums the four corners in its own orders, 16 channels a vector;
the backward kernels add in a float buffer, rounded once.  (PyTorch's answers in
golden/test_interpolate_half_compat26.json.)"""

import numpy as np
import pytest

import gradcli

CASES = [  # mode, input shape, interpolate's keywords
    ("linear", (2, 3, 9), dict(size=17)), ("linear", (2, 3, 9), dict(scale_factor=0.4)),
    ("linear", (1, 2, 5), dict(size=11, align_corners=True)),
    ("bilinear", (1, 1, 3, 4), dict(size=(70, 60))),
    ("bilinear", (1, 1, 4, 3), dict(size=(64, 66), align_corners=True)),
    ("bilinear", (2, 5, 1, 1), dict(size=(3, 4))),
    ("bilinear", (1, 37, 4, 5), dict(size=(9, 7))),
    ("bilinear", (1, 20, 4, 3), dict(size=(10, 5), align_corners=True)),
    ("bilinear", (1, 2, 5, 6), dict(scale_factor=2.5)),
    ("bicubic", (1, 2, 5, 6), dict(scale_factor=1.7)),
    ("bicubic", (1, 3, 4, 4), dict(size=(9, 5), align_corners=True)),
    ("trilinear", (1, 2, 3, 4, 5), dict(scale_factor=(1.5, 2, 0.7))),
    ("trilinear", (1, 2, 3, 2, 4), dict(size=(5, 4, 6), align_corners=True)),
    ("nearest", (1, 3, 4, 5), dict(size=(7, 9))),
]


def _interpolated(lib, mode, shape, keywords):
    """The float16 result and the input's gradient for a fixed upstream gradient, as lists."""
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) * 5).astype(np.float16)
    x = lib.from_numpy(a).requires_grad_()
    y = lib.nn.functional.interpolate(x, mode=mode, **keywords)
    g = rng.standard_normal(tuple(y.shape)).astype(np.float16)
    y.backward(lib.from_numpy(g))
    return [str(y.dtype), y.detach().tolist(), str(x.grad.dtype), x.grad.tolist()]


@pytest.mark.parametrize("mode, shape, keywords", CASES,
                         ids=[f"{m}-{'x'.join(map(str, s))}-{k}" for m, s, k in CASES])
def test_float16_interpolate_is_pytorchs_to_the_bit(mode, shape, keywords, oracle):
    expected = oracle(lambda torch: _interpolated(torch, mode, shape, keywords))
    assert _interpolated(gradcli, mode, shape, keywords) == expected
