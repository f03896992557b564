"""Pooling and interpolation kernels against PyTorch, to the bit: which index max pooling picks
among NaNs, ties and padding (gradcli.ops.pooling, .adaptive_pooling), and the order of
operations of bicubic, nearest-exact and antialiased interpolation, values and gradients in
float32 and float64 (gradcli.ops.upsample).  (Moved from tests/nn/test_conv_oracle.py, with
their golden answers.)"""

import numpy as np
import pytest

import gradcli


NAN_CASES = {
    "nan_wins": "F.max_pool2d(torch.tensor([[[[1., nan, 3., nan], [nan, 2., 9., 0.], "
                "[-inf, -inf, 5., 5.], [-inf, -inf, 5., 4.]]]]), 2, return_indices=True)",
    "padding_never_wins": "F.max_pool2d(torch.full((1, 1, 3, 3), -inf), 2, 1, 1, "
                          "return_indices=True)",
    "ties_first": "F.max_pool2d(torch.ones(1, 2, 4, 5), 3, 1, 1, return_indices=True)",
    "adaptive": "F.adaptive_max_pool2d(torch.tensor([[[[1., nan, 3., nan], [nan, 2., 9., 0.], "
                "[-inf, -inf, 5., 5.], [-inf, -inf, 5., 4.]]]]), (2, 3), return_indices=True)",
    "float32": "F.max_pool2d(torch.tensor([[[[1., 2.5, 2.5, 0.], [2.5, -1., 0., 0.]]]]), "
               "(2, 2), (1, 1), return_indices=True)",
}


def _pooled(lib, program):
    values, indices = eval(program, {"torch": lib, "F": lib.nn.functional,
                                     "nan": float("nan"), "inf": float("inf")})
    return [str(values.dtype), np.asarray(values.tolist()), indices.tolist()]


@pytest.mark.parametrize("name", sorted(NAN_CASES))
def test_max_pool_picks_pytorchs_index(name, oracle):
    ours = _pooled(gradcli, NAN_CASES[name])
    theirs = oracle(lambda torch: _pooled(torch, NAN_CASES[name]))
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    np.testing.assert_array_equal(ours[1], theirs[1])


BIT_FOR_BIT = [
    # (mode, input shape, size or scale factors, align_corners): float32 and float64
    ("bicubic", (2, 3, 5, 4), {"size": (9, 3)}, False),
    ("bicubic", (1, 2, 4, 6), {"scale_factor": (1.7, 0.6)}, True),
    ("bicubic", (1, 2, 3, 3), {"scale_factor": 2.5}, False),
    ("bicubic", (1, 1, 8, 9), {"size": (4, 13)}, True),
    ("nearest-exact", (2, 2, 7), {"scale_factor": 1.3}, None),
    ("bilinear", (2, 3, 8, 6), {"size": (3, 4), "antialias": True}, False),
    ("bilinear", (1, 2, 5, 4), {"scale_factor": (2.3, 0.4), "antialias": True}, True),
    ("bicubic", (1, 2, 9, 7), {"size": (4, 13), "antialias": True}, False),
    ("bicubic", (2, 1, 6, 11), {"scale_factor": (0.35, 0.6), "antialias": True}, True),
    ("bicubic", (1, 4, 5, 4), {"scale_factor": (1.05, 1.06)}, False),
    ("nearest-exact", (1, 3, 5, 4), {"size": (3, 11)}, None),
    ("nearest-exact", (1, 1, 3, 4, 5), {"scale_factor": (1.5, 0.7, 2.2)}, None),
]


def run_bit_for_bit(lib, case, dtype):
    mode, shape, sizes, align = BIT_FOR_BIT[case]
    rng = np.random.default_rng(case)
    x = lib.tensor(rng.standard_normal(shape).tolist(), dtype=getattr(lib, dtype),
                   requires_grad=True)
    y = lib.nn.functional.interpolate(x, mode=mode, align_corners=align, **sizes)
    g = lib.tensor(rng.standard_normal(tuple(y.shape)).tolist(), dtype=getattr(lib, dtype))
    (grad,) = lib.autograd.grad(y, x, g)
    return [np.asarray(y.tolist(), dtype), np.asarray(grad.tolist(), dtype)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(BIT_FOR_BIT)))
def test_bicubic_nearest_exact_and_antialias_are_pytorchs_to_the_bit(case, dtype, oracle):
    """The kernels' order of operations (bicubic: the weights' and sums' fused multiply-adds
    forward, none backward; antialias: its passes' grouped sums), so the values and gradients
    are PyTorch's bit for bit."""
    ours = run_bit_for_bit(gradcli, case, dtype)
    theirs = oracle(lambda torch: run_bit_for_bit(torch, case, dtype))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, np.asarray(b, dtype))
