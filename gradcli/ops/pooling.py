"""Pooling as PyTorch's CPU kernels compute it (aten/src/ATen/native/cpu/MaxPoolKernel.cpp,
AvgPoolKernel.cpp): max_pool2d/3d_with_indices and avg_pool2d/3d, each with its backward as an
op of its own (so that a create_graph gradient ends in PyTorch's `*BackwardBackward0` node);
one code serves 2 and 3 spatial dims (adaptive pooling is gradcli.ops.adaptive_pooling, max
unpooling gradcli.ops.unpooling).  The 1-d poolings are
PyTorch's composites: unsqueeze(-2), the 2-d pooling, squeeze(-2).

Max: the first largest element of a window wins, a NaN wins over everything (the last NaN of
the window), padding never wins; indices count in the input's flat spatial plane or volume.
Averages add a window in row-major order and divide once (adaptive: by the window's size along
each dim in turn), as PyTorch does, so float64 results are PyTorch's to the bit; backward
kernels add each output's share in the order of the outputs.
"""

import inspect

import numpy as np

from ..engine.messages import not_implemented
from ..engine.tensor import Tensor, check_numel
from .convolution import col2im, im2col, int_list
from .derivatives import helper
from .registry import OPS, Op, Overload, Plain, Sample, register


def pooled_size(n, k, s, p, d, ceil_mode):
    """aten's pooling_output_shape."""
    top = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = top // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _batched(a, nd=2):
    """a as (B, C, *spatial) (an unbatched (C, *spatial) input gets a batch of one)."""
    return a[None] if a.ndim == nd + 1 else a


def _half(n):
    """n / 2 as C++ divides (towards zero)."""
    return n // 2 if n >= 0 else -(-n // 2)


def check_pool_shape(shape, kernel, stride, padding, dilation, ceil_mode, avg=False):
    """aten's pooling_output_shape of each spatial dimension, then pool2d_shape_check (or
    pool3d_shape_check; avg: avg_pool3d's): their checks in their order and words.  (The
    padding is at most half the kernel, not only half the dilated kernel: a window never
    lies wholly in the padding.)"""
    nd = len(kernel)
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           "input")
    out = []
    for n, k, s, p, d in zip(shape[-nd:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half(d * (k - 1) + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(pooled_size(n, k, s, p, d, ceil_mode))
    if nd == 3:
        return _check_pool3d_shape(shape, kernel, stride, padding, dilation, out, avg)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    if any(n == 0 for n in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{list(shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size: ({shape[-3]}x{shape[-2]}x{shape[-1]}). "
                           f"Calculated output size: ({shape[-3]}x{out[0]}x{out[1]}). "
                           "Output size is too small")
    return tuple(out)


def _check_pool3d_shape(shape, kernel, stride, padding, dilation, out, avg):
    """aten's pool3d_shape_check, its order and words (C++'s)."""
    (kt, kh, kw), (st, sh, sw), (pt, ph, pw), (dt, dh, dw) = kernel, stride, padding, dilation
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} "
                           f"dW: {sw}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dt} "
                           f"dilationH: {dh} dilationW: {dw}")
    if 0 in shape[len(shape) - 4:]:
        name = "avg_pool3d()" if avg else "max_pool3d_with_indices_out_cpu_template()"
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(shape)} and non-batch "
                           "dimension 0 has length zero!")
    t, h, w = shape[-3:]
    if avg and (t < kt or h < kh or w < kw):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: "
                           f"{kt} kH: {kh} kW: {kw})")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if any(o < 1 for o in out):
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{'x'.join(map(str, out))}). Output size is too small")
    return tuple(out)


def _windows(shape, kernel, stride, padding, dilation, ceil_mode, avg=False):
    stride = stride or kernel
    out = check_pool_shape(shape, kernel, stride, padding, dilation, ceil_mode, avg)
    # (the window index and divisors of one plane: an empty batch checks no cols)
    check_numel((int(np.prod(kernel)),) + out)
    pad_hi = tuple(max(p, (o - 1) * s + d * (k - 1) + 1 - n - p) for n, k, s, p, d, o in
                   zip(shape[-len(kernel):], kernel, stride, padding, dilation, out))
    return out, pad_hi


def _check_grad_output(grad_output, shape):
    if grad_output.shape != tuple(shape):
        raise RuntimeError(f"Expected grad_output of size {list(shape)}, but got "
                           f"{list(grad_output.shape)}")


# ------------------------------------------------------------------ max

def flat_index(spatial, positions, inside):
    """(prod(K), *out): the flat index in the input's spatial dims of each window element,
    -1 outside the input; positions[i] (K_i, out_i) the windows' elements along dim i,
    inside[i] whether they lie in it."""
    nd = len(spatial)
    index, valid = np.zeros((1,) * 2 * nd, np.int64), np.ones((1,) * 2 * nd, bool)
    for i, (n, pos, ok) in enumerate(zip(spatial, positions, inside)):
        shape = [1] * 2 * nd
        shape[i], shape[nd + i] = pos.shape
        index = index * n + pos.reshape(shape)
        valid = valid & ok.reshape(shape)
    kernel = tuple(p.shape[0] for p in positions)
    out = tuple(p.shape[1] for p in positions)
    return np.where(valid, index, -1).reshape((int(np.prod(kernel)),) + out)


def _input_index(shape, kernel, stride, padding, dilation, out):
    """(prod(kernel), *out): the flat spatial index each window element reads, -1 in
    padding."""
    positions = [np.arange(o)[None, :] * s - p + np.arange(k)[:, None] * d
                 for o, s, p, k, d in zip(out, stride, padding, kernel, dilation)]
    spatial = shape[-len(kernel):]
    return flat_index(spatial, positions, [(q >= 0) & (q < n) for q, n in zip(positions, spatial)])


def _pick_max(cols, index, low, batched):
    """(values, indices) of the windows cols (B, C, K, *out), whose elements read the input's
    flat (H, W) positions `index` (K, *out; -1: padding, never picked): the first largest,
    the last NaN of a window; a window all -inf picks its first element inside the input."""
    inside = index >= 0
    pick = np.argmax(np.where(inside, cols, low), axis=2)  # the first largest
    first_inside = np.argmax(inside, axis=0)
    valid = np.take_along_axis(np.broadcast_to(inside, cols.shape), pick[:, :, None], 2)[:, :, 0]
    pick = np.where(valid, pick, first_inside)
    if cols.dtype.kind == "f":
        nan = np.isnan(cols) & inside
        if nan.any():  # the last NaN of a window
            last = cols.shape[2] - 1 - np.argmax(nan[:, :, ::-1], axis=2)
            pick = np.where(nan.any(axis=2), last, pick)
    values = np.take_along_axis(cols, pick[:, :, None], 2)[:, :, 0]
    indices = np.take_along_axis(np.broadcast_to(index, cols.shape[:2] + index.shape),
                                 pick[:, :, None], 2)[:, :, 0]
    if not batched:
        values, indices = values[0], indices[0]
    return values, indices.astype(np.int64)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool_indices(a, kernel, stride, padding, dilation, ceil_mode):
    """(values, indices) of max_pool2d_with_indices on a (C, H, W) or (N, C, H, W) array
    (stride (): the kernel's, as PyTorch saves an omitted stride)."""
    stride = stride or kernel
    out, pad_hi = _windows(a.shape, kernel, stride, padding, dilation, ceil_mode)
    low, nd = _lowest(a.dtype), len(kernel)
    cols = im2col(_batched(a, nd), kernel, stride, padding, pad_hi, dilation, out, fill=low)
    index = _input_index(a.shape, kernel, stride, padding, dilation, out)
    return _pick_max(cols, index, low, a.ndim == nd + 2)


def _scatter_max(grad_output, indices, self, nd):
    """Each output's gradient added to its window's maximum, in the order of the outputs."""
    _check_grad_output(grad_output, indices.shape)
    g, idx = _batched(grad_output, nd), _batched(indices, nd)
    b = _batched(self, nd)
    out = np.zeros((b.shape[0] * b.shape[1], int(np.prod(b.shape[2:]))), grad_output.dtype)
    if not out.size:  # (an empty batch: no windows to reshape)
        return out.reshape(self.shape)
    rows = np.arange(out.shape[0])[:, None]
    np.add.at(out, (np.broadcast_to(rows, (out.shape[0], idx[0, 0].size)),
                    idx.reshape(out.shape[0], -1)), g.reshape(out.shape[0], -1))
    return out.reshape(self.shape)


def _max_pool_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode):
    indices = max_pool_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[1]
    return _scatter_max(grad_output, indices, self, len(kernel_size))


def _gather_max(grad, indices, nd):
    """PyTorch's max_pool_double_backward: grad (input-shaped) at each window's maximum."""
    idx = Tensor._make(indices.reshape(indices.shape[:-nd] + (-1,)), None, 0, False)
    return grad.flatten(-nd).gather(-1, idx).reshape(indices.shape)


@helper
def _max_pool_double_backward(grad, self, kernel_size, stride, padding, dilation, ceil_mode):
    return _gather_max(grad, max_pool_indices(self._data, kernel_size, stride, padding,
                                              dilation, ceil_mode)[1], len(kernel_size))


@helper
def _max_pool_jvp(self_t, self, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool_double_backward(self_t, self, kernel_size, stride, padding, dilation,
                                     ceil_mode), None


def _pooled_shape(sample):
    """The output shape of a pooling sample (its backward's grad_output)."""
    a = sample.attrs
    nd = len(a["kernel_size"])
    out = check_pool_shape(sample.shapes[0], a["kernel_size"], a["stride"] or a["kernel_size"],
                           a["padding"], a.get("dilation", (1,) * nd), a["ceil_mode"])
    return sample.shapes[0][:-nd] + out


_POOL = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
_POOL_ARGS = ", ".join(_POOL)
POOL_SAMPLES = [
    Sample((2, 2, 4, 5), attrs=dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0),
                                    dilation=(1, 1), ceil_mode=False)),
    Sample((2, 5, 5), attrs=dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1),
                                 dilation=(1, 2), ceil_mode=True)),
]

def _indices_from_saved(pick, i):
    """A node's `_saved_result1` or `_saved_indices`: the indices of the maxima, which PyTorch
    saves and gradcli recomputes from its saved input i (by `pick`), read as the node's other
    saved values are (PyTorch's error once a backward pass freed them; a saved-tensor hook's
    unpacking; the version check; None where the node saved no input, as `_saved_self` is)."""
    def indices(node):
        saved = node._savedvalue_input(i)
        return None if saved is None else Tensor._make(pick(saved._data, *node._attrs)[1],
                                                       None, 0, False)
    return indices


POOL3D_SAMPLES = [
    Sample((1, 2, 4, 3, 5), attrs=dict(kernel_size=(2, 2, 2), stride=(), padding=(0, 0, 0),
                                       dilation=(1, 1, 1), ceil_mode=False)),
    Sample((2, 4, 5, 3), attrs=dict(kernel_size=(3, 2, 1), stride=(2, 1, 2), padding=(1, 1, 0),
                                    dilation=(1, 2, 1), ceil_mode=True)),
]


def _max_pool_ops(nd, samples):
    """max_pool<nd>d_with_indices and its backward (PyTorch's ops and nodes)."""
    name = f"max_pool{nd}d_with_indices"
    forward = register(Op(
        name, max_pool_indices, f"self: {name}_backward(grad[0], self, {_POOL_ARGS})",
        jvp=f"self: _max_pool_jvp(self_t, self, {_POOL_ARGS})", attrs=_POOL, outputs=2,
        grad_fn=f"MaxPool{nd}DWithIndicesBackward0", method=False, public=False,
        kind="pooling", doc="the largest element of each window and its index",
        samples=samples))
    forward.extra_saved = {"_saved_result1": _indices_from_saved(max_pool_indices, 0)}
    backward = register(Op(
        f"{name}_backward", _max_pool_backward,
        (f"grad_output: _max_pool_double_backward(grad, self, {_POOL_ARGS})",
         "self: grad.new_zeros(self_shape)"),
        jvp=(f"grad_output: {name}_backward(grad_output_t, self, {_POOL_ARGS})",),
        inputs=("grad_output", "self"), attrs=_POOL,
        grad_fn=f"MaxPool{nd}DWithIndicesBackwardBackward0", method=False, public=False,
        kind="backward", doc=f"the gradient of {name}",
        samples=[Sample(_pooled_shape(s), s.shapes[0], attrs=s.attrs) for s in samples]))
    # PyTorch's max-pooling backward nodes save the indices only (here: recomputed from self)
    backward.hidden_saved = ("self", "self_sym_sizes") + _POOL
    backward.extra_saved = {"_saved_indices": _indices_from_saved(max_pool_indices, 1)}
    return forward


MAX_POOL2D = _max_pool_ops(2, POOL_SAMPLES)
MAX_POOL3D = _max_pool_ops(3, POOL3D_SAMPLES)


# ------------------------------------------------------------------ average

def _divisors(shape, kernel, stride, padding, out, count_include_pad, divisor_override):
    """(*out): what each window's sum is divided by (aten's divide_factor)."""
    if divisor_override is not None:
        return np.full(out, divisor_override)
    sizes = []
    for n, k, s, p, o in zip(shape[-len(kernel):], kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, n) - np.maximum(start, 0))
    divisor = np.ones((1,) * len(sizes), np.int64)
    for size in np.ix_(*sizes):
        divisor = divisor * size
    return divisor


def _avg_attrs(kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return kernel_size, stride, padding, (1,) * len(kernel_size), ceil_mode


def avg_pool(a, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """avg_pool2d: each window's sum, in row-major order, over its divisor."""
    stride = stride or kernel_size
    attrs = _avg_attrs(kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)
    nd = len(kernel_size)
    out, pad_hi = _windows(a.shape, *attrs, avg=True)
    cols = im2col(_batched(a, nd), kernel_size, stride, padding, pad_hi, attrs[3], out)
    total = cols[:, :, 0]
    for j in range(1, cols.shape[2] if cols.size else 1):  # (an empty batch adds nothing)
        total = total + cols[:, :, j]
    divisor = _divisors(a.shape, kernel_size, stride, padding, out, count_include_pad,
                        divisor_override)
    result = (total / divisor.astype(a.dtype)).astype(a.dtype)
    return result[0] if a.ndim == nd + 1 else result


def _avg_pool_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    stride = stride or kernel_size
    attrs = _avg_attrs(kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)
    out, pad_hi = _windows(self.shape, *attrs, avg=True)
    divisor = _divisors(self.shape, kernel_size, stride, padding, out, count_include_pad,
                        divisor_override)
    nd = len(kernel_size)
    _check_grad_output(grad_output, self.shape[:-nd] + out)
    share = _batched(grad_output, nd) / divisor.astype(grad_output.dtype)
    k = int(np.prod(kernel_size))
    check_numel(share.shape[:2] + (k,) + share.shape[2:])
    cols = np.broadcast_to(share[:, :, None], share.shape[:2] + (k,) + share.shape[2:])
    result = col2im(cols, self.shape[-nd:], kernel_size, stride, padding, pad_hi, attrs[3],
                    reverse=True)
    return result.reshape(self.shape).astype(grad_output.dtype)


_AVG = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_AVG_ARGS = ", ".join(_AVG)
AVG_SAMPLES = [
    Sample((2, 2, 4, 5), attrs=dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0),
                                    ceil_mode=False, count_include_pad=True,
                                    divisor_override=None)),
    Sample((2, 5, 5), attrs=dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1),
                                 ceil_mode=True, count_include_pad=False, divisor_override=None)),
    Sample((1, 2, 4, 4), attrs=dict(kernel_size=(3, 3), stride=(1, 2), padding=(1, 0),
                                    ceil_mode=False, count_include_pad=True, divisor_override=5)),
]

AVG3D_SAMPLES = [
    Sample((1, 2, 4, 3, 5), attrs=dict(kernel_size=(2, 2, 2), stride=(), padding=(0, 0, 0),
                                       ceil_mode=False, count_include_pad=True,
                                       divisor_override=None)),
    Sample((2, 4, 5, 3), attrs=dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0),
                                    ceil_mode=True, count_include_pad=False,
                                    divisor_override=None)),
    Sample((1, 1, 3, 4, 4), attrs=dict(kernel_size=(2, 3, 3), stride=(1, 1, 2), padding=(0, 1, 1),
                                       ceil_mode=False, count_include_pad=True,
                                       divisor_override=5)),
]


def _avg_pool_ops(nd, samples):
    """avg_pool<nd>d and its backward (PyTorch's ops and nodes)."""
    forward = register(Op(
        f"avg_pool{nd}d.default", avg_pool,
        f"self: avg_pool{nd}d_backward(grad, self, {_AVG_ARGS})", jvp="linear", attrs=_AVG,
        grad_fn=f"AvgPool{nd}DBackward0", method=False, public=False, kind="pooling",
        doc="the mean of each window", samples=samples))
    backward = register(Op(
        f"avg_pool{nd}d_backward", _avg_pool_backward,
        (f"grad_output: _call_avg_pool(grad, {_AVG_ARGS})", "self: grad.new_zeros(self_shape)"),
        jvp="linear",
        inputs=("grad_output", "self"), attrs=_AVG, grad_fn=f"AvgPool{nd}DBackwardBackward0",
        method=False, public=False, kind="backward", doc=f"the gradient of avg_pool{nd}d",
        samples=[Sample(_pooled_shape(s), s.shapes[0], attrs=s.attrs) for s in samples]))
    backward.hidden_saved = ("self_sym_sizes",)  # (what the zeros for self take: not shown)
    return forward


@helper
def _call_avg_pool(grad, *attrs):
    return (AVG_POOL2D if len(attrs[0]) == 2 else AVG_POOL3D).apply((grad,), attrs)


AVG_POOL2D = _avg_pool_ops(2, AVG_SAMPLES)
AVG_POOL3D = _avg_pool_ops(3, AVG3D_SAMPLES)


# ------------------------------------------------------------------ the functions

def _check_size_ints(sizes, fn, position, none=False):
    """PyTorch's TypeError for an output_size element that is not an int (none: None allowed),
    in its binding's words (the first element's differ from the others')."""
    for i, s in enumerate(sizes):
        if not (none and s is None) and (not isinstance(s, (int, np.integer))
                                         or isinstance(s, bool)):
            if i == 0:
                raise TypeError(f"{fn}(): argument 'output_size' (position {position}) must be "
                                f"tuple of ints, but found element of type {type(s).__name__} "
                                "at pos 0")
            raise TypeError(f"{fn}(): argument 'output_size' failed to unpack the object at "
                            f"pos {i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")


def _ntuple(value, n):
    """torch.nn's _single/_pair: a list or tuple as it is, another value n times."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


def _pair(value, fn, arg, position, what, n=2):
    """kernel_size/stride/padding/dilation as n ints (PyTorch's TypeError for another type,
    its RuntimeError for another length)."""
    value = int_list(value, fn, arg, position)
    if len(value) not in (1, n):
        raise RuntimeError(f"{fn}: {arg} {what}")
    return value * n if len(value) == 1 else value


def _omitted(stride):
    return stride is None or isinstance(stride, (list, tuple)) and len(stride) == 0


def _pool_args(name, kernel_size, stride, padding, dilation=1):
    """The ints of max_pool2d/3d and avg_pool2d/3d (name), in their words."""
    n = int(name[-2])
    either = "" if name == "avg_pool3d" else "either "
    ints = f"tuple of {'two' if n == 2 else 'three'} ints"
    kernel = _pair(kernel_size, name, "kernel_size", 2,
                   f"must {either}be a single int, or a {ints}", n)
    stride = () if _omitted(stride) else _pair(
        stride, name, "stride", 3, f"must {either}be omitted, a single int, or a {ints}", n)
    padding = _pair(padding, name, "padding", 4, f"must {either}be a single int, or a {ints}", n)
    dilation = _pair(dilation, name, "dilation", 5, f"must be either a single int, or a {ints}",
                     n)
    return kernel, stride, padding, dilation


def _check_dtype(input, name, kinds, also=()):
    """PyTorch's kernels exist for these dtype kinds only (and the dtypes named in also)."""
    if input.dtype.np.kind not in kinds and input.dtype.np.name not in also:
        raise not_implemented(name, input.dtype)


def _max_pool(nd, op):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        kernel, stride, padding, dilation = _pool_args(f"max_pool{nd}d", kernel_size, stride,
                                                       padding, dilation)
        _check_dtype(input, f"max_pool{nd}d", "fiu")
        values, indices = op.apply((input,), (kernel, stride, padding, dilation,
                                              bool(ceil_mode)))
        return (values, indices) if return_indices else values
    max_pool.__name__ = max_pool.__qualname__ = f"max_pool{nd}d"
    return max_pool


max_pool2d = _max_pool(2, MAX_POOL2D)
max_pool3d = _max_pool(3, MAX_POOL3D)


def _one_d(value, fn, arg, position):
    """One int of a 1-d pooling, as (1, it) for the 2-d pooling it runs, or PyTorch's
    errors."""
    value = int_list(value, fn, arg, position)
    if len(value) == 1:
        return (1, value[0])
    if fn == "avg_pool1d":
        raise RuntimeError(f"avg_pool1d() argument '{arg}' should contain one int (got "
                           f"{len(value)})")
    kinds = ("None, an int, list of ints, or tuple of ints" if arg == "stride" else
             "an int, list of ints or tuple of ints")
    raise RuntimeError(f"max_pool1d() {arg} must be {kinds} of size 1 but got size "
                       f"{len(value)}")


def _check_max_pool1d(n, k, s, p, d, ceil_mode):
    """aten's check_max_pool1d, its order and words."""
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pooled_size(n, k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    _check_dtype(input, "max_pool2d", "fiu")
    kernel = _one_d(kernel_size, "max_pool1d", "kernel_size", 2)
    stride = () if _omitted(stride) else _one_d(stride, "max_pool1d", "stride", 3)
    padding = (0, _one_d(padding, "max_pool1d", "padding", 4)[1])
    dilation = _one_d(dilation, "max_pool1d", "dilation", 5)
    if not return_indices:  # (PyTorch's max_pool1d kernel and its checks; with indices, 2-d's)
        _check_max_pool1d(input.shape[-1], kernel[1], (stride or kernel)[1], padding[1],
                          dilation[1], ceil_mode)
    values, indices = MAX_POOL2D.apply((input.unsqueeze(-2),),
                                       (kernel, stride, padding, dilation, bool(ceil_mode)))
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is not None and (not isinstance(divisor_override, (int, np.integer))
                                         or isinstance(divisor_override, bool)):
        raise TypeError("avg_pool2d(): argument 'divisor_override' must be int, not "
                        f"{type(divisor_override).__name__}")
    _check_dtype(input, "avg_pool2d", "f", ("int64",))
    return AVG_POOL2D.apply((input,), (kernel, stride, padding, bool(ceil_mode),
                                       bool(count_include_pad), divisor_override))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    _check_1d_rank(input, "avg_pool1d")
    _check_dtype(input, "avg_pool2d", "f", ("int64",))
    kernel = _one_d(kernel_size, "avg_pool1d", "kernel_size", 2)
    stride = () if _omitted(stride) else _one_d(stride, "avg_pool1d", "stride", 3)
    return AVG_POOL2D.apply((input.unsqueeze(-2),), (
        kernel, stride, (0, _one_d(padding, "avg_pool1d", "padding", 4)[1]), bool(ceil_mode),
        bool(count_include_pad), None)).squeeze(-2)


def _check_1d_rank(input, name):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    kernel, stride, padding, _ = _pool_args("avg_pool3d", kernel_size, stride, padding)
    if divisor_override is not None and (not isinstance(divisor_override, (int, np.integer))
                                         or isinstance(divisor_override, bool)):
        raise TypeError("avg_pool3d(): argument 'divisor_override' must be int, not "
                        f"{type(divisor_override).__name__}")
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    _check_dtype(input, "avg_pool3d_out_frame", "", ("float32", "float64", "int64"))
    return AVG_POOL3D.apply((input,), (kernel, stride, padding, bool(ceil_mode),
                                       bool(count_include_pad), divisor_override))


def _lp_pool(nd, avg_pool, max_pool):
    """F.lp_pool<nd>d as PyTorch composes it: avg_pool of input ** p, then
    (sign(out) * relu(abs(out))) * (the window's size), ** (1 / p); max_pool of abs(input)
    for p = +-inf."""
    def lp_pool(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        window = kernel_size if nd == 1 else int(np.prod(_ntuple(kernel_size, nd)))
        if isinstance(norm_type, (int, float)):
            if norm_type == float("inf"):
                return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
            if norm_type == -float("inf"):
                return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if stride is not None:
            out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
        else:
            out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
        return (OPS["sign"](out) * OPS["relu"](OPS["abs"](out))).mul(window).pow(
            1.0 / norm_type)
    lp_pool.__name__ = lp_pool.__qualname__ = f"lp_pool{nd}d"
    return lp_pool


lp_pool1d = _lp_pool(1, avg_pool1d, max_pool1d)
lp_pool2d = _lp_pool(2, avg_pool2d, max_pool2d)
lp_pool3d = _lp_pool(3, avg_pool3d, max_pool3d)


_FUNCTIONS = [
    (max_pool1d, "max_pool1d", "the largest element of each window of an (N, C, L) input",
     ("max_pool2d_with_indices",), True),
    (max_pool2d, "max_pool2d", "the largest element of each window of an (N, C, H, W) input",
     ("max_pool2d_with_indices",), True),
    (avg_pool1d, "avg_pool1d", "the mean of each window of an (N, C, L) input",
     ("avg_pool2d.default",), True),
    (max_pool3d, "max_pool3d", "the largest element of each window of an (N, C, D, H, W) input",
     ("max_pool3d_with_indices",), True),
]
_FUNCTIONS += [
    (fn, fn.__name__, f"the p-norm of each window of an (N, C, {axes}) input (power-average "
     "pooling)", (f"avg_pool{max(nd, 2)}d.default", "pow.Tensor_Scalar", "sign", "relu", "abs",
                  "mul"), False)
    for nd, fn, axes in ((1, lp_pool1d, "L"), (2, lp_pool2d, "H, W"), (3, lp_pool3d, "D, H, W"))]
for _fn, _name, _doc, _via, _in_torch in _FUNCTIONS:
    _entry = register(Plain(_name, _fn, _doc, kind="pooling", via=_via,
                            signature=f"{_name}{inspect.signature(_fn)}"))
    _entry.function = _in_torch  # (torch.adaptive_avg_pool2d does not exist: F's only)
# (avg_pool2d is aten's name of the op too: an Overload, that the table's tests find it under)
_entry = register(Overload("avg_pool2d", lambda *args, **kwargs: avg_pool2d, [AVG_POOL2D],
                           "the mean of each window of an (N, C, H, W) input", method=False,
                           kind="pooling", signature=f"avg_pool2d{inspect.signature(avg_pool2d)}"))
_entry.function = False  # (torch.avg_pool2d does not exist: F.avg_pool2d only)
_entry = register(Overload("avg_pool3d", lambda *args, **kwargs: avg_pool3d, [AVG_POOL3D],
                           "the mean of each window of an (N, C, D, H, W) input", method=False,
                           kind="pooling", signature=f"avg_pool3d{inspect.signature(avg_pool3d)}"))
_entry.function = False
