"""Ops neural-network code uses (issue 20): meshgrid, repeat_interleave, ravel, type_as, unfold,
cdist, constant/reflection/replication padding, embedding, layer_norm and batch_norm.

Where PyTorch composes an op from others (meshgrid, repeat_interleave, ravel, type_as) it is
composed here the same way, so the graph holds PyTorch's nodes; the others are ops of their own
with PyTorch's node names, their derivatives written in Tensor operations (so that create_graph
differentiates them again).  torch.nn.functional's spellings (F.pad, F.layer_norm, ...) are in
gradcli.nn.functional."""

import math

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Tensor, check_numel
from .derivatives import helper
from .numerics import fused
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
    if r.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype.kind not in "iu":
        raise NotImplementedError('"repeat_interleave_cpu" not implemented for '
                                  f"'{dtypes.from_numpy_dtype(r.dtype).short}'")
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


# ------------------------------------------------------------------ layer_norm, batch_norm

def _moments(x, dims):
    if not math.prod(x.shape[d] for d in dims):  # (NaN, as PyTorch's, without NumPy's warning)
        nan = np.full([1 if d in dims else n for d, n in enumerate(x.shape)], np.nan, x.dtype)
        return nan, nan
    mean = x.mean(axis=dims, keepdims=True)
    centred = x - mean
    return mean, (centred * centred).mean(axis=dims, keepdims=True)


def _normalized_dims(shape, normalized_shape):
    k = len(normalized_shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if tuple(shape[len(shape) - k:]) != tuple(normalized_shape) or len(shape) < k:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(shape)}")
    return tuple(range(len(shape) - k, len(shape)))


def _check_affine(name, param, normalized_shape):
    if isinstance(param, np.ndarray) and tuple(param.shape) != tuple(normalized_shape):
        raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                           f"{name} of shape {list(param.shape)} and normalized_shape = "
                           f"{list(normalized_shape)}")


# PyTorch's CPU layer_norm takes each row's mean and variance with RowwiseMoments
# (ATen/native/cpu/moments_utils.h): Welford's updates on vectors of LANES elements, in chunks
# of 16 vectors merged as a cascade, then the lanes and the leftover elements merged one by one,
# its kernels compiled with contraction (a * b + c fused where the code writes it so)
LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
_CHUNK = 16


def _merge(count, mean, m2, add_count, add_mean, add_m2, vector):
    """AddMoments (vector: AddMomentsVec) of (add_count, add_mean, add_m2) into
    (count, mean, m2)."""
    total = count + add_count
    t = mean.dtype.type
    c = t(0) if total == 0 else t(add_count) / t(total)
    delta = add_mean - mean
    if vector:
        return total, mean + c * delta, fused(delta * delta * c, t(count), m2 + add_m2)
    return total, fused(c, delta, mean), m2 + fused(delta * delta * c, t(count), add_m2)


def _chunk_moments(vectors):
    """(count, mean, m2) of each chunk of _CHUNK vectors (the last may be shorter): Welford's
    updates vector by vector within a chunk, all chunks at once (they are independent until
    the cascade merges them)."""
    t = vectors.dtype.type
    n_rows, n, lanes = vectors.shape
    full = n // _CHUNK
    out = []
    for part, count in ((vectors[:, :full * _CHUNK].reshape(n_rows, full, _CHUNK, lanes), _CHUNK),
                        (vectors[:, full * _CHUNK:].reshape(n_rows, 1, n - full * _CHUNK, lanes),
                         n - full * _CHUNK)):
        if not count or not part.shape[1]:
            continue
        mean = m2 = np.zeros((n_rows, part.shape[1], lanes), vectors.dtype)
        for j in range(count):
            x = part[:, :, j]
            delta = x - mean
            mean = fused(delta, t(1) / t(j + 1), mean)
            m2 = fused(delta, x - mean, m2)
        out += [(count, mean[:, k], m2[:, k]) for k in range(part.shape[1])]
    return out


def rowwise_moments(rows):
    """Each row's mean and (biased) variance, rounded as PyTorch's RowwiseMoments rounds them
    (to the bit on x86's AVX2/AVX512 kernels, in the cases tests/ops/test_layers_oracle.py
    checks)."""
    t = rows.dtype.type
    lanes = LANES[rows.dtype]
    n_rows, size = rows.shape
    n = size // lanes
    chunks = -(-n // _CHUNK)
    depth = 1 if chunks <= 2 else (chunks - 1).bit_length()
    zero = np.zeros((n_rows, lanes), rows.dtype)
    stack = [[0, zero, zero] for _ in range(depth)]
    chunk_moments = _chunk_moments(rows[:, :n * lanes].reshape(n_rows, n, lanes))
    for i, (count, mean, m2) in enumerate(chunk_moments):
        stack[0] = list(_merge(*stack[0], count, mean, m2, True))
        mask, j = i + 1, 1
        while j < depth and mask & 1 == 0:
            stack[j] = list(_merge(*stack[j], *stack[j - 1], True))
            stack[j - 1] = [0, zero, zero]
            mask, j = mask >> 1, j + 1
    for j in range(1, depth):
        stack[0] = list(_merge(*stack[0], *stack[j], True))
    count, mean, m2 = 0, np.zeros(n_rows, rows.dtype), np.zeros(n_rows, rows.dtype)
    for i in range(n * lanes, size):
        delta = rows[:, i] - mean
        count += 1
        mean = mean + delta / t(count)
        m2 = m2 + delta * (rows[:, i] - mean)
    for lane in range(lanes):
        count, mean, m2 = _merge(count, mean, m2, n, stack[0][1][:, lane], stack[0][2][:, lane],
                                 False)
    return mean, m2 / t(size)


def _layer_norm(x, weight, bias, normalized_shape, eps):
    """(x - mean) * rstd * weight + bias per row of the normalized dims, rounded as PyTorch's
    CPU kernel rounds it: its moments (rowwise_moments), rstd = 1 / sqrt(var + eps), and one
    fused multiply-add for the weight and bias."""
    dims = _normalized_dims(x.shape, tuple(normalized_shape))
    _check_affine("weight", weight, normalized_shape)
    _check_affine("bias", bias, normalized_shape)
    if x.dtype not in LANES or x.size == 0:
        mean, var = _moments(x, dims)
        return (x - mean) / np.sqrt(var + eps) * weight + bias
    rows = np.ascontiguousarray(x).reshape(-1, math.prod(normalized_shape))
    mean, var = rowwise_moments(rows)
    t = x.dtype.type
    normalized = (rows - mean[:, None]) * (t(1) / np.sqrt(var + t(eps)))[:, None]
    if isinstance(weight, np.ndarray) or isinstance(bias, np.ndarray):
        normalized = fused(normalized, np.reshape(weight, -1), np.reshape(bias, -1))
    return normalized.reshape(x.shape)


@helper
def _norm_backward(grad, input, weight, dims, eps, affine_shape, param_dims, stats=None):
    """The gradients of (input - mean) / sqrt(var + eps) * weight + bias for input, weight and
    bias: mean and var over dims (of the input, or the given running stats), weight and bias
    of affine_shape summed over param_dims; in Tensor operations, so that they differentiate
    again."""
    if stats is None:
        mean = input.mean(dims, keepdim=True)
        centred = input - mean
        rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    else:
        centred = input - stats[0]
        rstd = (stats[1] + eps).rsqrt()
    normalized = centred * rstd
    affine = isinstance(weight, Tensor)
    scaled = grad * weight.reshape(affine_shape) if affine else grad
    if stats is None:
        grad_input = rstd * (scaled - scaled.mean(dims, keepdim=True)
                             - normalized * (scaled * normalized).mean(dims, keepdim=True))
    else:
        grad_input = scaled * rstd
    shape = tuple(weight.shape) if affine else (-1,)
    grad_weight = (grad * normalized).sum(param_dims).reshape(shape) if affine else None
    grad_bias = grad.sum(param_dims).reshape(shape) if param_dims else grad.reshape(shape)
    return grad_input, grad_weight, grad_bias


@helper
def _norm_jvp(t, input, dims, eps, stats=None):
    """The tangent of (input - mean) / sqrt(var + eps) along input's tangent t."""
    if stats is not None:
        return t * (stats[1] + eps).rsqrt()
    mean = input.mean(dims, keepdim=True)
    rstd = ((input - mean).pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    normalized = (input - mean) * rstd
    centred_t = t - t.mean(dims, keepdim=True)
    return rstd * (centred_t - normalized * (normalized * centred_t).mean(dims, keepdim=True))


def _normalized(input, dims, eps, stats=None):
    if stats is not None:
        return (input - stats[0]) * (stats[1] + eps).rsqrt()
    mean = input.mean(dims, keepdim=True)
    return (input - mean) * ((input - mean).pow(2).mean(dims, keepdim=True) + eps).rsqrt()


def _layer_dims(input, normalized_shape):
    return tuple(range(input.dim() - len(normalized_shape), input.dim()))


@helper
def _layer_norm_jvp(t, input, weight, normalized_shape, eps):
    out = _norm_jvp(t, input, _layer_dims(input, normalized_shape), eps)
    return out * weight if isinstance(weight, Tensor) else out


@helper
def _layer_norm_weight_jvp(t, input, normalized_shape, eps):
    return _normalized(input, _layer_dims(input, normalized_shape), eps) * t


@helper
def _layer_norm_backward(grad, input, weight, normalized_shape, eps):
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    shape = (1,) * (input.dim() - len(dims)) + tuple(normalized_shape)
    return _norm_backward(grad, input, weight, dims, eps, shape, tuple(range(dims[0])))


_LAYER_NORM = register(Op(
    "native_layer_norm", _layer_norm,
    "input, weight, bias: _layer_norm_backward(grad, input, weight, normalized_shape, eps)",
    inputs=("input", "weight", "bias"), attrs=("normalized_shape", ("eps", 1e-5)),
    grad_fn="NativeLayerNormBackward0",
    jvp=("input: _layer_norm_jvp(input_t, input, weight, normalized_shape, eps)",
         "weight: _layer_norm_weight_jvp(weight_t, input, normalized_shape, eps)",
         "bias: bias_t"), kind="reduction", method=False,
    public=False, doc="(input - mean) / sqrt(var + eps) * weight + bias over the last dims",
    samples=[Sample((2, 3), (3,), (3,), attrs={"normalized_shape": (3,)}),
             Sample((2, 2, 3), (2, 3), (2, 3), attrs={"normalized_shape": (2, 3), "eps": 0.1})]))


def _saved_stats(dims_of, shape_of):
    """`_saved_result1` and `_saved_result2` (the mean and 1/std PyTorch's forward returns and
    its node saves), computed again from the saved input."""
    def stats(node, k):
        x = node._saved_input._data
        eps = node._attrs[-1]
        dims, shape = dims_of(node, x), shape_of(node, x)
        if dims is None:
            return Tensor._make(np.empty(0, x.dtype), None, 0, False)
        mean, var = _moments(x, dims)
        value = mean if k == 1 else 1 / np.sqrt(var + eps)
        return Tensor._make(value.reshape(shape).astype(x.dtype), None, 0, False)
    return {"_saved_result1": lambda node: stats(node, 1),
            "_saved_result2": lambda node: stats(node, 2)}


_LAYER_NORM.hidden_saved = ("eps",)
_LAYER_NORM.extra_saved = _saved_stats(
    lambda node, x: tuple(range(x.ndim - len(node._attrs[0]), x.ndim)),
    lambda node, x: x.shape[:x.ndim - len(node._attrs[0])] + (1,) * len(node._attrs[0]))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Normalization over the last len(normalized_shape) dims (NativeLayerNormBackward0)."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _LAYER_NORM.apply((input, 1 if weight is None else weight,
                              0 if bias is None else bias), (tuple(normalized_shape), eps))


register(Plain("layer_norm", layer_norm, "normalization over the last dims, then weight and "
               "bias", kind="reduction", via=("native_layer_norm",),
               signature="layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, "
               "cudnn_enable=True)"))


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    dims = (0,) + tuple(range(2, x.ndim))
    shape = _channel_shape(x)
    if training:  # (the running stats are written in place, their versions kept, as PyTorch)
        mean, var = _moments(x, dims)
        n = x.size // x.shape[1] if x.shape[1] else 0
        if running_mean is not None:
            m = running_mean._data
            m[...] = (momentum * mean.reshape(-1) + (1 - momentum) * m).astype(m.dtype)
        if running_var is not None:
            v = running_var._data
            unbiased = var.reshape(-1) * (n / (n - 1)) if n > 1 else var.reshape(-1) * np.inf
            v[...] = (momentum * unbiased + (1 - momentum) * v).astype(v.dtype)
    else:
        mean = running_mean._data.reshape(shape)
        var = running_var._data.reshape(shape)
    w = weight.reshape(shape) if isinstance(weight, np.ndarray) else weight
    b = bias.reshape(shape) if isinstance(bias, np.ndarray) else bias
    return ((x - mean) / np.sqrt(var + eps) * w + b).astype(x.dtype)


def _batch_layout(input, running_mean, running_var, training):
    """(the dims batch_norm reduces, the channels' shape, the running stats in eval)"""
    dims = (0,) + tuple(range(2, input.dim()))
    shape = _channel_shape(input._data)
    stats = None if training else (running_mean.detach().reshape(shape),
                                   running_var.detach().reshape(shape))
    return dims, shape, stats


@helper
def _batch_norm_backward(grad, input, weight, running_mean, running_var, training, eps):
    dims, shape, stats = _batch_layout(input, running_mean, running_var, training)
    return _norm_backward(grad, input, weight, dims, eps, shape, dims, stats)


@helper
def _batch_norm_jvp(t, input, weight, running_mean, running_var, training, eps):
    dims, shape, stats = _batch_layout(input, running_mean, running_var, training)
    out = _norm_jvp(t, input, dims, eps, stats)
    return out * weight.reshape(shape) if isinstance(weight, Tensor) else out


@helper
def _batch_norm_weight_jvp(t, input, running_mean, running_var, training, eps):
    dims, shape, stats = _batch_layout(input, running_mean, running_var, training)
    return _normalized(input, dims, eps, stats) * t.reshape(shape)


@helper
def _batch_norm_bias_jvp(t, input):
    return t.reshape(_channel_shape(input._data)).expand(tuple(input.shape))


_RUNNING_MEAN = Tensor._make(np.array([0.5, -1.0, 0.0]), None, 0, False)
_RUNNING_VAR = Tensor._make(np.array([1.0, 2.0, 0.5]), None, 0, False)
_BATCH_NORM = register(Op(
    "native_batch_norm", _batch_norm,
    "input, weight, bias: _batch_norm_backward(grad, input, weight, running_mean, running_var, "
    "training, eps)",
    inputs=("input", "weight", "bias"),
    attrs=("running_mean", "running_var", "training", "momentum", "eps"),
    grad_fn="NativeBatchNormBackward0",
    jvp=("input: _batch_norm_jvp(input_t, input, weight, running_mean, running_var, training, "
         "eps)",
         "weight: _batch_norm_weight_jvp(weight_t, input, running_mean, running_var, training, "
         "eps)",
         "bias: _batch_norm_bias_jvp(bias_t, input)"), kind="reduction", method=False,
    public=False, doc="(input - mean) / sqrt(var + eps) * weight + bias per channel (dim 1)",
    samples=[Sample((4, 3), (3,), (3,), attrs={"running_mean": None, "running_var": None,
                                               "training": True, "momentum": 0.1,
                                               "eps": 1e-5}),
             Sample((2, 3, 2), (3,), (3,), attrs={"running_mean": None, "running_var": None,
                                                  "training": True, "momentum": 0.1,
                                                  "eps": 0.1}),
             Sample((2, 3), (3,), (3,), attrs={"running_mean": _RUNNING_MEAN,
                                               "running_var": _RUNNING_VAR, "training": False,
                                               "momentum": 0.1, "eps": 1e-5})]))


_BATCH_NORM.extra_saved = _saved_stats(  # (in eval mode, empty: PyTorch's are)
    lambda node, x: (0,) + tuple(range(2, x.ndim)) if node._attrs[2] else None,
    lambda node, x: (x.shape[1],))


def _check_batch_norm_parameters(input, weight, bias, running_mean, running_var):
    """The running stats, written in place outside autograd, must not require grad (PyTorch's
    autograd refuses them: an in-place write into a leaf that requires grad, or into a tensor
    of the graph, that no version records); the parameters' dtypes must be the input's, or
    float32 for a float16 input (aten's check_mixed_data_type)."""
    from ..engine.grad_mode import is_grad_enabled
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have "
                               f"requires_grad True.")
    parameters = [t for t in (weight, bias, running_mean, running_var) if t is not None]
    if parameters and parameters[0].dtype != input.dtype:
        if any(t.dtype != dtypes.float32 for t in parameters):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype != dtypes.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization per channel (dim 1): over the batch in training (the running stats
    updated in place), else with the running stats (NativeBatchNormBackward0)."""
    if training:
        size = math.prod(input.shape[:1] + input.shape[2:])  # (PyTorch's _verify_batch_size)
        if size == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.size()}")
    if training and eps <= 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if not training and eps < 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if not training and running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    channels = input.shape[1] if input.dim() > 1 else 0  # (PyTorch's num_features)
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if input.dim() < 2:  # (the channels' dim)
        d = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], "
                         "but got 1)")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    for t in (running_mean, running_var):  # (its kernel reads them as vectors)
        if t is not None and t.dim() != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t.dim()}")
    _check_batch_norm_parameters(input, weight, bias, running_mean, running_var)
    return _BATCH_NORM.apply((input, 1 if weight is None else weight,
                              0 if bias is None else bias),
                             (running_mean, running_var, bool(training), momentum, eps))


register(Plain(
    "batch_norm",
    lambda input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled: batch_norm(input, running_mean, running_var, weight, bias, training,
                              momentum, eps),
    "batch normalization per channel (dim 1), the running stats updated in training",
    kind="reduction", via=("native_batch_norm",),
    signature="batch_norm(input, weight, bias, running_mean, running_var, training, momentum, "
    "eps, cudnn_enabled)"))


# ------------------------------------------------------------------ group_norm

def _group_stats(x, group):
    """Each (sample, group)'s mean and 1 / sqrt(var + eps) as PyTorch's CPU kernel rounds them
    (RowwiseMoments over the group's contiguous elements), and the rows they come from."""
    rows = np.ascontiguousarray(x).reshape(x.shape[0] * group, -1)
    if x.dtype in LANES and rows.shape[1]:
        mean, var = rowwise_moments(rows)
    else:
        mean, var = (v.reshape(-1) for v in _moments(rows, (1,)))
    return rows, mean, np.maximum(var, 0)


def _group_rstd(var, eps, dtype):
    # (1 / sqrt(var + eps) in double, eps a double, then rounded to the input's type)
    with np.errstate(divide="ignore"):
        return (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(dtype)


def _group_norm(x, weight, bias, N, C, HxW, group, eps):
    """PyTorch's GroupNormKernelImplInternal: without weight and bias (x - mean) * rstd; with
    either, per channel scale = rstd * weight and shift = -scale * mean + bias, then
    scale * x + shift (both a fused multiply-add, as its kernel is compiled)."""
    if x.dtype.kind != "f":
        raise NotImplementedError("\"GroupNormKernelImpl\" not implemented for "
                                  f"'{dtypes.short_name(x)}'")
    t = x.dtype.type
    rows, mean, var = _group_stats(x, group)
    rstd = _group_rstd(var, eps, x.dtype)
    if not isinstance(weight, np.ndarray) and not isinstance(bias, np.ndarray):
        return ((rows - mean[:, None]) * rstd[:, None]).reshape(x.shape)
    per_channel = (N, group, C // group)
    gamma = np.broadcast_to(np.reshape(weight, (1, group, -1)).astype(x.dtype), per_channel)
    beta = np.broadcast_to(np.reshape(bias, (1, group, -1)).astype(x.dtype), per_channel)
    scale = rstd.reshape(N, group, 1) * gamma
    shift = fused(-scale, mean.reshape(N, group, 1), beta).astype(x.dtype)
    channels = x.reshape(N, group, C // group, -1)
    return fused(scale[..., None], channels, shift[..., None]).astype(t).reshape(x.shape)


def _group_layout(input, group):
    """(the rows' shape (N, group, -1), the channels' shape (1, C, 1, ...), the dims weight
    and bias sum over)"""
    shape = tuple(input.shape)
    return ((shape[0], group, -1), (1, shape[1]) + (1,) * (len(shape) - 2),
            (0,) + tuple(range(2, len(shape))))


@helper
def _group_norm_backward(grad, input, weight, group, eps):
    """The gradients of input, weight and bias, in Tensor operations (they differentiate
    again): layer_norm's over each (sample, group) row, the channels' weight applied first."""
    rows, channels, dims = _group_layout(input, group)
    affine = isinstance(weight, Tensor)
    scaled = grad * weight.reshape(channels) if affine else grad
    shape = tuple(input.shape)
    grad_input = _norm_backward(scaled.reshape(rows), input.reshape(rows), None, (2,), eps,
                                None, (2,))[0].reshape(shape)
    normalized = _normalized(input.reshape(rows), (2,), eps).reshape(shape)
    grad_weight = (grad * normalized).sum(dims) if affine else None
    return grad_input, grad_weight, grad.sum(dims)


@helper
def _group_norm_jvp(t, input, weight, group, eps):
    rows, channels, _ = _group_layout(input, group)
    out = _norm_jvp(t.reshape(rows), input.reshape(rows), (2,), eps).reshape(tuple(input.shape))
    return out * weight.reshape(channels) if isinstance(weight, Tensor) else out


@helper
def _group_norm_weight_jvp(t, input, group, eps):
    rows, channels, _ = _group_layout(input, group)
    normalized = _normalized(input.reshape(rows), (2,), eps).reshape(tuple(input.shape))
    return normalized * t.reshape(channels)


@helper
def _group_norm_bias_jvp(t, input, group):
    _, channels, _ = _group_layout(input, group)
    return t.reshape(channels).expand(tuple(input.shape))


_GROUP_NORM = register(Op(
    "native_group_norm", _group_norm,
    "input, weight, bias: _group_norm_backward(grad, input, weight, group, eps)",
    inputs=("input", "weight", "bias"), attrs=("N", "C", "HxW", "group", "eps"),
    grad_fn="NativeGroupNormBackward0",
    jvp=("input: _group_norm_jvp(input_t, input, weight, group, eps)",
         "weight: _group_norm_weight_jvp(weight_t, input, group, eps)",
         "bias: _group_norm_bias_jvp(bias_t, input, group)"), kind="reduction", method=False,
    public=False, doc="(input - mean) / sqrt(var + eps) over groups of channels, then weight "
                      "and bias per channel",
    samples=[Sample((2, 4, 3), (4,), (4,), attrs={"N": 2, "C": 4, "HxW": 3, "group": 2,
                                                  "eps": 1e-5}),
             Sample((3, 2, 2, 2), (2,), (2,), attrs={"N": 3, "C": 2, "HxW": 4, "group": 1,
                                                     "eps": 0.1}),
             Sample((2, 3), (3,), (3,), attrs={"N": 2, "C": 3, "HxW": 1, "group": 3,
                                               "eps": 0.5})]))


def _group_saved(node, k):
    """`_saved_result1` (the mean) and `_saved_result2` (rstd) of shape (N, group), computed
    again from the saved input."""
    x = node._saved_input._data
    group, eps = node._attrs[3], node._attrs[4]
    _, mean, var = _group_stats(x, group)
    value = mean if k == 1 else _group_rstd(var, eps, x.dtype)
    return Tensor._make(value.reshape(x.shape[0], group), None, 0, False)


_GROUP_NORM.extra_saved = {"_saved_result1": lambda node: _group_saved(node, 1),
                           "_saved_result2": lambda node: _group_saved(node, 2),
                           "_saved_N": lambda node: node._attrs[0],
                           "_saved_C": lambda node: node._attrs[1],
                           "_saved_HxW": lambda node: node._attrs[2]}


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Normalization over groups of channels (dim 1) of each sample, then weight and bias per
    channel (NativeGroupNormBackward0): torch.group_norm's checks, then native_group_norm."""
    shape = list(input.shape)
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    channels = shape[1]
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shape} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            # (PyTorch's message shows weight's shape for bias too, [0] without a weight)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {shown} "
                               f"and input of shape {shape}")
    hxw = math.prod(shape[2:])
    return _GROUP_NORM.apply((input, 1 if weight is None else weight,
                              0 if bias is None else bias),
                             (shape[0], channels, hxw, num_groups, eps))


register(Plain("group_norm", group_norm, "normalization over groups of channels, then weight "
               "and bias per channel", kind="reduction", via=("native_group_norm",),
               signature="group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, "
               "cudnn_enabled=True)"))
