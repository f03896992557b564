"""gradcli.engine.printing reproduces PyTorch's tensor repr byte for byte.

The expected strings were printed by PyTorch 2.13; the oracle tests at the end re-check them,
and many random arrays, against a live torch when it is installed.
"""

import pathlib
import re

import numpy as np
import pytest

from gradcli.engine.printing import (
    PRINT_OPTS,
    format_size,
    format_tensor,
    get_printoptions,
    set_printoptions,
)

nan = float("nan")
inf = float("inf")

# torch's forward-AD import warns about torch.jit.script; nothing of ours
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

TRANSCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "transcripts"  # (copies of ../shared's)


@pytest.fixture(autouse=True)
def default_printoptions():
    yield
    set_printoptions(profile="default")


def fmt(data, dtype_name=None, default_dtype_name="float32", **kwargs):
    data = np.asarray(data)
    return format_tensor(data, dtype_name=dtype_name or data.dtype.name,
                         default_dtype_name=default_dtype_name, **kwargs)


# --- 1. every tensor repr in the shared transcripts --------------------------------------------

f32 = np.float32
TRANSCRIPT_REPRS = [
    (f32(3), {"requires_grad": True}, "tensor(3., requires_grad=True)"),
    (f32(1), {}, "tensor(1.)"),
    (f32(9), {}, "tensor(9.)"),
    (f32(81 + 9 + np.exp(f32(9))), {}, "tensor(8193.0840)"),
    (f32(81 + 9 + np.exp(f32(9)) + 2), {}, "tensor(8195.0840)"),
    (f32(8193.084), {"requires_grad": True}, "tensor(8193.0840, requires_grad=True)"),
    (f32(8195.084), {"grad_fn_name": "AddBackward0"}, "tensor(8195.0840, grad_fn=<AddBackward0>)"),
    (f32(2), {}, "tensor(2.)"),
    (f32(0), {}, "tensor(0.)"),
    (f32(9), {"grad_fn_name": "PowBackward0"}, "tensor(9., grad_fn=<PowBackward0>)"),
    (f32(6), {}, "tensor(6.)"),
    (f32(4), {}, "tensor(4.)"),
    (f32(28), {}, "tensor(28.)"),
    (f32(14), {}, "tensor(14.)"),
    (f32(7), {}, "tensor(7.)"),
    (f32([4]), {}, "tensor([4.])"),
    (f32([1]), {}, "tensor([1.])"),
    (f32([5]), {"grad_fn_name": "AddBackward0"}, "tensor([5.], grad_fn=<AddBackward0>)"),
    (f32([25]), {"grad_fn_name": "PowBackward0"}, "tensor([25.], grad_fn=<PowBackward0>)"),
    (f32([10]), {}, "tensor([10.])"),
    (f32([8]), {}, "tensor([8.])"),
    (f32([0]), {}, "tensor([0.])"),
    (f32([6]), {}, "tensor([6.])"),
    (f32([12]), {}, "tensor([12.])"),
    (f32([12]), {"grad_fn_name": "MulBackward0"}, "tensor([12.], grad_fn=<MulBackward0>)"),
    (f32([9]), {"grad_fn_name": "SquareBackward"}, "tensor([9.], grad_fn=<SquareBackward>)"),
    (f32([2.5, 2.5]), {}, "tensor([2.5000, 2.5000])"),
    (f32(5.25), {"grad_fn_name": "SumBackward0"}, "tensor(5.2500, grad_fn=<SumBackward0>)"),
    (np.tanh(f32([0.25, 1, 4])).sum(), {"grad_fn_name": "SumBackward0"},
     "tensor(2.0058, grad_fn=<SumBackward0>)"),
    (f32([1, -2, 4]), {}, "tensor([ 1., -2.,  4.])"),
    (f32([0.94, -0.8399, 0.0054]), {}, "tensor([ 0.9400, -0.8399,  0.0054])"),
    (f32([2, 4, 6]), {}, "tensor([2., 4., 6.])"),
    (f32([4, 8, 12]), {}, "tensor([ 4.,  8., 12.])"),
    (f32(4.5403), {"grad_fn_name": "AddBackward0"}, "tensor(4.5403, grad_fn=<AddBackward0>)"),
    (f32(11.1585), {"grad_fn_name": "AddBackward0"}, "tensor(11.1585, grad_fn=<AddBackward0>)"),
    (f32(23.4597), {}, "tensor(23.4597)"),
    (f32([-6, 1, 8]), {}, "tensor([-6.,  1.,  8.])"),
    (f32([-1, 1, 1]), {}, "tensor([-1.,  1.,  1.])"),
    (f32([2, 4]), {"grad_fn_name": "MulBackward0"}, "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    (f32([[0.7207]]), {"requires_grad": True}, "tensor([[0.7207]], requires_grad=True)"),
    (f32([[0.7207]]) * 2, {"grad_fn_name": "MulBackward0"}, "tensor([[1.4414]], grad_fn=<MulBackward0>)"),
    ((f32([[0.7207]]) * 2) ** 3, {"grad_fn_name": "PowBackward0"},
     "tensor([[2.9947]], grad_fn=<PowBackward0>)"),
    (24 * f32([[0.7207]]) ** 2, {}, "tensor([[12.4658]])"),
    (f32([[0]]), {}, "tensor([[0.]])"),
    (f32([[1.2466]]), {}, "tensor([[1.2466]])"),
    (f32([[6.2329]]), {}, "tensor([[6.2329]])"),
    (24 * f32([[2.5212, 1.2730], [0.0366, 0.0750]]) ** 2, {},
     "tensor([[1.5255e+02, 3.8893e+01],\n        [3.2149e-02, 1.3500e-01]])"),
    (f32([[0, 0], [0, 0]]), {}, "tensor([[0., 0.],\n        [0., 0.]])"),
    (f32([[0, 38.8927], [0, 0.135]]), {}, "tensor([[ 0.0000, 38.8927],\n        [ 0.0000,  0.1350]])"),
    (f32([[152.5548, 38.8927], [0, 0]]), {},
     "tensor([[152.5548,  38.8927],\n        [  0.0000,   0.0000]])"),
    (f32(5.6431), {"grad_fn_name": "MeanBackward0"}, "tensor(5.6431, grad_fn=<MeanBackward0>)"),
    (f32([[20.5972, 0.2603], [14.0381, 0.5901]]), {},
     "tensor([[20.5972,  0.2603],\n        [14.0381,  0.5901]])"),
    (f32(-6.1403), {"grad_fn_name": "MeanBackward0"}, "tensor(-6.1403, grad_fn=<MeanBackward0>)"),
    (f32([[3.3319, 14.8403], [0.1738, 3.2626]]), {},
     "tensor([[ 3.3319, 14.8403],\n        [ 0.1738,  3.2626]])"),
    (np.array([1.0, 2.0]), {"requires_grad": True},
     "tensor([1., 2.], dtype=torch.float64, requires_grad=True)"),
    (f32(1), {"requires_grad": True}, "tensor(1., requires_grad=True)"),
    (f32([5, 2, 56]), {"grad_fn_name": "MulBackward0"}, "tensor([ 5.,  2., 56.], grad_fn=<MulBackward0>)"),
    (f32([5, 1, 7]), {}, "tensor([5., 1., 7.])"),
    (f32([1, 2, 8]), {}, "tensor([1., 2., 8.])"),
    (f32([2, 2]), {}, "tensor([2., 2.])"),
    (f32([3, 3]), {}, "tensor([3., 3.])"),
    (f32([4, 4]), {}, "tensor([4., 4.])"),
    (f32([2, 2, 2]), {}, "tensor([2., 2., 2.])"),
    (f32([5, 0, 3.5]), {}, "tensor([5.0000, 0.0000, 3.5000])"),
    (f32([1, 0, 4]), {}, "tensor([1., 0., 4.])"),
    (f32([3, 0.1677]), {}, "tensor([3.0000, 0.1677])"),
    (f32([[2, 1], [2, 0], [0, np.cos(2)]]), {},
     "tensor([[ 2.0000,  1.0000],\n        [ 2.0000,  0.0000],\n        [ 0.0000, -0.4161]])"),
    (f32(0), {"requires_grad": True}, "tensor(0., requires_grad=True)"),
    (f32([10, 10]), {}, "tensor([10., 10.])"),
    (f32([2, 4]), {}, "tensor([2., 4.])"),
    (np.array([[1, 2], [3, 4]], np.int32), {}, "tensor([[1, 2],\n        [3, 4]], dtype=torch.int32)"),
    (np.array([[1., 2.], [3., 4.]]), {"grad_fn_name": "ToCopyBackward0"},
     "tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64, grad_fn=<ToCopyBackward0>)"),
    (f32([1, 1]), {}, "tensor([1., 1.])"),
    (f32([2, 4]), {"grad_fn_name": "Invalid"}, "tensor([2., 4.], grad_fn=<Invalid>)"),
    (f32([6, 8]), {"grad_fn_name": "Invalid"}, "tensor([6., 8.], grad_fn=<Invalid>)"),
    (f32([8]), {"grad_fn_name": "Invalid"}, "tensor([8.], grad_fn=<Invalid>)"),
    (f32([[2, 2], [2, 2]]), {}, "tensor([[2., 2.],\n        [2., 2.]])"),
    (f32([[2, 4], [6, 8]]), {"grad_fn_name": "MulBackward0"},
     "tensor([[2., 4.],\n        [6., 8.]], grad_fn=<MulBackward0>)"),
]
TRANSCRIPT_SIZES = [((2, 2), "torch.Size([2, 2])"), ((), "torch.Size([])"),
                    ((2,), "torch.Size([2])"), ((3,), "torch.Size([3])"),
                    ((1, 2), "torch.Size([1, 2])"), ((3, 4), "torch.Size([3, 4])"),
                    ((2, 12), "torch.Size([2, 12])"), ((2, 3, 4), "torch.Size([2, 3, 4])"),
                    ((4, 3, 2), "torch.Size([4, 3, 2])"), ((1, 2, 3, 4), "torch.Size([1, 2, 3, 4])"),
                    ((2, 3, 4, 2, 3, 4), "torch.Size([2, 3, 4, 2, 3, 4])")]


@pytest.mark.parametrize("data, kwargs, expected", TRANSCRIPT_REPRS,
                         ids=[case[2] for case in TRANSCRIPT_REPRS])
def test_transcript_repr(data, kwargs, expected):
    assert fmt(data, **kwargs) == expected


@pytest.mark.parametrize("shape, expected", TRANSCRIPT_SIZES)
def test_transcript_size(shape, expected):
    assert format_size(shape) == expected


def _output_reprs(text):
    """Every `tensor(...)` / `torch.Size(...)` printed in a transcript, not typed at the prompt
    nor part of an error's or warning's message."""
    output = "\n".join(line for line in text.splitlines()
                       if not line.startswith((">>> ", "... "))
                       and not re.match(r"\w+(Error|Warning): ", line))
    found = []
    for start in range(len(output)):
        if not output.startswith(("tensor(", "torch.Size("), start):
            continue
        if start and (output[start - 1].isalnum() or output[start - 1] in "._"):
            continue
        depth = 0
        for end in range(start, len(output)):
            depth += {"(": 1, ")": -1}.get(output[end], 0)
            if output[end] == ")" and depth == 0:
                found.append(output[start:end + 1])
                break
    return found


def test_every_transcript_repr_is_covered():
    covered = {case[2] for case in TRANSCRIPT_REPRS} | {case[1] for case in TRANSCRIPT_SIZES}
    printed = {r for path in sorted(TRANSCRIPTS.glob("*.txt")) for r in _output_reprs(path.read_text())}
    assert printed
    assert printed <= covered, sorted(printed - covered)


# --- 2. a broad table of cases -------------------------------------------------------------------

# id, data, dtype_name, format_tensor kwargs, printoptions, default dtype, PyTorch's repr
CASES = [
    ('scalar-float', np.float32(3.5), 'float32', {}, {}, 'float32',
     'tensor(3.5000)'),
    ('scalar-int-valued', np.float32(-12.0), 'float32', {}, {}, 'float32',
     'tensor(-12.)'),
    ('scalar-int64', np.int64(5), 'int64', {}, {}, 'float32',
     'tensor(5)'),
    ('scalar-bool', np.bool_(True), 'bool', {}, {}, 'float32',
     'tensor(True)'),
    ('scalar-negative', np.float32(-0.5), 'float32', {}, {}, 'float32',
     'tensor(-0.5000)'),
    ('scalar-negative-zero', np.float32(-0.0), 'float32', {}, {}, 'float32',
     'tensor(-0.)'),
    ('scalar-nan', np.float32(nan), 'float32', {}, {}, 'float32',
     'tensor(nan)'),
    ('scalar-tiny', np.float32(1e-20), 'float32', {}, {}, 'float32',
     'tensor(1.0000e-20)'),
    ('scalar-huge', np.float32(1e20), 'float32', {}, {}, 'float32',
     'tensor(1.0000e+20)'),
    ('scalar-float64', np.float64(0.1), 'float64', {}, {}, 'float32',
     'tensor(0.1000, dtype=torch.float64)'),
    ('ints', np.array([1, -20, 300]), 'int64', {}, {}, 'float32',
     'tensor([  1, -20, 300])'),
    ('int32', np.array([[1, 2], [-3, 4]], np.int32), 'int32', {}, {}, 'float32',
     'tensor([[ 1,  2],\n        [-3,  4]], dtype=torch.int32)'),
    ('uint8', np.array([0, 255, 7], np.uint8), 'uint8', {}, {}, 'float32',
     'tensor([  0, 255,   7], dtype=torch.uint8)'),
    ('int8', np.array([-128, 127], np.int8), 'int8', {}, {}, 'float32',
     'tensor([-128,  127], dtype=torch.int8)'),
    ('int16', np.array([-300, 3], np.int16), 'int16', {}, {}, 'float32',
     'tensor([-300,    3], dtype=torch.int16)'),
    ('int64-extremes', np.array([-2**63, 2**63 - 1]), 'int64', {}, {}, 'float32',
     'tensor([-9223372036854775808,  9223372036854775807])'),
    ('negatives', np.array([-1.25, 2.5, -3.75], np.float32), 'float32', {}, {}, 'float32',
     'tensor([-1.2500,  2.5000, -3.7500])'),
    ('sci-small', np.array([1e-5, 1.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([1.0000e-05, 1.0000e+00])'),
    ('sci-large', np.array([1e9, 1.5], np.float32), 'float32', {}, {}, 'float32',
     'tensor([1.0000e+09, 1.5000e+00])'),
    ('sci-ratio', np.array([0.5, 600.25], np.float32), 'float32', {}, {}, 'float32',
     'tensor([5.0000e-01, 6.0025e+02])'),
    ('no-sci-ratio-1000', np.array([0.5, 499.75], np.float32), 'float32', {}, {}, 'float32',
     'tensor([  0.5000, 499.7500])'),
    ('int-valued-ratio', np.array([1.0, 2000.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([1.0000e+00, 2.0000e+03])'),
    ('int-valued-1e8', np.array([1e8, 1e6], np.float64), 'float64', {}, {}, 'float32',
     'tensor([100000000.,   1000000.], dtype=torch.float64)'),
    ('int-valued-above-1e8', np.array([2e8, 1e6], np.float64), 'float64', {}, {}, 'float32',
     'tensor([2.0000e+08, 1.0000e+06], dtype=torch.float64)'),
    ('min-1e-4', np.array([1e-4, 0.05], np.float64), 'float64', {}, {}, 'float32',
     'tensor([0.0001, 0.0500], dtype=torch.float64)'),
    ('nan-inf', np.array([nan, inf, -inf], np.float32), 'float32', {}, {}, 'float32',
     'tensor([nan, inf, -inf])'),
    ('int-nan', np.array([1.0, nan, -inf, 20.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([ 1., nan, -inf, 20.])'),
    ('frac-inf', np.array([1.5, inf, -2.25], np.float32), 'float32', {}, {}, 'float32',
     'tensor([ 1.5000,     inf, -2.2500])'),
    ('sci-nan', np.array([1e-5, nan, -inf, 3.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([1.0000e-05,        nan,       -inf, 3.0000e+00])'),
    ('all-nan', np.array([nan, nan], np.float32), 'float32', {}, {}, 'float32',
     'tensor([nan, nan])'),
    ('zeros', np.zeros((2, 3), np.float32), 'float32', {}, {}, 'float32',
     'tensor([[0., 0., 0.],\n        [0., 0., 0.]])'),
    ('negative-zeros', np.array([0.0, -0.0, 1.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([0., -0., 1.])'),
    ('negative-zero-frac', np.array([-0.0, 1.5], np.float32), 'float32', {}, {}, 'float32',
     'tensor([-0.0000, 1.5000])'),
    ('rounds-up', np.array([0.99996, 9.99996], np.float32), 'float32', {}, {}, 'float32',
     'tensor([ 1.0000, 10.0000])'),
    ('float32-rounding', np.array([0.12345, 2.00585, 1/3], np.float32), 'float32', {}, {}, 'float32',
     'tensor([0.1235, 2.0059, 0.3333])'),
    ('1-d-single', np.array([7.0], np.float32), 'float32', {}, {}, 'float32',
     'tensor([7.])'),
    ('2-d', np.arange(6, dtype=np.float32).reshape(2, 3) / 4, 'float32', {}, {}, 'float32',
     'tensor([[0.0000, 0.2500, 0.5000],\n        [0.7500, 1.0000, 1.2500]])'),
    ('3-d', np.arange(-12, 12, dtype=np.float32).reshape(2, 3, 4) * 1.5, 'float32', {}, {}, 'float32',
     'tensor([[[-18.0000, -16.5000, -15.0000, -13.5000],\n         [-12.0000, -10.5000,  -9.0000,  -7.5000],\n         [ -6.0000,  -4.5000,  -3.0000,  -1.5000]],\n\n        [[  0.0000,   1.5000,   3.0000,   4.5000],\n         [  6.0000,   7.5000,   9.0000,  10.5000],\n         [ 12.0000,  13.5000,  15.0000,  16.5000]]])'),
    ('3-d-int', np.arange(24).reshape(2, 3, 4) - 5, 'int64', {}, {}, 'float32',
     'tensor([[[-5, -4, -3, -2],\n         [-1,  0,  1,  2],\n         [ 3,  4,  5,  6]],\n\n        [[ 7,  8,  9, 10],\n         [11, 12, 13, 14],\n         [15, 16, 17, 18]]])'),
    ('4-d', np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2), 'float32', {}, {}, 'float32',
     'tensor([[[[ 0.,  1.],\n          [ 2.,  3.]],\n\n         [[ 4.,  5.],\n          [ 6.,  7.]]],\n\n\n        [[[ 8.,  9.],\n          [10., 11.]],\n\n         [[12., 13.],\n          [14., 15.]]]])'),
    ('wrap-float', np.arange(30, dtype=np.float32) / 3, 'float32', {}, {}, 'float32',
     'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n        9.0000, 9.3333, 9.6667])'),
    ('wrap-int', np.arange(50) * 7, 'int64', {}, {}, 'float32',
     'tensor([  0,   7,  14,  21,  28,  35,  42,  49,  56,  63,  70,  77,  84,  91,\n         98, 105, 112, 119, 126, 133, 140, 147, 154, 161, 168, 175, 182, 189,\n        196, 203, 210, 217, 224, 231, 238, 245, 252, 259, 266, 273, 280, 287,\n        294, 301, 308, 315, 322, 329, 336, 343])'),
    ('wrap-2-d', np.linspace(-5, 5, 36, dtype=np.float32).reshape(2, 18), 'float32', {}, {}, 'float32',
     'tensor([[-5.0000, -4.7143, -4.4286, -4.1429, -3.8571, -3.5714, -3.2857, -3.0000,\n         -2.7143, -2.4286, -2.1429, -1.8571, -1.5714, -1.2857, -1.0000, -0.7143,\n         -0.4286, -0.1429],\n        [ 0.1429,  0.4286,  0.7143,  1.0000,  1.2857,  1.5714,  1.8571,  2.1429,\n          2.4286,  2.7143,  3.0000,  3.2857,  3.5714,  3.8571,  4.1429,  4.4286,\n          4.7143,  5.0000]])'),
    ('wrap-sci', np.geomspace(1e-6, 1e6, 12).astype(np.float32), 'float32', {}, {}, 'float32',
     'tensor([1.0000e-06, 1.2328e-05, 1.5199e-04, 1.8738e-03, 2.3101e-02, 2.8480e-01,\n        3.5112e+00, 4.3288e+01, 5.3367e+02, 6.5793e+03, 8.1113e+04, 1.0000e+06])'),
    ('summarise-1-d', np.arange(2000), 'int64', {}, {}, 'float32',
     'tensor([   0,    1,    2,  ..., 1997, 1998, 1999])'),
    ('summarise-1-d-float', np.arange(1001, dtype=np.float32) / 8, 'float32', {}, {}, 'float32',
     'tensor([  0.0000,   0.1250,   0.2500,  ..., 124.7500, 124.8750, 125.0000])'),
    ('summarise-2-d', np.arange(2500, dtype=np.float32).reshape(50, 50) - 1000.5, 'float32', {}, {}, 'float32',
     'tensor([[-1000.5000,  -999.5000,  -998.5000,  ...,  -953.5000,  -952.5000,\n          -951.5000],\n        [ -950.5000,  -949.5000,  -948.5000,  ...,  -903.5000,  -902.5000,\n          -901.5000],\n        [ -900.5000,  -899.5000,  -898.5000,  ...,  -853.5000,  -852.5000,\n          -851.5000],\n        ...,\n        [ 1349.5000,  1350.5000,  1351.5000,  ...,  1396.5000,  1397.5000,\n          1398.5000],\n        [ 1399.5000,  1400.5000,  1401.5000,  ...,  1446.5000,  1447.5000,\n          1448.5000],\n        [ 1449.5000,  1450.5000,  1451.5000,  ...,  1496.5000,  1497.5000,\n          1498.5000]])'),
    ('summarise-3-d', np.arange(1470).reshape(7, 7, 30), 'int64', {}, {}, 'float32',
     'tensor([[[   0,    1,    2,  ...,   27,   28,   29],\n         [  30,   31,   32,  ...,   57,   58,   59],\n         [  60,   61,   62,  ...,   87,   88,   89],\n         ...,\n         [ 120,  121,  122,  ...,  147,  148,  149],\n         [ 150,  151,  152,  ...,  177,  178,  179],\n         [ 180,  181,  182,  ...,  207,  208,  209]],\n\n        [[ 210,  211,  212,  ...,  237,  238,  239],\n         [ 240,  241,  242,  ...,  267,  268,  269],\n         [ 270,  271,  272,  ...,  297,  298,  299],\n         ...,\n         [ 330,  331,  332,  ...,  357,  358,  359],\n         [ 360,  361,  362,  ...,  387,  388,  389],\n         [ 390,  391,  392,  ...,  417,  418,  419]],\n\n        [[ 420,  421,  422,  ...,  447,  448,  449],\n         [ 450,  451,  452,  ...,  477,  478,  479],\n         [ 480,  481,  482,  ...,  507,  508,  509],\n         ...,\n         [ 540,  541,  542,  ...,  567,  568,  569],\n         [ 570,  571,  572,  ...,  597,  598,  599],\n         [ 600,  601,  602,  ...,  627,  628,  629]],\n\n        ...,\n\n        [[ 840,  841,  842,  ...,  867,  868,  869],\n         [ 870,  871,  872,  ...,  897,  898,  899],\n         [ 900,  901,  902,  ...,  927,  928,  929],\n         ...,\n         [ 960,  961,  962,  ...,  987,  988,  989],\n         [ 990,  991,  992,  ..., 1017, 1018, 1019],\n         [1020, 1021, 1022,  ..., 1047, 1048, 1049]],\n\n        [[1050, 1051, 1052,  ..., 1077, 1078, 1079],\n         [1080, 1081, 1082,  ..., 1107, 1108, 1109],\n         [1110, 1111, 1112,  ..., 1137, 1138, 1139],\n         ...,\n         [1170, 1171, 1172,  ..., 1197, 1198, 1199],\n         [1200, 1201, 1202,  ..., 1227, 1228, 1229],\n         [1230, 1231, 1232,  ..., 1257, 1258, 1259]],\n\n        [[1260, 1261, 1262,  ..., 1287, 1288, 1289],\n         [1290, 1291, 1292,  ..., 1317, 1318, 1319],\n         [1320, 1321, 1322,  ..., 1347, 1348, 1349],\n         ...,\n         [1380, 1381, 1382,  ..., 1407, 1408, 1409],\n         [1410, 1411, 1412,  ..., 1437, 1438, 1439],\n         [1440, 1441, 1442,  ..., 1467, 1468, 1469]]])'),
    ('summarise-formatter-sees-edges-only', np.concatenate([np.ones(3), np.full(1000, 1e-9), np.ones(3) * 2]).astype(np.float32), 'float32', {}, {}, 'float32',
     'tensor([1., 1., 1.,  ..., 2., 2., 2.])'),
    ('summarise-short-dim', np.arange(1200, dtype=np.float32).reshape(2, 600), 'float32', {}, {}, 'float32',
     'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 5.9700e+02, 5.9800e+02,\n         5.9900e+02],\n        [6.0000e+02, 6.0100e+02, 6.0200e+02,  ..., 1.1970e+03, 1.1980e+03,\n         1.1990e+03]])'),
    ('empty', np.zeros((0,), np.float32), 'float32', {}, {}, 'float32',
     'tensor([])'),
    ('empty-2-d', np.zeros((0, 3), np.float32), 'float32', {}, {}, 'float32',
     'tensor([], size=(0, 3))'),
    ('empty-3-d', np.zeros((2, 0, 3), np.float32), 'float32', {}, {}, 'float32',
     'tensor([], size=(2, 0, 3))'),
    ('empty-int64', np.zeros((0,), np.int64), 'int64', {}, {}, 'float32',
     'tensor([], dtype=torch.int64)'),
    ('empty-bool-2-d', np.zeros((0, 2), np.bool_), 'bool', {}, {}, 'float32',
     'tensor([], size=(0, 2), dtype=torch.bool)'),
    ('empty-float64', np.zeros((0,), np.float64), 'float64', {}, {}, 'float32',
     'tensor([], dtype=torch.float64)'),
    ('empty-requires-grad', np.zeros((0, 3), np.float32), 'float32', {'requires_grad': True}, {}, 'float32',
     'tensor([], size=(0, 3), requires_grad=True)'),
    ('bool', np.array([[True, False], [False, True]]), 'bool', {}, {}, 'float32',
     'tensor([[ True, False],\n        [False,  True]])'),
    ('float64', np.array([1.0, 2.5], np.float64), 'float64', {}, {}, 'float32',
     'tensor([1.0000, 2.5000], dtype=torch.float64)'),
    ('float64-requires-grad', np.array([1.0, 2.0], np.float64), 'float64', {'requires_grad': True}, {}, 'float32',
     'tensor([1., 2.], dtype=torch.float64, requires_grad=True)'),
    ('float16', np.array([0.1, 65504.0], np.float16), 'float16', {}, {}, 'float32',
     'tensor([9.9976e-02, 6.5504e+04], dtype=torch.float16)'),
    ('bfloat16', np.array([1.5, 0.1015625, -3.0], np.float32), 'bfloat16', {}, {}, 'float32',
     'tensor([ 1.5000,  0.1016, -3.0000], dtype=torch.bfloat16)'),
    ('complex64', np.array([1 + 2j, -0.5 - 0.25j, 3j], np.complex64), 'complex64', {}, {}, 'float32',
     'tensor([ 1.0000+2.0000j, -0.5000-0.2500j,  0.0000+3.0000j])'),
    ('complex64-int-valued', np.array([1 + 2j, -3 - 0j], np.complex64), 'complex64', {}, {}, 'float32',
     'tensor([ 1.+2.j, -3.+0.j])'),
    ('complex128', np.array([[1e-5 + 1j, 2 + 0j]], np.complex128), 'complex128', {}, {}, 'float32',
     'tensor([[1.0000e-05+1.j, 2.0000e+00+0.j]], dtype=torch.complex128)'),
    ('complex-scalar', np.complex64(2 - 1.5j), 'complex64', {}, {}, 'float32',
     'tensor(2.-1.5000j)'),
    ('default-float64-float64', np.array([1.0, 2.5], np.float64), 'float64', {}, {}, 'float64',
     'tensor([1.0000, 2.5000])'),
    ('default-float64-float32', np.array([1.0, 2.5], np.float32), 'float32', {}, {}, 'float64',
     'tensor([1.0000, 2.5000], dtype=torch.float32)'),
    ('default-float64-empty-float32', np.zeros((0,), np.float32), 'float32', {}, {}, 'float64',
     'tensor([], dtype=torch.float32)'),
    ('default-float64-complex128', np.array([1 + 1j], np.complex128), 'complex128', {}, {}, 'float64',
     'tensor([1.+1.j])'),
    ('default-float64-complex64', np.array([1 + 1j], np.complex64), 'complex64', {}, {}, 'float64',
     'tensor([1.+1.j], dtype=torch.complex64)'),
    ('requires-grad', np.array([1.0, 2.0], np.float32), 'float32', {'requires_grad': True}, {}, 'float32',
     'tensor([1., 2.], requires_grad=True)'),
    ('grad-fn', np.float32(9.0), 'float32', {'grad_fn_name': 'CloneBackward0'}, {}, 'float32',
     'tensor(9., grad_fn=<CloneBackward0>)'),
    ('suffix-after-short-last-line', np.arange(20, dtype=np.float32) * 1.5, 'float32', {'requires_grad': True}, {}, 'float32',
     'tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n        24.0000, 25.5000, 27.0000, 28.5000], requires_grad=True)'),
    ('suffix-wraps', np.arange(16, dtype=np.float32) * 1.5, 'float32', {'requires_grad': True}, {}, 'float32',
     'tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000],\n       requires_grad=True)'),
    ('suffix-fits', np.arange(10, dtype=np.float32) * 1.5, 'float32', {'requires_grad': True}, {}, 'float32',
     'tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n        12.0000, 13.5000], requires_grad=True)'),
    ('suffixes-wrap-2-d', np.arange(12, dtype=np.float64).reshape(2, 6) * 1e3 + 0.5, 'float64', {'grad_fn_name': 'CloneBackward0'}, {}, 'float32',
     'tensor([[5.0000e-01, 1.0005e+03, 2.0005e+03, 3.0005e+03, 4.0005e+03, 5.0005e+03],\n        [6.0005e+03, 7.0005e+03, 8.0005e+03, 9.0005e+03, 1.0000e+04, 1.1000e+04]],\n       dtype=torch.float64, grad_fn=<CloneBackward0>)'),
    ('second-suffix-wraps', np.arange(8, dtype=np.float64) + 0.25, 'float64', {'requires_grad': True}, {}, 'float32',
     'tensor([0.2500, 1.2500, 2.2500, 3.2500, 4.2500, 5.2500, 6.2500, 7.2500],\n       dtype=torch.float64, requires_grad=True)'),
    ('tangent', np.array([1.0, 2.0], np.float32), 'float32', {'tangent': np.array([0.5, -1.0], np.float32)}, {}, 'float32',
     'tensor([1., 2.], tangent=tensor([ 0.5000, -1.0000]))'),
    ('tangent-2-d', np.arange(6, dtype=np.float64).reshape(3, 2), 'float64', {'tangent': np.ones((3, 2)) / 3}, {}, 'float32',
     'tensor([[0., 1.],\n        [2., 3.],\n        [4., 5.]], dtype=torch.float64,\n       tangent=tensor([[0.3333, 0.3333],\n        [0.3333, 0.3333],\n        [0.3333, 0.3333]], dtype=torch.float64))'),
    ('precision-2', np.array([1.12345, -2.5], np.float32), 'float32', {}, {'precision': 2}, 'float32',
     'tensor([ 1.12, -2.50])'),
    ('precision-2-sci', np.array([1.12345e-7, 2.0], np.float32), 'float32', {}, {'precision': 2}, 'float32',
     'tensor([1.12e-07, 2.00e+00])'),
    ('sci-mode-false', np.array([1e-5, 1.0], np.float32), 'float32', {}, {'sci_mode': False}, 'float32',
     'tensor([0.0000, 1.0000])'),
    ('sci-mode-true', np.array([1.5, 2.0], np.float32), 'float32', {}, {'sci_mode': True}, 'float32',
     'tensor([1.5000e+00, 2.0000e+00])'),
    ('sci-mode-true-int-valued', np.array([1.0, 20.0], np.float32), 'float32', {}, {'sci_mode': True}, 'float32',
     'tensor([1.0000e+00, 2.0000e+01])'),
    ('sci-mode-true-zeros', np.zeros(3, np.float32), 'float32', {}, {'sci_mode': True}, 'float32',
     'tensor([0., 0., 0.])'),
    ('threshold-5', np.arange(10), 'int64', {}, {'threshold': 5}, 'float32',
     'tensor([0, 1, 2,  ..., 7, 8, 9])'),
    ('edgeitems-1', np.arange(64, dtype=np.float32).reshape(4, 4, 4), 'float32', {}, {'threshold': 10, 'edgeitems': 1}, 'float32',
     'tensor([[[ 0.,  ...,  3.],\n         ...,\n         [12.,  ..., 15.]],\n\n        ...,\n\n        [[48.,  ..., 51.],\n         ...,\n         [60.,  ..., 63.]]])'),
    ('edgeitems-0-1-d', np.arange(10, dtype=np.float32), 'float32', {}, {'threshold': 5, 'edgeitems': 0}, 'float32',
     'tensor([...], size=(10,))'),
    ('edgeitems-0-2-d', np.arange(20).reshape(4, 5), 'int64', {}, {'threshold': 5, 'edgeitems': 0}, 'float32',
     'tensor([...], size=(4, 5))'),
    ('edgeitems-0-small', np.arange(3), 'int64', {}, {'edgeitems': 0}, 'float32',
     'tensor([0, 1, 2], size=(3,))'),
    ('linewidth-40', np.arange(20, dtype=np.float32) / 7, 'float32', {'requires_grad': True}, {'linewidth': 40}, 'float32',
     'tensor([0.0000, 0.1429, 0.2857, 0.4286,\n        0.5714, 0.7143, 0.8571, 1.0000,\n        1.1429, 1.2857, 1.4286, 1.5714,\n        1.7143, 1.8571, 2.0000, 2.1429,\n        2.2857, 2.4286, 2.5714, 2.7143],\n       requires_grad=True)'),
    ('profile-short', np.arange(2000, dtype=np.float32).reshape(40, 50) / 3, 'float32', {}, {'profile': 'short'}, 'float32',
     'tensor([[0.00e+00, 3.33e-01,  ..., 1.60e+01, 1.63e+01],\n        [1.67e+01, 1.70e+01,  ..., 3.27e+01, 3.30e+01],\n        ...,\n        [6.33e+02, 6.34e+02,  ..., 6.49e+02, 6.50e+02],\n        [6.50e+02, 6.50e+02,  ..., 6.66e+02, 6.66e+02]])'),
]


@pytest.mark.parametrize("data, dtype_name, kwargs, options, default_dtype_name, expected",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_case(data, dtype_name, kwargs, options, default_dtype_name, expected):
    set_printoptions(**options)
    assert fmt(data, dtype_name, default_dtype_name, **kwargs) == expected


def test_scalar_tangent_prints_as_a_number():
    assert fmt(np.float32(2), tangent=np.float32(0.1)) == "tensor(2., tangent=0.10000000149011612)"


def test_prefix_sets_the_indent():
    data = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert fmt(data, prefix="MyTensor(") == "MyTensor([[0., 1.],\n          [2., 3.]])"


def test_profile_full_prints_every_element():
    data = np.arange(1001)
    set_printoptions(profile="full")
    text = fmt(data)
    assert "..." not in text
    assert text.startswith("tensor([   0,    1,") and text.endswith(" 999, 1000])")
    # 12 six-column elements per line
    assert text.count("\n") == 1001 // 12


def test_printoptions_round_trip():
    defaults = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
    assert get_printoptions() == defaults
    set_printoptions(precision=2, threshold=10, edgeitems=1, linewidth=40, sci_mode=True)
    assert get_printoptions() == {"precision": 2, "threshold": 10, "edgeitems": 1, "linewidth": 40,
                                  "sci_mode": True}
    set_printoptions(profile="short")
    # like PyTorch, any call resets sci_mode to its argument
    assert get_printoptions() == {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80,
                                  "sci_mode": None}
    set_printoptions(profile="full", precision=6)
    assert (PRINT_OPTS.threshold, PRINT_OPTS.precision) == (inf, 6)
    set_printoptions(profile="default")
    assert get_printoptions() == defaults
    assert fmt(np.float32([1.12345])) == "tensor([1.1235])"


def test_options_restored_by_passing_them_back():
    saved = get_printoptions()
    set_printoptions(precision=1, sci_mode=False)
    assert fmt(np.float32([1e-5, 1.25])) == "tensor([0.0, 1.2])"
    set_printoptions(**saved)
    assert fmt(np.float32([1e-5, 1.25])) == "tensor([1.0000e-05, 1.2500e+00])"


# --- 3. oracle: a live PyTorch -------------------------------------------------------------------

def _torch_repr(torch, data, dtype_name, kwargs, options, default_dtype_name):
    """repr of the torch tensor holding `data`, under the given options and default dtype."""
    import torch.autograd.forward_ad as fwAD

    torch.set_default_dtype(getattr(torch, default_dtype_name))
    torch.set_printoptions(**options)
    try:
        t = torch.tensor(np.asarray(data)).to(getattr(torch, dtype_name))
        if kwargs.get("requires_grad") or kwargs.get("grad_fn_name"):
            t.requires_grad_()
        if kwargs.get("grad_fn_name"):
            t = t.clone()
            assert kwargs["grad_fn_name"] == "CloneBackward0"
        if kwargs.get("prefix"):
            t = t.as_subclass(type(kwargs["prefix"][:-1], (torch.Tensor,), {}))
        if kwargs.get("tangent") is not None:
            with fwAD.dual_level():
                return repr(fwAD.make_dual(t, torch.tensor(kwargs["tangent"])))
        return repr(t)
    finally:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


def _ours(data, dtype_name, kwargs, options, default_dtype_name):
    set_printoptions(**options)
    return fmt(data, dtype_name, default_dtype_name, **kwargs)


@pytest.mark.parametrize("data, dtype_name, kwargs, options, default_dtype_name, expected",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_case_table_matches_torch(data, dtype_name, kwargs, options, default_dtype_name, expected,
                                  oracle):
    assert oracle(lambda torch: _torch_repr(torch, data, dtype_name, kwargs, options,
                                            default_dtype_name)) == expected


@pytest.mark.parametrize("data, kwargs, expected", TRANSCRIPT_REPRS,
                         ids=[case[2] for case in TRANSCRIPT_REPRS])
def test_transcript_inputs_match_torch(data, kwargs, expected, oracle):
    """The transcript inputs print the same in PyTorch (grad_fn names a torch can produce)."""
    data = np.asarray(data)
    if "grad_fn_name" in kwargs:
        kwargs = {"grad_fn_name": "CloneBackward0"}
    expected = oracle(lambda torch: _torch_repr(torch, data, data.dtype.name, kwargs, {},
                                                "float32"))
    assert fmt(data, **kwargs) == expected


FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_RANGES = {"int64": 2**62, "int32": 2**31 - 1, "int16": 2**15 - 1, "int8": 127, "uint8": 255}


def _random_shape(rng):
    if rng.random() < 0.1:
        # past the summarisation threshold
        return [(1001,), (11, 100), (3, 20, 20), (40, 30), (7, 7, 30)][rng.integers(5)]
    ndim = int(rng.integers(0, 4))
    low = 0 if rng.random() < 0.05 else 1
    return tuple(int(n) for n in rng.integers(low, 9, ndim))


def _random_case(rng):
    """An array and its dtype name: random magnitudes, mixes of scales, ints, nans and infs."""
    shape = _random_shape(rng)
    kind = rng.choice(["normal", "spread", "int-valued", "special", "int", "bool", "complex"])
    if kind == "int":
        dtype_name = str(rng.choice(list(INT_RANGES)))
        bound = min(INT_RANGES[dtype_name], 10 ** int(rng.integers(1, 19)))
        low = 0 if dtype_name == "uint8" else -bound
        return rng.integers(low, bound, shape, endpoint=True).astype(dtype_name), dtype_name
    if kind == "bool":
        return rng.random(shape) < 0.5, "bool"
    if kind == "complex":
        dtype_name = str(rng.choice(["complex64", "complex128"]))
        scale = 10.0 ** rng.uniform(-10, 10, (2,) + shape)
        values = rng.standard_normal((2,) + shape) * scale
        return (values[0] + 1j * values[1]).astype(dtype_name), dtype_name

    dtype_name = str(rng.choice(FLOAT_DTYPES))
    if kind == "spread":
        values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-10, 10, shape)
    else:
        values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-10, 10)
    if kind == "int-valued":
        values = np.round(values * 10.0 ** rng.uniform(0, 4))
    if kind == "special":
        picks = rng.random(shape)
        specials = rng.choice(np.array([nan, inf, -inf, 0.0, -0.0, 1.0]), shape)
        values = np.where(picks < 0.4, specials, values)
    np_dtype = np.float32 if dtype_name == "bfloat16" else dtype_name
    with np.errstate(over="ignore"):
        return np.asarray(values).astype(np_dtype), dtype_name


ADVERSARIAL = [
    (np.array([1e-4, 1.0]), "float64"),
    (np.array([9.9999e-5, 1.0]), "float64"),
    (np.float32([1e-4, 1.0]), "float32"),
    (np.array([0.001, 1.0]), "float64"),
    (np.array([0.001, 1.0000001]), "float64"),
    (np.array([1e8, 1.0]), "float64"),
    (np.array([1e8, 1e6]), "float64"),
    (np.array([100000000.5, 1e6]), "float64"),
    (np.array([1.0, 1000.0]), "float64"),
    (np.array([1.0, 1000.5]), "float64"),
    (np.array([2.0**24 + 1, 3.0]), "float64"),
    (np.float32([2.0**24, 1.5]), "float32"),
    (np.array([1e16, -1e15]), "float64"),
    (np.array([1.2345e15, 1.0]), "float64"),
    (np.array([0.99995, 0.00015]), "float64"),
    (np.float32([0.99995, 9.99995, 99.99995]), "float32"),
    (np.float32([0.12345, 0.00015, -0.00025]), "float32"),
    (np.array([0.5, -0.5, 1.5, 2.5]), "float64"),
    (np.array([-0.0, 0.0]), "float64"),
    (np.array([-0.0, 1e-5]), "float64"),
    (np.array([[nan, 1e-5], [-inf, 5.0]]), "float64"),
    (np.float32([inf, -inf]), "float32"),
    (np.float32([nan, 0.0, -0.0]), "float32"),
    (np.float32([3.4028235e38, -1.1754944e-38]), "float32"),
    (np.array([5e-324, 1.0]), "float64"),
    (np.array([1.7976931348623157e308]), "float64"),
    (np.float16([65504.0, 6e-8, -0.0]), "float16"),
    (np.float16([0.1, 0.2, 0.3]), "float16"),
    (np.float32([1 / 3, 2 / 3, 1e9]), "bfloat16"),
    (np.array([-1, 10, -100, 1000]), "int64"),
    (np.array([0, 0, 0]), "int64"),
    (np.array([[True], [False]]), "bool"),
    (np.array(np.nan, np.float32), "float32"),
    (np.array(-np.inf), "float64"),
    (np.array([1 + 0j, -0.0 - 0j, nan + 1j, 1e-9 - 1e9j]), "complex128"),
    (np.complex64([-1 - 1e-5j, 2 + 3j]), "complex64"),
    (np.arange(1000, dtype=np.float32), "float32"),
    (np.arange(1001, dtype=np.float32) - 500.5, "float32"),
    (np.linspace(-1e-3, 1e3, 7 * 7 * 30).reshape(7, 7, 30), "float64"),
    (np.arange(6 * 6 * 28, dtype=np.float32).reshape(6, 6, 28) * 1e-6, "float32"),
]

VARIANTS = [
    ({}, {}, "float32"),
    ({"requires_grad": True}, {}, "float32"),
    ({"grad_fn_name": "CloneBackward0"}, {}, "float32"),
    ({}, {}, "float64"),
    ({"requires_grad": True}, {"precision": 2}, "float32"),
    ({}, {"sci_mode": False}, "float32"),
    ({}, {"sci_mode": True}, "float32"),
    ({"grad_fn_name": "CloneBackward0"}, {"linewidth": 60}, "float64"),
    ({}, {"threshold": 50, "edgeitems": 2}, "float32"),
    ({}, {"profile": "full", "precision": 6}, "float32"),
    ({"prefix": "Parameterised("}, {}, "float32"),
]

_rng = np.random.default_rng(20240611)
RANDOM_CASES = [_random_case(_rng) for _ in range(400)]


def _check_against_torch(data, dtype_name, variant, oracle):
    kwargs, options, default_dtype_name = variant
    if dtype_name not in FLOAT_DTYPES and dtype_name not in ("complex64", "complex128"):
        kwargs = {key: value for key, value in kwargs.items() if key == "prefix"}

    def answer(torch):
        rounded = None
        if dtype_name == "bfloat16":
            # the engine holds bfloat16 tensors as float32 arrays of bfloat16 values
            rounded = torch.tensor(data).to(torch.bfloat16).float().numpy()
        return _torch_repr(torch, data, dtype_name, kwargs, options, default_dtype_name), rounded
    expected, rounded = oracle(answer)
    if rounded is not None:
        data = rounded
    assert _ours(data, dtype_name, kwargs, options, default_dtype_name) == expected


@pytest.mark.parametrize("index", range(len(RANDOM_CASES)))
def test_random_array_matches_torch(index, oracle):
    data, dtype_name = RANDOM_CASES[index]
    _check_against_torch(data, dtype_name, VARIANTS[index % len(VARIANTS)], oracle)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: repr(variant))
@pytest.mark.parametrize("index", range(len(ADVERSARIAL)))
def test_adversarial_array_matches_torch(index, variant, oracle):
    data, dtype_name = ADVERSARIAL[index]
    _check_against_torch(data, dtype_name, variant, oracle)


TANGENT_CASES = [case for case in RANDOM_CASES if case[1] in ("float32", "float64")][:40]


@pytest.mark.parametrize("index", range(len(TANGENT_CASES)))
def test_tangent_matches_torch(index, oracle):
    data, dtype_name = TANGENT_CASES[index]
    tangent = np.asarray(data) * -0.5
    _check_against_torch(data, dtype_name, ({"tangent": tangent}, {}, "float32"), oracle)


def test_size_matches_torch(oracle):
    for shape in [(), (0,), (3,), (2, 0, 5), (1, 2, 3, 4)]:
        assert format_size(shape) == oracle(lambda torch: str(torch.Size(shape)), key=str(shape))
