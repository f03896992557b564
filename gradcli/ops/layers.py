"""Ops neural-network code uses (issue 20): meshgrid, repeat_interleave, ravel, type_as, unfold,
cdist, constant/reflection/replication/circular padding, one_hot and embedding (the
normalizations are in gradcli.ops.normalization).

Where PyTorch composes an op from others (meshgrid, repeat_interleave, ravel, type_as) it is
composed here the same way, so the graph holds PyTorch's nodes; the others are ops of their own
with PyTorch's node names, their derivatives written in Tensor operations (so that create_graph
differentiates them again).  torch.nn.functional's spellings (F.pad, F.layer_norm, ...) are in
gradcli.nn.functional."""

import math

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor, check_numel
from .derivatives import helper
from .registry import OPS, Composed, Op, Plain, Sample, register, wrap_dim


def _long(values):
    return Tensor._make(np.asarray(values, dtype=np.int64), None, 0, False)


# ------------------------------------------------------------------ meshgrid

MESHGRID_INDEXING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument. (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                     "ATen/native/TensorShape.cpp:4215.)")
_WARNED = set()  # (PyTorch's C++ warnings come once per process)


def _warn_once(message):
    if message not in _WARNED:
        _WARNED.add(message)
        import warnings
        warnings.warn(message, UserWarning, stacklevel=4)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d or 1-d tensors: output i is tensors[i] viewed along dim i and
    expanded to every tensor's length (indexing='xy' swaps the first two dims), as PyTorch
    makes them (ExpandBackward0 over ViewBackward0)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        _warn_once(MESHGRID_INDEXING)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError("meshgrid(): argument 'tensors' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: [ torch.{t.dtype.tensor_type}{{{','.join(map(str, t.shape))}}} ]")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    shape = tuple(t.numel() for t in refs)
    check_numel(shape)
    grids = []
    for i, t in enumerate(refs):
        view = [1] * len(refs)
        view[i] = -1
        grids.append(t.view(tuple(view)).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


register(Plain("meshgrid", meshgrid, "coordinate grids of 1-d tensors (indexing='ij' or 'xy')",
               kind="shape", signature="meshgrid(*tensors, indexing=None)",
               via=("view", "expand")))


# ------------------------------------------------------------------ repeat_interleave

def _repeat_indices(repeats):
    """torch.repeat_interleave(repeats): each index i repeated repeats[i] times (int64)."""
    r = repeats._data
    if r.dtype not in (np.int32, np.int64):
        raise not_implemented("repeat_interleave_cpu", r.dtype)
    if r.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    r = r.reshape(-1).astype(np.int64)
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    # (a float sum first: int64's wraps, and NumPy's repeat of counts whose sum wraps writes
    # past the array it made)
    check_numel((int(r.sum(dtype=np.float64)),))
    check_numel((int(r.sum()),))
    return _long(np.repeat(np.arange(r.size, dtype=np.int64), r))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along dim) repeated `repeats` times: an int (unsqueeze, expand,
    clone, flatten) or a tensor of counts (index_select), as PyTorch computes it."""
    if repeats is None:  # torch.repeat_interleave(repeats): the indices
        return _repeat_indices(input)
    x = input.flatten() if dim is None else input
    d = wrap_dim(0 if dim is None else dim, input.dim())
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.dim() == 0 or repeats.numel() == 1:
            repeats = repeats.reshape(1).expand((x.shape[d],) if x.dim() else (1,))
        elif repeats.numel() != (x.shape[d] if x.dim() else 1):
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size({d}) = "
                               f"{x.shape[d] if x.dim() else 1}")
        index = _repeat_indices(repeats)
        _check_output_size(output_size, index.numel())
        return x.index_select(d, index)
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if x.dim() == 0:
        x = x.reshape(1)
    shape = tuple(x.shape)
    _check_output_size(output_size, shape[d] * repeats)
    expanded = shape[:d + 1] + (repeats,) + shape[d + 1:]
    check_numel(expanded)
    copy = OPS["clone"].apply((x.unsqueeze(d + 1).expand(expanded),), ("contiguous",))
    return copy.flatten(d, d + 1)


def _check_output_size(output_size, size):
    if output_size is not None and output_size != size:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {size} but got "
                           f"{output_size}")


_entry = register(Plain(
    "repeat_interleave", repeat_interleave,
    "each element (or slice along dim) repeated repeats times",
    kind="shape", signature="repeat_interleave(input, repeats, dim=None, *, output_size=None)",
    via=("expand", "clone", "index_select")))
_entry.method = repeat_interleave


# ------------------------------------------------------------------ ravel, type_as

def _ravel(self):
    x = self if self._data.flags.c_contiguous else self.contiguous()
    return x.view(-1)


register(Composed("ravel", _ravel, via=("clone", "view"), doc="the elements as a 1-d tensor "
                  "(contiguous().view(-1))", samples=[Sample((2, 3))], kind="shape",
                  dtype="same"))

register(Composed(
    "type_as", lambda self, other: self.to(other.dtype), via=("to_dtype",),
    inputs=("self", "other"), edges=("self",), function=False, kind="shape", dtype="same",
    doc="self converted to other's dtype", samples=[Sample((2, 3), (3,))]))


# ------------------------------------------------------------------ unfold

def _unfold_shape(shape, dim, size, step):
    """(the dim, the result's shape: a 0-d tensor unfolds to a 1-d one)"""
    zero_dim = not shape
    shape = tuple(shape) or (1,)
    d = wrap_dim(dim, len(shape))
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > shape[d]:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {shape[d]} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (shape[d] - size) // step + 1
    if zero_dim:
        return d, (size,)
    return d, shape[:d] + (count,) + shape[d + 1:] + (size,)


def _unfold(a, dimension, size, step):
    for position, (name, value) in enumerate((("dimension", dimension), ("size", size),
                                              ("step", step)), 2):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError(f"unfold(): argument '{name}' (position {position}) must be int, "
                            f"not {type(value).__name__}")
    d, out_shape = _unfold_shape(a.shape, dimension, size, step)
    if a.ndim == 0:  # (its one window of size 0 or 1)
        return a.reshape(1)[:size]
    base = a
    strides = base.strides[:d] + (base.strides[d] * step,) + base.strides[d + 1:] + (
        base.strides[d],)
    return np.lib.stride_tricks.as_strided(base, out_shape, strides, writeable=True)


@helper
def _unfold_backward(grad, self_shape, dimension, size, step):
    """The windows' gradients added back where they came from (index_add along dimension)."""
    d, out_shape = _unfold_shape(self_shape, dimension, size, step)
    if not self_shape:
        return grad.reshape(()) if size else grad.new_zeros(())
    count = out_shape[d]
    index = (np.arange(count)[:, None] * step + np.arange(size)).reshape(-1)
    moved = grad.movedim(-1, d + 1).flatten(d, d + 1)
    full = tuple(self_shape) or (1,)
    out = OPS["index_add.default"].apply((grad.new_zeros(full), moved), (d, _long(index), 1))
    return out.reshape(tuple(self_shape))


register(Op(
    "unfold", _unfold, "self: _unfold_backward(grad, self_shape, dimension, size, step)",
    attrs=("dimension", "size", "step"), grad_fn="UnfoldBackward0", view=True, jvp="linear",
    dtype="same", kind="shape", function=False,
    doc="the slices of length size along dimension, every step elements, as a new last dim",
    samples=[Sample((2, 5), attrs={"dimension": 1, "size": 2, "step": 1}),
             Sample((5, 3), attrs={"dimension": 0, "size": 3, "step": 2}),
             Sample((), attrs={"dimension": 0, "size": 1, "step": 1})]))


# ------------------------------------------------------------------ cdist

def _cdist_check(a, b, p):
    if a.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {b.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                           f"X2: {b.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


def _cdist(a, b, p, compute_mode):
    _cdist_check(a, b, p)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    check_numel(batch + (a.shape[-2], b.shape[-2], a.shape[-1]))
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        out = (diff != 0).sum(-1).astype(a.dtype)
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(-1))
    elif math.isinf(p):
        out = diff.max(-1, initial=0)
    else:
        out = (diff ** p).sum(-1) ** (1 / p)
    return np.broadcast_to(out, batch + out.shape[-2:]).astype(a.dtype, copy=True)


@helper
def _cdist_local(x1, x2, p, result):
    """d result[..., i, j] / d x1[..., i, k], as (..., r1, r2, m) (PyTorch's _cdist_backward's
    factor: 0 where the distance is 0)."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = result.unsqueeze(-1)
    if p == 0:
        return diff * 0
    if p == 1:
        return diff.sign()
    if p == 2:
        local = diff / dist
    elif math.isinf(p):
        local = diff.sign() * (diff.abs() == dist)
    else:
        local = diff.sign() * diff.abs().pow(p - 1) / dist.pow(p - 1)
    return local.masked_fill(dist == 0, 0)


@helper
def _cdist_backward(grad, x1, x2, p, result):
    """The gradient of x1: grad[..., i, j] times the local derivative, summed over j."""
    return (grad.unsqueeze(-1) * _cdist_local(x1, x2, p, result)).sum(-2).sum_to_size(
        tuple(x1.shape))


register(Op(
    "_cdist", _cdist,
    ("x1: _cdist_backward(grad, x1, x2, p, result)",
     "x2: _cdist_backward(grad.mT, x2, x1, p, result.mT)"),
    inputs=("x1", "x2"), attrs=(("p", 2.0), ("compute_mode", None)), grad_fn="CdistBackward0",
    jvp=("x1: (_cdist_local(x1, x2, p, result) * x1_t.unsqueeze(-2)).sum(-1)",
         "x2: -(_cdist_local(x1, x2, p, result) * x2_t.unsqueeze(-3)).sum(-1)"),
    kind="reduction", public=False, method=False,
    doc="the p-norm distance between each row of x1 and each row of x2",
    samples=[Sample((3, 2), (4, 2)), Sample((2, 3, 2), (3, 2), attrs={"p": 1.0}),
             Sample((3, 2), (2, 2), attrs={"p": 3.0}), Sample((3, 2), (2, 2),
                                                           attrs={"p": float("inf")})]))


def _euclidean_dist(a, b):
    """PyTorch's _euclidean_dist: [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T, clamped at 0, root."""
    a_norm = (a * a).sum(-1, keepdims=True)
    b_norm = (b * b).sum(-1, keepdims=True)
    a_ = np.concatenate([a * -2, a_norm, np.ones_like(a_norm)], -1)
    b_ = np.concatenate([b, np.ones_like(b_norm), b_norm], -1)
    return np.sqrt(np.maximum(a_ @ np.swapaxes(b_, -1, -2), 0))


@helper
def _euclidean_dist_backward(grad, x1, x2, result):
    ratio = (grad / result).masked_fill(result == 0, 0)
    return (x1 * ratio.sum(-1, True) - ratio.matmul(x2),
            x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1))


@helper
def _over_distance(numerator, result):
    return (numerator / result).masked_fill(result == 0, 0)


register(Op(
    "_euclidean_dist", _euclidean_dist,
    "x1, x2: _euclidean_dist_backward(grad, x1, x2, result)",
    jvp=("x1: _over_distance((x1 * x1_t).sum(-1, True) - x1_t.matmul(x2.mT), result)",
         "x2: _over_distance((x2 * x2_t).sum(-1).unsqueeze(-2) - x1.matmul(x2_t.mT), result)"),
    inputs=("x1", "x2"), grad_fn="EuclideanDistBackward0", kind="reduction", public=False,
    method=False, doc="the Euclidean distances of rows through one matrix product",
    samples=[Sample((3, 2), (4, 2)), Sample((2, 3, 2), (2, 4, 2))]))

_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between the rows of x1 and those of x2: CdistBackward0, or for p=2
    with more than 25 rows (or compute_mode='use_mm_for_euclid_dist') through a matrix product
    (EuclideanDistBackward0), as PyTorch chooses."""
    if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool):
        raise TypeError(f"cdist(): argument 'p' (position 3) must be float, not "
                        f"{type(p).__name__}")
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _COMPUTE_MODES[compute_mode]
    _cdist_check(x1._data, x2._data, p)
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if not (x1.numel() and x2.numel() and p == 2 and (mode == 1 or mode == 0 and (
            r1 > 25 or r2 > 25))):
        return OPS["_cdist"].apply((x1, x2), (p, compute_mode))
    batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    check_numel(batch + (r1, r2))
    if math.prod(batch) != 1:
        x1, x2 = ((x.expand(batch + tuple(x.shape[-2:])).contiguous()
                   .view((-1,) + tuple(x.shape[-2:]))) for x in (x1, x2))
    return OPS["_euclidean_dist"](x1, x2).view(batch + (r1, r2))


register(Plain("cdist", cdist, "the p-norm distance between each row of x1 and each row of x2",
               kind="reduction", via=("_cdist", "_euclidean_dist"),
               signature="cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_"
               "necessary')"))


# ------------------------------------------------------------------ padding

def _pad_pairs(pad, ndim):
    """F.pad's flat (left, right, ...) list, last dim first, as NumPy's pad widths."""
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{ndim}")
    widths = [(0, 0)] * ndim
    for k in range(len(pad) // 2):
        widths[ndim - 1 - k] = (int(pad[2 * k]), int(pad[2 * k + 1]))
    return widths


def _constant_pad(a, pad, value):
    widths = _pad_pairs(pad, a.ndim)
    shape = [s + lo + hi for s, (lo, hi) in zip(a.shape, widths)]
    if any(s < 0 for s in shape):
        raise RuntimeError("narrow(): length must be non-negative.")
    check_numel(shape)
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in zip(a.shape, widths))
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    return np.pad(a[crop], grow, constant_values=value)


@helper
def _constant_pad_backward(grad, pad):
    return OPS["constant_pad_nd"].apply((grad,), (tuple(-p for p in pad), 0))


register(Op(
    "constant_pad_nd", _constant_pad, "self: _constant_pad_backward(grad, pad)",
    attrs=("pad", ("value", 0)), grad_fn="ConstantPadNdBackward0",
    jvp="self: constant_pad_nd(self_t, pad, 0)", dtype="same",
    kind="shape", method=False, doc="self padded with value (pad: left, right pairs, last dim "
    "first; negative pads crop)",
    samples=[Sample((2, 3), attrs={"pad": (1, 2)}),
             Sample((2, 3), attrs={"pad": (1, 0, -1, 2), "value": 1.5})]))

_PAD_MODES = {"reflect": ("reflect", "ReflectionPad"), "replicate": ("edge", "ReplicationPad")}


def _pad_source(shape, widths, mode):
    """The flat index of the input element each element of a reflect or replicate pad copies
    (a negative width crops, as PyTorch's kernels do: output i reads input i - left, reflected
    or clamped back into the input)."""
    index = np.zeros((), np.int64)
    for n, (lo, hi) in zip(shape, widths):
        i = np.arange(n + lo + hi) - lo
        i = np.clip(i, 0, n - 1) if mode == "edge" else np.abs(i)
        if mode == "reflect":
            i = np.where(i > n - 1, 2 * (n - 1) - i, i)
        index = index[..., None] * n + i
    return index


def _index_pad(numpy_mode, spatial):
    """The forward of a reflection or replication pad: each output element is an input
    element (_pad_source)."""
    def forward(a, padding):
        widths = _pad_pairs(padding, a.ndim)
        if 0 in a.shape[a.ndim - spatial - 1:]:  # (nothing to reflect or replicate)
            raise RuntimeError(
                f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 "
                "batch size and other non-zero dimensions for input, but got: "
                f"{list(a.shape)}")
        if numpy_mode == "reflect":
            for j in range(spatial):  # (the last dim first, PyTorch's argument numbers)
                d = a.ndim - 1 - j
                lo, hi = widths[d]
                if lo >= a.shape[d] or hi >= a.shape[d]:
                    raise RuntimeError(
                        f"Argument #{4 + 2 * j}: Padding size should be less than the "
                        f"corresponding input dimension, but got: padding ({lo}, {hi}) at "
                        f"dimension {d} of input {list(a.shape)}")
        shape = [s + lo + hi for s, (lo, hi) in zip(a.shape, widths)]
        if spatial == 1 and shape[-1] < 1:
            raise RuntimeError(f"input (W: {a.shape[-1]}) is too small. Calculated output W: "
                               f"{shape[-1]}")
        if min(shape) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                               f"{shape}")
        check_numel(shape)
        return a.reshape(-1)[_pad_source(a.shape, widths, numpy_mode)]
    return forward


def _index_pad_backward(numpy_mode):
    """The backward of a reflection or replication pad: the output's gradients added into the
    input elements they were copied from, in the order of the outputs (PyTorch's kernel's;
    self read for its shape: PyTorch's node saves it)."""
    def backward(grad_output, self, padding):
        index = _pad_source(self.shape, _pad_pairs(padding, self.ndim), numpy_mode)
        if index.shape != grad_output.shape:
            raise RuntimeError(f"gradOutput width unexpected. Expected: {index.shape[-1]}, "
                               f"Got: {grad_output.shape[-1]}")
        out = np.zeros(self.size, grad_output.dtype)
        np.add.at(out, index.reshape(-1), grad_output.reshape(-1))
        return out.reshape(self.shape)
    return backward


for _mode, (_numpy_mode, _node) in _PAD_MODES.items():
    for _k in (1, 2, 3):
        _name = f"{_node.lower().replace('pad', '_pad')}{_k}d"
        _sample = Sample((1, 2) + (3,) * _k, attrs={"padding": (2, 1) * _k})
        register(Op(
            _name, _index_pad(_numpy_mode, _k),
            f"self: {_name}_backward(grad, self, padding)",
            attrs=("padding",), grad_fn=f"{_node}{_k}DBackward0", jvp="linear",
            dtype="same", kind="shape", method=False, public=False,
            doc=f"self padded by {_mode} along its last {_k} dims", samples=[_sample]))
        register(Op(
            f"{_name}_backward", _index_pad_backward(_numpy_mode),
            f"grad_output: {_name}(grad, padding)", inputs=("grad_output", "self"),
            attrs=("padding",), grad_fn=f"{_node}{_k}DBackwardBackward0", jvp="linear",
            method=False, public=False, kind="backward", doc=f"the gradient of {_name}",
            samples=[Sample((1, 2) + (6,) * _k, (1, 2) + (3,) * _k, attrs=_sample.attrs)]
        )).hidden_saved = ("self",)  # (PyTorch's node saves the padding only)

PAD_SIZES = ("\nSupported combinations for non-constant padding:\n"
             "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
             "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
             "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: constant (ConstantPadNdBackward0), reflect or replicate
    (ReflectionPad<k>DBackward0, ReplicationPad<k>DBackward0) padding."""
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    if mode == "constant":
        return OPS["constant_pad_nd"].apply((input,), (tuple(pad), 0 if value is None else value))
    if mode not in _PAD_MODES and mode != "circular":
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if len(pad) % 2 or k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                  f"{input.dim()}D input tensor.{PAD_SIZES}")
    if mode == "circular":
        return _pad_circular(input, tuple(pad))
    node = _PAD_MODES[mode][1]
    return OPS[f"{node.lower().replace('pad', '_pad')}{k}d"].apply((input,), (tuple(pad),))


def _slice(t, dim, start, end):
    return t.narrow(dim, start, end - start)


def _pad_circular(input, pad):
    """Circular padding as PyTorch composes it: the input copied into the middle of a new
    tensor, then each padded dim's ends copied from the other side (CopySlices nodes)."""
    in_shape = tuple(input.shape)
    ndim, k = len(in_shape), len(pad) // 2
    out_shape = list(in_shape)
    for i in range(k):
        left, right = pad[2 * (k - i - 1)], pad[2 * (k - i - 1) + 1]
        size = in_shape[ndim - k + i]
        out_shape[ndim - k + i] = size + left + right
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[ndim - k + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    check_numel(out_shape)
    out = input.new_empty(tuple(out_shape))
    out_part, in_part = out, input
    for i in range(k):
        dim, left, right = ndim - i - 1, pad[2 * i], pad[2 * i + 1]
        out_part = _slice(out_part, dim, max(left, 0), out_shape[dim] - max(right, 0))
        in_part = _slice(in_part, dim, max(-left, 0), in_shape[dim] - max(-right, 0))
    out_part.copy_(in_part)
    for i in range(k):
        dim, left, right = ndim - i - 1, pad[2 * i], pad[2 * i + 1]
        if left > 0:
            end = out_shape[dim] - max(right, 0)
            _slice(out, dim, 0, left).copy_(_slice(out, dim, end - left, end))
        if right > 0:
            start = max(left, 0)
            _slice(out, dim, out_shape[dim] - right, out_shape[dim]).copy_(
                _slice(out, dim, start, start + right))
    return out


def _functional(name, fn, doc, signature, via=()):
    """A function of torch.nn.functional only (no torch.<name>): in the table for `gradcli ops`,
    which lists it as nn.functional.<name>, but not in the torch namespace."""
    entry = register(Plain(name, fn, doc, kind="nn", signature=signature, via=via))
    entry.public = False
    return entry


_functional("pad", pad, "input padded: constant (value), reflect or replicate",
            "pad(input, pad, mode='constant', value=None)",
            via=("constant_pad_nd", "reflection_pad1d", "replication_pad1d"))


# ------------------------------------------------------------------ one_hot, embedding

def one_hot(tensor, num_classes=-1):
    """Class indices as rows of 0s with a 1 at the index (int64; no gradient)."""
    a = tensor._data
    if a.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes < 0 or a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    check_numel(a.shape + (num_classes,))
    check_numel((num_classes,))  # (the row compared with: an empty input's too)
    out = _long(np.arange(num_classes) == a[..., None])
    out._counter[0] = 2  # (PyTorch's is zeroed, then scattered into, in place)
    return out


_functional("one_hot", one_hot, "class indices as rows of 0s with a 1 at the index (int64)",
            "one_hot(tensor, num_classes=-1)")


def _indices(indices, name="embedding"):
    t = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if t.dtype not in (np.int64, np.int32):
        kind = dtypes.from_numpy_dtype(t.dtype).tensor_type
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch."
                           f"{kind} instead (while checking arguments for {name})")
    return t


def _embedding(w, indices, padding_idx, scale_grad_by_freq, sparse):
    if w.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    t = _indices(indices)
    if t.size and (t.min() < -w.shape[0] or t.max() >= w.shape[0]) or t.size and t.min() < 0:
        raise IndexError("index out of range in self")
    check_numel(t.shape + w.shape[1:])
    return w[t]


@helper
def _embedding_backward(grad, weight_shape, indices, padding_idx, scale_grad_by_freq):
    """The rows' gradients added into the rows they were read from (none into padding_idx;
    scaled by 1/count with scale_grad_by_freq)."""
    t = _indices(indices).reshape(-1).astype(np.int64)
    g = grad.reshape((-1, weight_shape[1]))
    if scale_grad_by_freq:  # (by 1/count, rounded to grad's dtype, as PyTorch scales)
        counts = np.bincount(t, minlength=weight_shape[0])[t]
        g = g * Tensor._make((1.0 / counts[:, None]).astype(grad._data.dtype), None, 0, False)
    if padding_idx >= 0:
        keep = t != padding_idx
        g = g * Tensor._make(keep[:, None].astype(grad._data.dtype), None, 0, False)
    return OPS["index_add.default"].apply((grad.new_zeros(tuple(weight_shape)), g),
                                          (0, _long(t), 1))


register(Op(
    "embedding", _embedding,
    "weight: _embedding_backward(grad, weight_shape, indices, padding_idx, scale_grad_by_freq)",
    inputs=("weight",), attrs=("indices", ("padding_idx", -1), ("scale_grad_by_freq", False),
                               ("sparse", False)),
    grad_fn="EmbeddingBackward0", jvp="linear", dtype="same", kind="shape", method=False,
    doc="the rows of weight at indices",
    samples=[Sample((4, 3), attrs={"indices": [[0, 2], [3, 2]]}),
             Sample((4, 2), attrs={"indices": [1, 1, 0]})]))
# (padding_idx and scale_grad_by_freq change the gradient from the derivative on purpose:
# tests/nn/test_layers_oracle.py checks them against PyTorch)
OPS["embedding"].hidden_saved = ("weight_sym_sizes",)  # (PyTorch's node: the row count only)
OPS["embedding"].extra_saved = {"_saved_sparse": lambda node: node._attrs[3],
                                "_saved_weight_sym_argsize_0": lambda node: node._meta[0][0]}


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """The rows of weight that indices read scaled in place to norm at most max_norm."""
    w = weight._data
    if w.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {w.ndim}-dimensional tensor "
                           "for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    for row in np.unique(_indices(indices).reshape(-1)):
        if not -w.shape[0] <= row < w.shape[0]:  # (PyTorch selects each row: -1 is the last)
            raise IndexError(f"select(): index {row} out of range for tensor of size "
                             f"{list(w.shape)} at dimension 0")
        norm = float(OPS["norm"](Tensor._make(w[row], None, 0, False), norm_type))
        if norm > max_norm:  # (the scale in double, the product in weight's dtype)
            w[row] *= w.dtype.type(max_norm / (norm + 1e-7))
    weight._counter[0] += 1
    return weight


# ------------------------------------------------------------------ packed sequences

def _packed_rows(lengths, steps, batch):
    """The rows of a time-major (steps, batch, *) input, flattened to (steps * batch, *), that
    _pack_padded_sequence takes, in its order: each step's first batch_sizes[t] sequences
    (steps past the input's own are left out, as PyTorch's slicing leaves them), and the
    batch sizes."""
    lengths = np.asarray(lengths, np.int64)
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    rows = [t * batch + b for t in range(min(steps, len(batch_sizes)))
            for b in range(batch_sizes[t])]
    return np.asarray(rows, np.int64), batch_sizes


def _check_lengths(lengths, batch):
    """_pack_padded_sequence's checks of lengths (PackedSequence.cpp), in its order."""
    if len(lengths) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")


def _pack_padded(a, lengths, batch_first):
    """_pack_padded_sequence's data: the sequences' steps one after the other, each step's
    real elements (the sequences sorted by decreasing length) in batch order."""
    if batch_first:
        a = np.swapaxes(a, 0, 1)
    if a.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if a.size == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    _check_lengths(lengths, a.shape[1])
    rows, _ = _packed_rows(lengths, a.shape[0], a.shape[1])
    return a.reshape((a.shape[0] * a.shape[1],) + a.shape[2:])[rows]


@helper
def _pack_padded_sequence_backward(grad, input_shape, lengths, batch_first):
    """PyTorch's _pack_padded_sequence_backward: zeros of the input's shape with each packed
    row written back at its step and sequence."""
    shape = list(input_shape)
    if batch_first:
        shape[0], shape[1] = shape[1], shape[0]
    rows, _ = _packed_rows(lengths, shape[0], shape[1])
    flat = grad.new_zeros([shape[0] * shape[1]] + shape[2:]).index_copy(
        0, Tensor._make(rows, None, 0, False), grad)
    out = flat.reshape(shape)
    return out.transpose(0, 1) if batch_first else out


register(Op(
    "_pack_padded_sequence", _pack_padded,
    "input: _pack_padded_sequence_backward(grad, input_shape, lengths, batch_first)",
    inputs=("input",), attrs=("lengths", "batch_first"), grad_fn="PackPaddedSequenceBackward0",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="the real steps of padded sequences (sorted by decreasing length), step after step",
    samples=[Sample((4, 3, 2), attrs={"lengths": (4, 2, 1), "batch_first": False}),
             Sample((2, 3), attrs={"lengths": (3, 3), "batch_first": True}),
             Sample((3, 1), attrs={"lengths": (3,), "batch_first": False})]))
OPS["_pack_padded_sequence"].hidden_saved = ("lengths",)  # (PyTorch's saves the batch sizes)
OPS["_pack_padded_sequence"].extra_saved = {"_saved_result1": lambda node: Tensor._make(
    _packed_rows(node._attrs[0], 0, 0)[1], None, 0, False)}
