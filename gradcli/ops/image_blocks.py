"""An image's blocks: F.unfold and F.fold (its sliding blocks as columns, and columns summed
back into an image: aten's im2col and col2im, ops of their own with Im2ColBackward0 and
Col2ImBackward0), and pixel_shuffle and pixel_unshuffle (channel blocks as blocks of pixels,
and back).  The windows are gradcli.ops.convolution's im2col and col2im."""

import inspect

import numpy as np

from ..engine.messages import not_implemented
from .convolution import col2im, im2col
from .registry import Op, Plain, Sample, register


# ------------------------------------------------------------------ F.unfold, F.fold

def _pairs_text(name, values):
    return f"{name}=({values[0]}, {values[1]})"


def _check_unfold_params(kernel, dilation, padding, stride, fold):
    """aten's im2col/col2im checks of the ints, in their order and words."""
    for name, values in (("kernel_size", kernel), ("dilation", dilation), ("padding", padding),
                         ("stride", stride)):
        if len(values) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    checks = {
        "kernel": (min(kernel) > 0, "kernel size should be greater than zero, but got "
                   f"kernel_height: {kernel[0]} kernel_width: {kernel[1]}"),
        "dilation": (min(dilation) > 0, "dilation should be greater than zero, but got "
                     f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"),
        "padding": (min(padding) >= 0, "padding should be non-negative, but got pad_height: "
                    f"{padding[0]} pad_width: {padding[1]}"),
        "stride": (min(stride) > 0, "stride should be greater than zero, but got "
                   f"stride_height: {stride[0]} stride_width: {stride[1]}")}
    order = ("kernel", "stride", "dilation", "padding") if fold else (
        "kernel", "dilation", "padding", "stride")
    for key in order:
        ok, message = checks[key]
        if not ok:
            raise RuntimeError(message)


def _blocks(spatial, kernel, dilation, padding, stride):
    return tuple((n + 2 * p - (d * (k - 1) + 1)) // s + 1
                 for n, k, d, p, s in zip(spatial, kernel, dilation, padding, stride))


def _im2col(a, kernel_size, dilation, padding, stride):
    """F.unfold: (N, C, H, W) -> (N, C * kh * kw, L), the rows channel-major then the kernel's
    offsets, as PyTorch's im2col."""
    _check_unfold_params(kernel_size, dilation, padding, stride, False)
    if a.ndim < 3 or not a.shape[1] or not a.shape[2] or (a.ndim == 3 and not a.shape[0]) or \
            a.ndim == 4 and not a.shape[3] or a.ndim > 4:
        if a.ndim < 3:  # (PyTorch reads size(2) first)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-a.ndim}, "
                             f"{a.ndim - 1}], but got {2 if a.ndim == 2 else 1})")
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(a.shape)}")
    b = a[None] if a.ndim == 3 else a
    out = _blocks(b.shape[2:], kernel_size, dilation, padding, stride)
    if min(out) < 1:
        h, w = b.shape[2:]
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), {_pairs_text('kernel_size', kernel_size)}"
            f", {_pairs_text('dilation', dilation)}, {_pairs_text('padding', padding)}, "
            f"calculated shape of the array of sliding blocks as ({out[0]}, {out[1]}), but its "
            "components must be at least one.")
    cols = im2col(b, kernel_size, stride, padding, padding, dilation, out)
    cols = cols.reshape(b.shape[0], b.shape[1] * cols.shape[2], out[0] * out[1])
    return cols[0] if a.ndim == 3 else cols


def _col2im(a, output_size, kernel_size, dilation, padding, stride):
    """F.fold: (N, C * kh * kw, L) summed back onto (N, C, *output_size), each element's terms
    in the order of the kernel's offsets (PyTorch's col2im)."""
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    _check_unfold_params(kernel_size, dilation, padding, stride, True)
    if not (a.ndim == 2 and min(a.shape) > 0 or a.ndim == 3 and min(a.shape[1:]) > 0):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(a.shape)}")
    b = a[None] if a.ndim == 2 else a
    k = kernel_size[0] * kernel_size[1]
    if b.shape[1] % k:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={b.shape[1]} and kernel_size=({kernel_size[0]},"
            f" {kernel_size[1]}).")
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    given = (f"Given {_pairs_text('output_size', output_size)}, "
             f"{_pairs_text('kernel_size', kernel_size)}, {_pairs_text('dilation', dilation)}, "
             f"{_pairs_text('padding', padding)}, {_pairs_text('stride', stride)}, ")
    if b.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"{given}expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={b.shape[2]}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), which is too small (non-positive)")
    if min(output_size) < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: "
                           f"{_pairs_text('output_size', output_size)}.")
    cols = b.reshape((b.shape[0], b.shape[1] // k, k) + blocks)
    y = col2im(cols, tuple(output_size), kernel_size, stride, padding, padding, dilation)
    return y[0] if a.ndim == 2 else y


_FOLD_ATTRS = ("kernel_size", "dilation", "padding", "stride")
_UNFOLD_SAMPLES = [Sample((2, 3, 5, 6), attrs=dict(kernel_size=(2, 3), dilation=(1, 2),
                                                   padding=(1, 1), stride=(2, 1))),
                   Sample((2, 4, 4), attrs=dict(kernel_size=(2, 2), dilation=(1, 1),
                                                padding=(0, 0), stride=(1, 1)))]
IM2COL = register(Op(
    "im2col", _im2col, f"self: col2im(grad, self_shape[-2:], {', '.join(_FOLD_ATTRS)})",
    jvp="linear", attrs=_FOLD_ATTRS, grad_fn="Im2ColBackward0", dtype="same", method=False,
    public=False, kind="convolution", samples=_UNFOLD_SAMPLES,
    doc="the input's sliding blocks as columns (F.unfold)"))
IM2COL.hidden_saved = ("self_sym_sizes",)
IM2COL.extra_saved = {  # (PyTorch's names for the two sizes it reads)
    "_saved_self_sym_argsize_minus_1": lambda node: node._meta[0][-1],
    "_saved_self_sym_argsize_minus_2": lambda node: node._meta[0][-2]}


def _fold_sample(sample):
    a = sample.attrs
    n = _blocks(sample.shapes[0][-2:], a["kernel_size"], a["dilation"], a["padding"],
                a["stride"])
    k = a["kernel_size"][0] * a["kernel_size"][1]
    return Sample(sample.shapes[0][:-3] + (sample.shapes[0][-3] * k, n[0] * n[1]),
                  attrs={"output_size": sample.shapes[0][-2:], **a})


COL2IM = register(Op(
    "col2im", _col2im, f"self: im2col(grad, {', '.join(_FOLD_ATTRS)})", jvp="linear",
    attrs=("output_size",) + _FOLD_ATTRS, grad_fn="Col2ImBackward0", dtype="same",
    method=False, public=False, kind="convolution",
    samples=[_fold_sample(s) for s in _UNFOLD_SAMPLES],
    doc="columns of sliding blocks summed back into an image (F.fold)"))
COL2IM.hidden_saved = ("output_size",)  # (PyTorch's node saves the other four only)


def _pair_arg(value, fn, arg, position):
    """F.unfold's/F.fold's _pair (a list or tuple as it is, another value twice), then the
    binding's ints (PyTorch's TypeError)."""
    values = tuple(value) if isinstance(value, (list, tuple)) else (value, value)
    for i, v in enumerate(values):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be tuple of "
                            f"ints, but found element of type {type(v).__name__} at pos {i}")
    return tuple(int(v) for v in values)


def _check_fold_dtype(input, kernel):
    if input.dtype.np.kind in "iu":
        raise not_implemented(kernel, input.dtype)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.unfold: im2col (Im2ColBackward0)."""
    params = [_pair_arg(v, "im2col", arg, i) for v, arg, i in (
        (kernel_size, "kernel_size", 2), (dilation, "dilation", 3), (padding, "padding", 4),
        (stride, "stride", 5))]
    _check_fold_dtype(input, "im2col_out_cpu")
    return IM2COL.apply((input,), tuple(params))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """torch.nn.functional.fold: col2im (Col2ImBackward0)."""
    params = [_pair_arg(v, "col2im", arg, i) for v, arg, i in (
        (output_size, "output_size", 2), (kernel_size, "kernel_size", 3),
        (dilation, "dilation", 4), (padding, "padding", 5), (stride, "stride", 6))]
    _check_fold_dtype(input, "col2im_out_cpu")
    return COL2IM.apply((input,), tuple(params))


# (torch.nn.functional's only, listed under that name: the table's `unfold` is Tensor.unfold)
for _fn, _doc in ((unfold, "the sliding blocks of an (N, C, H, W) input as columns"),
                  (fold, "columns of sliding blocks summed back into (N, C, *output_size)")):
    _entry = register(Plain(f"nn.functional.{_fn.__name__}", _fn, _doc, kind="convolution",
                            signature=f"{_fn.__name__}{inspect.signature(_fn)}",
                            via=("im2col" if _fn is unfold else "col2im",)))
    _entry.function = False


# ------------------------------------------------------------------ pixel_shuffle

def _check_factor(a, factor, name, what):
    if not isinstance(factor, (int, np.integer)) or isinstance(factor, bool):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not "
                        f"{type(factor).__name__}")
    if a.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {a.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")
    return int(factor)


def _pixel_shuffle(a, upscale_factor):
    """(*, C r², H, W) -> (*, C, H r, W r): each channel block of r² spread over r x r pixels."""
    r = _check_factor(a, upscale_factor, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = a.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    n = len(lead)
    blocks = a.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    order = tuple(range(n)) + tuple(n + i for i in (0, 3, 1, 4, 2))
    return np.ascontiguousarray(blocks.transpose(order)).reshape(
        tuple(lead) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle(a, downscale_factor):
    """(*, C, H r, W r) -> (*, C r², H, W): pixel_shuffle's inverse."""
    r = _check_factor(a, downscale_factor, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = a.shape
    for axis, n, i in (("height", h, 2), ("width", w, 1)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {axis} to be divisible by "
                               f"downscale_factor, but input.size(-{i})={n} is not divisible by "
                               f"{r}")
    n = len(lead)
    blocks = a.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    order = tuple(range(n)) + tuple(n + i for i in (0, 2, 4, 1, 3))
    return np.ascontiguousarray(blocks.transpose(order)).reshape(
        tuple(lead) + (c * r * r, h // r, w // r))


for _name, _fn, _other, _factor, _node, _doc, _samples in (
        ("pixel_shuffle", _pixel_shuffle, "pixel_unshuffle", "upscale_factor", "PixelShuffle",
         "(*, C r², H, W) rearranged to (*, C, H r, W r)",
         [Sample((2, 8, 2, 3), attrs={"upscale_factor": 2}),
          Sample((9, 1, 2), attrs={"upscale_factor": 3})]),
        ("pixel_unshuffle", _pixel_unshuffle, "pixel_shuffle", "downscale_factor",
         "PixelUnshuffle", "(*, C, H r, W r) rearranged to (*, C r², H, W)",
         [Sample((2, 2, 4, 6), attrs={"downscale_factor": 2}),
          Sample((1, 3, 6), attrs={"downscale_factor": 3})])):
    register(Op(_name, _fn, f"self: {_other}(grad, {_factor})", jvp="linear", attrs=(_factor,),
                grad_fn=f"{_node}Backward0", dtype="same", method=False, kind="shape",
                doc=_doc, samples=_samples))
