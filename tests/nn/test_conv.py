"""Convolutions and pooling beyond the oracle: the element limit holds for the im2col buffers
too, the table lists the new names, completion offers them, and the derivatives are the
table's (gradchecked in tests/ops/test_op_gradcheck.py and test_jvp.py with every op)."""

import io

import numpy as np
import pytest

import gradcli
from gradcli.analysis.optable import op_rows
from gradcli.cli.completer import complete
from gradcli.cli.meta import COMMANDS
from gradcli.engine.tensor import ElementLimit
from gradcli.lang.session import Session

F = gradcli.nn.functional


@pytest.fixture
def limit():
    saved = ElementLimit.limit

    def set_to(n):
        gradcli.set_element_limit(n)
    yield set_to
    gradcli.set_element_limit(saved)


@pytest.mark.parametrize("program, buffer", [
    # (an input and kernel under the limit, whose im2col buffer is not)
    ("F.conv2d(gradcli.ones(1, 1, 30, 30), gradcli.ones(1, 1, 10, 10))", 100 * 21 * 21),
    ("F.conv_transpose2d(gradcli.ones(1, 1, 20, 20), gradcli.ones(1, 1, 10, 10))",
     29 * 29),
    ("F.max_pool2d(gradcli.ones(1, 1, 40, 40), 20, stride=1)", 400 * 21 * 21),
    ("F.avg_pool2d(gradcli.ones(1, 1, 40, 40), 20, stride=1)", 400 * 21 * 21),
])
def test_im2col_buffers_are_held_to_the_element_limit(program, buffer, limit):
    limit(2000)
    with pytest.raises(RuntimeError, match=r"tensor of (\d+) elements exceeds the limit of "
                                           "2000 elements") as caught:
        eval(program, {"F": F, "gradcli": gradcli})
    assert int(caught.value.args[0].split()[2]) >= min(buffer, 2001)


def test_the_gradient_is_held_to_the_limit_too(limit):
    x = gradcli.ones(1, 1, 30, 30, requires_grad=True)
    y = F.conv2d(x, gradcli.ones(1, 1, 10, 10))  # 44,100-element im2col
    limit(20_000)
    with pytest.raises(RuntimeError, match="exceeds the limit of 20000 elements"):
        y.sum().backward()


NAMES = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "convolution",
         "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
         "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "max_pool3d",
         "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "nn.functional.unfold",
         "nn.functional.fold", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
         "lp_pool2d", "lp_pool3d", "pixel_shuffle",
         "pixel_unshuffle", "interpolate"]


def test_gradcli_ops_lists_the_new_names():
    rows = {r["name"]: r for r in op_rows()}
    for name in NAMES:
        assert name in rows, name
    assert rows["conv2d"]["grad_fn"] == "ConvolutionBackward0"
    assert rows["max_pool2d"]["grad_fn"] == "MaxPool2DWithIndicesBackward0"
    assert rows["avg_pool2d"]["grad_fn"] == "AvgPool2DBackward0"
    assert rows["adaptive_avg_pool2d"]["grad_fn"] == "AdaptiveAvgPool2DBackward0"
    assert rows["max_pool3d"]["grad_fn"] == "MaxPool3DWithIndicesBackward0"
    assert rows["avg_pool3d"]["grad_fn"] == "AvgPool3DBackward0"
    assert rows["adaptive_avg_pool3d"]["grad_fn"] == "AdaptiveAvgPool3DBackward0"
    assert rows["adaptive_max_pool3d"]["grad_fn"] == "AdaptiveMaxPool3DBackward0"
    assert rows["nn.functional.unfold"]["grad_fn"] == "Im2ColBackward0"
    assert rows["nn.functional.fold"]["grad_fn"] == "Col2ImBackward0"
    assert rows["unfold"]["grad_fn"] == "UnfoldBackward0"  # (Tensor.unfold keeps its name)
    assert rows["max_unpool2d"]["grad_fn"] == "MaxUnpool2DBackward0"
    assert rows["max_unpool3d"]["grad_fn"] == "MaxUnpool3DBackward0"
    assert "UpsampleBilinear2DBackward0" in rows["interpolate"]["grad_fn"]
    assert "UpsampleBicubic2DBackward0" in rows["interpolate"]["grad_fn"]
    assert "UpsampleNearestExact3DBackward0" in rows["interpolate"]["grad_fn"]


def test_torch_namespace_has_pytorchs_names_only():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "convolution", "max_pool1d", "max_pool2d", "avg_pool1d",
                 "adaptive_avg_pool1d", "max_pool3d"):
        assert callable(getattr(gradcli, name)), name
    for name in ("avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "avg_pool3d",
                 "adaptive_avg_pool3d", "adaptive_max_pool3d"):  # (F's only)
        assert not hasattr(gradcli, name)
        assert callable(getattr(F, name))


@pytest.fixture
def names():
    session = Session(out=io.StringIO())
    session.run("import torch\nimport torch.nn.functional as F\nfrom torch import nn\n")
    return session.namespace


@pytest.mark.parametrize("text, expected", [
    ("torch.conv", ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d"]),
    ("F.max_po", ["max_pool1d", "max_pool2d", "max_pool3d"]),
    ("F.avg_po", ["avg_pool1d", "avg_pool2d", "avg_pool3d"]),
    ("F.adaptive_a", ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"]),
    ("F.adaptive_m", ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]),
    ("nn.Conv", ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d"]),
    ("torch.nn.MaxP", ["MaxPool1d", "MaxPool2d", "MaxPool3d"]),
    ("nn.AvgP", ["AvgPool1d", "AvgPool2d", "AvgPool3d"]),
    ("nn.AdaptiveA", ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]),
    ("F.unf", ["unfold"]), ("F.fo", ["fold"]), ("nn.Unf", ["Unfold"]), ("nn.Fo", ["Fold"]),
    ("F.max_un", ["max_unpool1d", "max_unpool2d", "max_unpool3d"]),
    ("nn.MaxU", ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]),
    ("F.lp_", ["lp_pool1d", "lp_pool2d", "lp_pool3d"]), ("nn.LPP", ["LPPool1d", "LPPool2d", "LPPool3d"]),
    ("torch.pixel_", ["pixel_shuffle", "pixel_unshuffle"]),
    ("nn.PixelU", ["PixelUnshuffle"]), ("F.interp", ["interpolate"]),
    ("nn.Upsampl", ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]),
    ("F.conv2d(x, w, pad", ["padding="]),
    ("nn.Conv2d(1, 2, 3, ker", ["kernel_size="]),
])
def test_completion_offers_them(names, text, expected):
    found = [c.text for c in complete(text, None, names, COMMANDS)]
    assert [t for t in found if t in expected] == expected, found


def test_a_convolution_is_im2col_and_a_product():
    """conv2d's values against a direct sum over the kernel (float64, to rounding)."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((6, 2, 3, 2))
    y = F.conv2d(gradcli.tensor(x), gradcli.tensor(w), stride=(2, 1), padding=1,
                 dilation=(1, 2), groups=2).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros(y.shape)
    for o in range(6):
        g = o // 3
        for i in range(y.shape[2]):
            for j in range(y.shape[3]):
                patch = xp[:, 2 * g:2 * g + 2, 2 * i:2 * i + 3, j:j + 3:2]
                expected[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(y, expected, rtol=1e-13, atol=1e-13)


def test_an_unknown_padding_mode_is_pytorchs_error():
    """PyTorch prints its set of modes, whose order changes from one process to the next (the
    strings' hashes): gradcli prints one order of it."""
    with pytest.raises(ValueError) as caught:
        gradcli.nn.Conv2d(1, 1, 1, padding_mode="foo")
    assert caught.value.args[0] == ("padding_mode must be one of {'zeros', 'reflect', "
                                    "'replicate', 'circular'}, but got padding_mode='foo'")


# each builds 10 ** 6 or more elements from an input under the limit of 10 ** 5 (an empty batch:
# no buffer of the input's size is checked)
BIG_BUFFERS = {
    "max_pool3d window index": "torch.nn.functional.max_pool3d(torch.zeros(0, 1, 1, 1, 1), "
                               "(1, 1001, 1001), stride=1, padding=(0, 500, 500))",
    "max_pool3d im2col": "torch.nn.functional.max_pool3d(torch.zeros(1, 1, 2, 40, 40), "
                         "(2, 20, 20), stride=1)",
    "avg_pool3d divisors": "torch.nn.functional.avg_pool3d(torch.zeros(0, 1, 1, 1, 10 ** 7), 1, "
                           "divisor_override=3)",
    "adaptive_avg_pool3d": "torch.nn.functional.adaptive_avg_pool3d(torch.zeros(0, 1, 1, 1, 1), "
                           "(3 * 10 ** 6, 1, 1))",
    "adaptive_max_pool3d": "torch.nn.functional.adaptive_max_pool3d(torch.zeros(1, 1, 1, 1, 1), "
                           "(1, 3 * 10 ** 6, 1))",
    "unfold columns": "torch.nn.functional.unfold(torch.zeros(1, 1, 40, 40), 20)",
    "fold output": "torch.nn.functional.fold(torch.zeros(1, 1, 1), (1000, 1000), 1, "
                   "stride=1000)",
    "max_unpool2d output": "torch.nn.functional.max_unpool2d(torch.zeros(1, 1, 1, 1), "
                           "torch.zeros(1, 1, 1, 1, dtype=torch.long), 1000, stride=1000)",
    "max_unpool3d output": "torch.nn.functional.max_unpool3d(torch.zeros(1, 1, 1, 1, 1), "
                           "torch.zeros(1, 1, 1, 1, 1, dtype=torch.long), 200, stride=200)",
    "interpolate nearest": "torch.nn.functional.interpolate(torch.zeros(1, 1, 1, 1), "
                           "size=(2000, 2000))",
    "interpolate bilinear": "torch.nn.functional.interpolate(torch.zeros(1, 1, 2, 2), "
                            "scale_factor=1000, mode='bilinear')",
    "adaptive_avg_pool3d windows": "torch.nn.functional.adaptive_avg_pool3d(torch.zeros(1, 1, 2, "
                                   "300, 300), (1, 2, 2))",
}


@pytest.mark.usefixtures("fresh_engine")
@pytest.mark.parametrize("source", BIG_BUFFERS.values(), ids=BIG_BUFFERS.keys())
def test_pooling_and_fold_buffers_are_refused_before_they_are_made(source):
    from processes import assert_refused_before_made
    assert_refused_before_made(source)


@pytest.mark.parametrize("program", [
    "F.interpolate(x, scale_factor=(1, 2, 2), mode='trilinear')",
    "F.interpolate(x, scale_factor=(1, 2, 2))",
    "F.max_pool3d(x, (2, 10, 10), stride=1)", "F.avg_pool3d(x, (2, 10, 10), stride=1)",
    "F.adaptive_max_pool3d(x, (2, 15, 15))", "F.adaptive_avg_pool3d(x, (2, 25, 25))"])
def test_3d_pooling_and_upsampling_gradients_are_held_to_the_limit(program, limit):
    """The backward (its im2col-sized buffers, or windows' index) and the double backward
    (grad_output's gathered windows) check the limit as the forward does."""
    x = gradcli.ones(1, 1, 2, 30, 30, requires_grad=True)
    y = eval(program, {"F": F, "x": x})
    g, = gradcli.autograd.grad(y.sum(), x, create_graph=True)
    limit(1000)
    with pytest.raises(RuntimeError, match="exceeds the limit of 1000 elements"):
        gradcli.autograd.grad(y.sum(), x, retain_graph=True)
    with pytest.raises(RuntimeError, match="exceeds the limit of 1000 elements"):
        gradcli.autograd.grad((g * g).sum(), x)
