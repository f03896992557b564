"""The normalizations (issue 20): layer_norm, batch_norm and group_norm, as ops of their own with
PyTorch's node names (NativeLayerNormBackward0, NativeBatchNormBackward0,
NativeGroupNormBackward0), forward in PyTorch's order of operations (layer_norm's moments bit for
bit: rowwise_moments), derivatives written in Tensor operations (so that create_graph
differentiates them again).  torch.nn.functional's spellings (F.layer_norm, F.batch_norm,
F.group_norm, F.instance_norm) are in gradcli.nn.functional."""

import math
import numbers

import numpy as np

from ..engine import dtypes
from ..engine.messages import not_implemented
from ..engine.tensor import Tensor
from .derivatives import helper
from .numerics import fused
from .registry import Op, Plain, Sample, register


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
            _update_running(running_mean, mean.reshape(-1), momentum)
        if running_var is not None:
            unbiased = var.reshape(-1) * (n / (n - 1)) if n > 1 else var.reshape(-1) * np.inf
            _update_running(running_var, unbiased, momentum)
    else:
        mean = running_mean._data.reshape(shape)
        var = running_var._data.reshape(shape)
    w = weight.reshape(shape) if isinstance(weight, np.ndarray) else weight
    b = bias.reshape(shape) if isinstance(bias, np.ndarray) else bias
    return ((x - mean) / np.sqrt(var + eps) * w + b).astype(x.dtype)


def _update_running(stat, batch, momentum):
    """stat = momentum * batch + (1 - momentum) * stat, written into stat's memory channel by
    channel, as PyTorch's kernel writes it through its accessor: the channels of an expanded
    stat share theirs, and each channel's update reads what the one before wrote (PyTorch's
    result on one thread: on several, its channels race)."""
    from . import writeable_alias
    data = stat._data
    if not data.flags.writeable:
        data = writeable_alias(data)
    if data.size > 1 and 0 in data.strides:
        for f in range(data.shape[0]):
            data[f] = momentum * batch[f] + (1 - momentum) * data[f]
    else:
        data[...] = (momentum * batch + (1 - momentum) * data).astype(data.dtype)


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


def _float_argument(value, name, position):
    """A float argument of torch.batch_norm as its parser takes it: a number or a one-element
    tensor, as a float."""
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.item()
    if not isinstance(value, numbers.Real):
        raise TypeError(f"batch_norm(): argument '{name}' (position {position}) must be float, "
                        f"not {type(value).__name__}")
    return float(value)


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
    return aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def aten_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """aten's batch_norm, after F.batch_norm's own checks: its checks, then native_batch_norm
    (what torch.instance_norm calls)."""
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
    momentum, eps = _float_argument(momentum, "momentum", 7), _float_argument(eps, "eps", 8)
    if input.dtype.np.kind != "f":  # (its CPU kernel's dtypes)
        raise not_implemented("batch_norm", input.dtype)
    return _BATCH_NORM.apply((input, 1 if weight is None else weight,
                              0 if bias is None else bias),
                             (running_mean, running_var, bool(training), momentum, eps))


register(Plain(
    "batch_norm",
    lambda input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled: aten_batch_norm(input, running_mean, running_var, weight, bias, training,
                                   momentum, eps),
    "batch normalization per channel (dim 1), the running stats updated in training",
    kind="reduction", via=("native_batch_norm",),
    signature="batch_norm(input, weight, bias, running_mean, running_var, training, momentum, "
    "eps, cudnn_enabled)"))


# ------------------------------------------------------------------ group_norm

def _group_stats(x, group):
    """Each (sample, group)'s mean and 1 / sqrt(var + eps) as PyTorch's CPU kernel rounds them
    (RowwiseMoments over the group's contiguous elements), and the rows they come from."""
    rows = np.ascontiguousarray(x).reshape(x.shape[0] * group, x[:1].size // group)
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
        raise not_implemented("GroupNormKernelImpl", x)
    t = x.dtype.type
    rows, mean, var = _group_stats(x, group)
    rstd = _group_rstd(var, eps, x.dtype)
    if not isinstance(weight, np.ndarray) and not isinstance(bias, np.ndarray):
        return ((rows - mean[:, None]) * rstd[:, None]).reshape(x.shape)
    per_channel = (N, group, C // group)
    # (one of them None: PyTorch's kernel takes 1 for gamma, 0 for beta)
    gamma = np.broadcast_to(np.reshape(weight, (1, group, -1)).astype(x.dtype) if isinstance(
        weight, np.ndarray) else x.dtype.type(1), per_channel)
    beta = np.broadcast_to(np.reshape(bias, (1, group, -1)).astype(x.dtype) if isinstance(
        bias, np.ndarray) else x.dtype.type(0), per_channel)
    scale = rstd.reshape(N, group, 1) * gamma
    shift = fused(-scale, mean.reshape(N, group, 1), beta).astype(x.dtype)
    channels = x.reshape(N, group, C // group, HxW)
    return fused(scale[..., None], channels, shift[..., None]).astype(t).reshape(x.shape)


def _group_layout(input, group):
    """(the rows' shape (N, group, -1), the channels' shape (1, C, 1, ...), the dims weight
    and bias sum over)"""
    shape = tuple(input.shape)
    return ((shape[0], group, math.prod(shape[1:]) // group), (1, shape[1]) + (1,) * (len(shape) - 2),
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


# ------------------------------------------------------------------ instance_norm

def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """aten's instance_norm: batch_norm of the input viewed as one sample of N * C channels,
    the weight, bias and running stats repeated N times; the running stats then take the mean
    of their N copies."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    n, c = input.shape[:2]

    def repeated(t):
        return None if t is None else t.repeat(n)
    mean, var = repeated(running_mean), repeated(running_var)
    out = aten_batch_norm(input.contiguous().view((1, n * c) + tuple(input.shape[2:])), mean,
                          var, repeated(weight), repeated(bias), use_input_stats, momentum, eps)
    from ..engine.grad_mode import no_grad
    with no_grad():
        for stats, kept in ((mean, running_mean), (var, running_var)):
            if kept is not None:
                kept.copy_(stats.view(n, c).mean(0))
    return out.view(tuple(input.shape))


register(Plain("instance_norm", instance_norm, "normalization of each sample's channels over "
               "their own elements, then weight and bias per channel", kind="reduction",
               via=("native_batch_norm",),
               signature="instance_norm(input, weight, bias, running_mean, running_var, "
               "use_input_stats, momentum, eps, cudnn_enabled)"))
