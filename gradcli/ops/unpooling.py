"""Max unpooling as PyTorch's CPU kernels compute it (aten/src/ATen/native/MaxUnpooling.cpp):
max_unpool2d and max_unpool3d, ops of their own (MaxUnpool2DBackward0, MaxUnpool3DBackward0)
that write each input element at its index (max_pool's indices) into zeros, and F.max_unpool1d
over the 2-d op.  The poolings are gradcli.ops.pooling's."""

import inspect

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor, check_numel
from .derivatives import helper
from .gather import _array
from .pooling import _check_dtype, _check_size_ints, _ntuple
from .registry import Op, Overload, Plain, Sample, register


# ------------------------------------------------------------------ max unpooling

def _max_unpool(a, indices, output_size):
    """max_unpool2d: zeros of output_size with each input element written at its index in the
    (H, W) plane (a later element at the same index wins, as in PyTorch's loop)."""
    indices = _array(indices)
    if indices.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{dtypes.from_numpy_dtype(indices.dtype).short}")
    if a.ndim not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {a.ndim} dimensions.")
    _check_unpool_shapes(a, indices, 2)
    return _unpool_scatter(a, indices, output_size)


def _check_unpool_shapes(a, indices, nd):
    """The indices' shape is the input's, whose dims past the batch's are not empty."""
    if a.shape != indices.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(a.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for d in range(1, a.ndim):
        if not a.shape[d]:
            raise RuntimeError(f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but got {list(a.shape)} "
                               f"with dimension {d} being empty.")


def _unpool_scatter(a, indices, sizes):
    """zeros of sizes (the spatial ones) for each sample's channel, each element of a written
    at its index there (a later element at the same index wins, as in PyTorch's loop)."""
    lead, sizes = a.shape[:-len(sizes)], tuple(sizes)
    check_numel(lead + sizes)
    rows, plane = int(np.prod(lead)), int(np.prod(sizes))
    if rows * plane == 0:  # (PyTorch's kernel returns an empty output at once)
        return np.zeros(lead + sizes, a.dtype)
    idx = indices.reshape(rows, int(np.prod(a.shape[len(lead):])))
    bad = (idx < 0) | (idx >= plane)
    if bad.any():  # (PyTorch's loop keeps the last it met)
        raise RuntimeError(f"Found an invalid max index: {idx.reshape(-1)[np.flatnonzero(bad)[-1]]}"
                           f" (output volumes are of size {'x'.join(map(str, sizes))})")
    keys = (np.arange(rows)[:, None] * plane + idx).reshape(-1)
    last = keys.size - 1 - np.unique(keys[::-1], return_index=True)[1]
    out = np.zeros(rows * plane, a.dtype)
    out[keys[last]] = a.reshape(-1)[last]
    return out.reshape(lead + sizes)


@helper
def _max_unpool_backward(grad, indices, dims=2):
    """PyTorch's max_pool_double_backward(grad, indices, dims): grad at each element's
    index."""
    flat = indices.flatten(-dims) if isinstance(indices, Tensor) else Tensor._make(
        np.asarray(indices).reshape(np.shape(indices)[:-dims] + (-1,)), None, 0, False)
    return grad.flatten(-dims).gather(-1, flat).reshape(tuple(np.shape(indices)))


MAX_UNPOOL2D = register(Op(
    "max_unpool2d.default", _max_unpool, "self: _max_unpool_backward(grad, indices)",
    jvp="linear", attrs=("indices", "output_size"),
    grad_fn="MaxUnpool2DBackward0", dtype="same", method=False, public=False, kind="pooling",
    doc="each element written at its index of an output_size plane of zeros",
    samples=[Sample((1, 2, 2, 2), attrs={"indices": [[[[1, 6], [9, 15]], [[0, 3], [8, 10]]]],
                                         "output_size": (4, 4)}),
             Sample((2, 1, 3), attrs={"indices": [[[1, 3, 4]], [[5, 0, 2]]],
                                      "output_size": (2, 3)})]))
MAX_UNPOOL2D.hidden_saved = ("output_size",)  # (PyTorch's node saves the indices only)


def _max_unpool3d(a, indices, output_size, stride, padding):
    """max_unpool3d: max_unpooling3d_shape_check's checks (in its order; stride and padding
    are checked, not used), then each element written at its index in the (D, H, W)
    volume."""
    indices = _array(indices)
    if indices.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if a.ndim not in (4, 5):
        raise RuntimeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a "
                           f"tensor with {a.ndim} dimensions.")
    for name, values, got in (("output_size", output_size, "but got "),
                              ("stride", stride, "but got: "), ("padding", padding, "but got: ")):
        if len(values) != 3:
            raise RuntimeError(f"There should be exactly three elements (depth, height, width) "
                               f"in {name}, {got}{len(values)} elements.")
    _check_unpool_shapes(a, indices, 3)
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if a.dtype.kind != "f":  # (its kernel's dtypes)
        raise not_implemented("max_unpool3d", a.dtype)
    return _unpool_scatter(a, indices, output_size)


MAX_UNPOOL3D = register(Op(
    "max_unpool3d.default", _max_unpool3d, "self: _max_unpool_backward(grad, indices, 3)",
    jvp="linear", attrs=("indices", "output_size", "stride", "padding"),
    grad_fn="MaxUnpool3DBackward0", dtype="same", method=False, public=False, kind="pooling",
    doc="each element written at its index of an output_size volume of zeros",
    samples=[Sample((1, 2, 1, 2, 1), attrs={
        "indices": [[[[[1], [6]]], [[[0], [11]]]]], "output_size": (2, 3, 2),
        "stride": (2, 2, 2), "padding": (0, 0, 0)}),
        Sample((2, 1, 1, 2), attrs={"indices": [[[[1, 3]]], [[[0, 3]]]],
                                    "output_size": (1, 2, 2), "stride": (1, 1, 1),
                                    "padding": (0, 0, 0)})]))
MAX_UNPOOL3D.hidden_saved = ("output_size", "stride", "padding")  # (the indices only)


def _unpool_output_size(input, kernel, stride, padding, output_size):
    """torch.nn.functional's _unpool_output_size: the default (the inverse of the pooling's
    size), or output_size checked against it (PyTorch's ValueErrors)."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        sizes = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f"{low} and {high})")
        sizes = output_size
    for d in range(n):
        if sizes[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={sizes[d]}")
    return sizes


def _unpool_sizes(fn, input, kernel_size, stride, padding, output_size, n):
    """F.max_unpool's output size (PyTorch's checks of it), and its stride and padding."""
    kernel = _ntuple(kernel_size, n)
    stride = kernel if stride is None else _ntuple(stride, n)
    padding = _ntuple(padding, n)
    sizes = _unpool_output_size(input, kernel, stride, padding, output_size)
    _check_size_ints(sizes, fn, 3)  # (the C++ binding's check of output_size)
    return tuple(int(v) for v in sizes), stride, padding


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    sizes, _, _ = _unpool_sizes("max_unpool2d", input, kernel_size, stride, padding,
                                output_size, 2)
    _check_dtype(input, "max_unpool2d", "f")
    return MAX_UNPOOL2D.apply((input,), (indices, sizes))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    sizes, stride, padding = _unpool_sizes("max_unpool3d", input, kernel_size, stride, padding,
                                           output_size, 3)
    return MAX_UNPOOL3D.apply((input,), (indices, sizes, stride, padding))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    sizes, _, _ = _unpool_sizes("max_unpool2d", input, kernel_size, stride, padding,
                                output_size, 1)
    _check_dtype(input, "max_unpool2d", "f")
    return MAX_UNPOOL2D.apply((input.unsqueeze(-1),), (indices.unsqueeze(-1), sizes + (1,))
                              ).squeeze(-1)


_entry = register(Plain("max_unpool1d", max_unpool1d,
                        "max_pool1d's partial inverse: each element at its index",
                        kind="pooling", via=("max_unpool2d.default",),
                        signature=f"max_unpool1d{inspect.signature(max_unpool1d)}"))
_entry.function = False
_entry = register(Overload("max_unpool2d", lambda *args, **kwargs: max_unpool2d, [MAX_UNPOOL2D],
                           "max_pool2d's partial inverse: each element at its index",
                           method=False, kind="pooling",
                           signature=f"max_unpool2d{inspect.signature(max_unpool2d)}"))
_entry.function = False
_entry = register(Overload("max_unpool3d", lambda *args, **kwargs: max_unpool3d, [MAX_UNPOOL3D],
                           "max_pool3d's partial inverse: each element at its index",
                           method=False, kind="pooling",
                           signature=f"max_unpool3d{inspect.signature(max_unpool3d)}"))
_entry.function = False
