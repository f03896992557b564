"""Adaptive pooling as PyTorch's CPU kernels compute it (aten/src/ATen/native/cpu/
AdaptiveAvgPoolKernel.cpp, AdaptiveMaxPoolKernel.cpp): _adaptive_avg_pool2d/3d and
adaptive_max_pool2d/3d, each with its backward as an op of its own, and the 1-d forms as
PyTorch composes them (unsqueeze(-2), the 2-d pooling, squeeze(-2)).  Windows are aten's
start_index/end_index; the rest (the max's ties and NaN, indices in the flat spatial plane,
the averages' order) is gradcli.ops.pooling's."""

import inspect
import itertools
import math

import numpy as np

from ..engine.tensor import check_numel
from .derivatives import helper
from .pooling import (_batched, _check_1d_rank, _check_dtype, _check_grad_output,
                      _check_size_ints, _gather_max, _indices_from_saved, _lowest, _pick_max,
                      _scatter_max, flat_index)
from .registry import Op, Plain, Sample, register


# ------------------------------------------------------------------ adaptive average

def adaptive_bounds(n, o):
    """(starts, ends): the arrays of the o windows' bounds over n elements (aten's start_index
    and end_index), made by NumPy (a window a Python tuple: 100 bytes and 0.3 us each)."""
    i = np.arange(o, dtype=np.int64)
    return (i * n) // o, -((-(i + 1) * n) // o)


def adaptive_windows(n, o):
    """[(start, end)] of each of o windows over n elements."""
    return list(zip(*(b.tolist() for b in adaptive_bounds(n, o))))


def adaptive_index(shape, output_size):
    """(index, sizes): index (K, *output_size) is the flat spatial position of each window's
    k-th element in row-major order (K = the largest window's size; -1 past the end of a
    smaller window), sizes[i] the windows' sizes along spatial dim i."""
    check_numel(tuple(output_size))  # (before the windows' lists: an empty input's too)
    nd = len(output_size)
    bounds = [adaptive_bounds(n, o) for n, o in zip(shape[-nd:], output_size)]
    kernel = [int((end - start).max()) for start, end in bounds]
    check_numel((int(np.prod(kernel)),) + tuple(output_size))
    positions = [start[None, :] + np.arange(k)[:, None] for (start, _), k in zip(bounds, kernel)]
    inside = [q < end for q, (_, end) in zip(positions, bounds)]
    return flat_index(shape[-nd:], positions, inside), [end - start for start, end in bounds]


def _divided(total, sizes):
    """total / the windows' sizes, one spatial dim after the other (PyTorch's order)."""
    nd = len(sizes)
    t = total.dtype.type
    for i, size in enumerate(sizes):
        total = total / size.astype(t).reshape((-1,) + (1,) * (nd - 1 - i))
    return total


def adaptive_avg(a, output_size):
    """_adaptive_avg_pool2d/3d: each window's sum in row-major order from 0, / its size along
    each dim in turn (PyTorch's kernel's order, so float64 results are its to the bit)."""
    nd = len(output_size)
    lead, out = a.shape[:-nd], tuple(output_size)
    check_numel(lead + out)
    if 0 in out:
        return np.empty(lead + out, a.dtype)
    index, sizes = adaptive_index(a.shape, out)
    total = np.zeros(lead + out, a.dtype)
    if int(np.prod(out)) <= index.shape[0]:  # (the fewer Python iterations: both add in order)
        windows = [list(enumerate(adaptive_windows(n, o))) for n, o in zip(a.shape[-nd:], out)]
        for window in itertools.product(*windows):
            block = a[(Ellipsis,) + tuple(slice(lo, hi) for _, (lo, hi) in window)]
            at = (Ellipsis,) + tuple(i for i, _ in window)
            total[at] = np.cumsum(block.reshape(lead + (math.prod(block.shape[-nd:]),)),
                                  axis=-1)[..., -1] + 0
    else:
        flat = a.reshape(lead + (math.prod(a.shape[-nd:]),))
        for k in range(index.shape[0]):
            total = total + np.where(index[k] >= 0, flat[..., np.maximum(index[k], 0)], 0)
    return _divided(total, sizes).astype(a.dtype)


def _covering(n, o):
    """For each of n input elements, the first and the number of the o adaptive windows that
    cover it (a run of consecutive windows)."""
    starts, ends = adaptive_bounds(n, o)
    pixels = np.arange(n)
    first = np.searchsorted(ends, pixels, side="right")
    return first, np.searchsorted(starts, pixels, side="right") - first


def _adaptive_avg_backward(nd):
    def backward(grad_output, self):
        """Each output's share (its gradient / its sizes) added to the input elements of its
        window: an element's shares summed in the order of the windows, as PyTorch adds
        them."""
        out, spatial = tuple(grad_output.shape[-nd:]), self.shape[-nd:]
        _check_grad_output(grad_output, self.shape[:-nd] + out)
        result = np.zeros(self.shape, grad_output.dtype)
        if 0 in out:
            return result
        share = _divided(grad_output, adaptive_index(self.shape, out)[1])
        covering = [_covering(n, o) for n, o in zip(spatial, out)]
        most = [int(count.max()) for _, count in covering]
        if np.prod(spatial) <= np.prod(most):
            # few input elements under many windows (upsampling): one running sum an element
            for at in itertools.product(*(range(n) for n in spatial)):
                block = share[(Ellipsis,) + tuple(
                    slice(first[i], first[i] + count[i]) for i, (first, count) in
                    zip(at, covering))]
                result[(Ellipsis,) + at] = np.cumsum(block.reshape(
                    block.shape[:-nd] + (math.prod(block.shape[-nd:]),)), axis=-1)[..., -1] + 0
        else:  # the k-th covering window of every element at once, in the windows' order
            for ks in itertools.product(*(range(m) for m in most)):
                where, taken = [], np.ones((1,) * nd, bool)
                for i, (k, (first, count), o) in enumerate(zip(ks, covering, out)):
                    shape = [1] * nd
                    shape[i] = -1
                    where.append(np.minimum(first + k, o - 1).reshape(shape))
                    taken = taken & (k < count).reshape(shape)
                result = result + np.where(taken, share[(Ellipsis,) + tuple(where)], 0)
        return result.astype(grad_output.dtype, copy=False)
    return backward


def _adaptive_avg_ops(nd, samples):
    """_adaptive_avg_pool<nd>d and its backward (PyTorch's ops and nodes; the backward's node
    saves the sizes of grad_output it reads, under PyTorch's names)."""
    name = f"_adaptive_avg_pool{nd}d"
    forward = register(Op(
        name, adaptive_avg, f"self: {name}_backward(grad, self)", jvp="linear",
        attrs=("output_size",), grad_fn=f"AdaptiveAvgPool{nd}DBackward0", method=False,
        public=False, kind="pooling", doc="the mean of each of output_size windows",
        samples=samples))
    backward = register(Op(
        f"{name}_backward", _adaptive_avg_backward(nd),
        (f"grad_output: {name}(grad, grad_output_shape[-{nd}:])",
         "self: grad.new_zeros(self_shape)"),
        jvp="linear",
        inputs=("grad_output", "self"), grad_fn=f"AdaptiveAvgPool{nd}DBackwardBackward0",
        method=False, public=False, kind="backward", doc=f"the gradient of {name[1:]}",
        samples=[Sample(s.shapes[0][:-nd] + s.attrs["output_size"], s.shapes[0])
                 for s in samples]))
    backward.hidden_saved = ("grad_output_sym_sizes", "self_sym_sizes")
    backward.extra_saved = {f"_saved_grad_output_sym_argsize_minus_{i}":
                            (lambda i: lambda node: node._meta[0][-i])(i)
                            for i in range(1, nd + 1)}
    return forward


ADAPTIVE_SAMPLES = {
    2: [Sample((2, 2, 5, 4), attrs={"output_size": (2, 3)}),
        Sample((2, 3, 7), attrs={"output_size": (3, 2)})],
    3: [Sample((1, 2, 5, 4, 3), attrs={"output_size": (2, 3, 2)}),
        Sample((2, 3, 2, 4), attrs={"output_size": (3, 2, 5)})]}
ADAPTIVE_AVG_POOL2D = _adaptive_avg_ops(2, ADAPTIVE_SAMPLES[2])
ADAPTIVE_AVG_POOL3D = _adaptive_avg_ops(3, ADAPTIVE_SAMPLES[3])


# ------------------------------------------------------------------ adaptive max

def adaptive_max_indices(a, output_size):
    """(values, indices) of adaptive_max_pool2d/3d: the windows of adaptive_windows, as
    max_pool's (the largest window's size, the smaller ones' extra elements left out)."""
    nd = len(output_size)
    if 0 in output_size:
        empty = a.shape[:-nd] + tuple(output_size)
        return np.empty(empty, a.dtype), np.empty(empty, np.int64)
    index = adaptive_index(a.shape, output_size)[0]
    b = _batched(a, nd)
    check_numel(b.shape[:2] + index.shape)
    flat = b.reshape(b.shape[:2] + (math.prod(b.shape[2:]),))
    low = _lowest(a.dtype)
    cols = np.where(index >= 0, flat[:, :, np.maximum(index, 0)], low)
    return _pick_max(cols.astype(a.dtype, copy=False), index, low, a.ndim == nd + 2)


def _adaptive_max_backward(grad_output, self, output_size):
    return _scatter_max(grad_output, adaptive_max_indices(self, output_size)[1], self,
                        len(output_size))


@helper
def _adaptive_max_double_backward(grad, self, output_size):
    return _gather_max(grad, adaptive_max_indices(self._data, output_size)[1], len(output_size))


@helper
def _adaptive_max_jvp(self_t, self, output_size):
    return _adaptive_max_double_backward(self_t, self, output_size), None


def _adaptive_max_ops(nd, samples):
    """adaptive_max_pool<nd>d (aten's _adaptive_max_pool<nd>d here) and its backward."""
    name = f"adaptive_max_pool{nd}d"
    forward = register(Op(
        f"_{name}", adaptive_max_indices,
        f"self: {name}_backward(grad[0], self, output_size)",
        jvp="self: _adaptive_max_jvp(self_t, self, output_size)", attrs=("output_size",),
        outputs=2, grad_fn=f"AdaptiveMaxPool{nd}DBackward0", method=False, public=False,
        kind="pooling", doc="the largest element of each of output_size windows, and its "
        "index", samples=samples))
    forward.hidden_saved = ("output_size",)  # (PyTorch saves self and the indices)
    forward.extra_saved = {"_saved_result1": _indices_from_saved(adaptive_max_indices, 0)}
    backward = register(Op(
        f"{name}_backward", _adaptive_max_backward,
        ("grad_output: _adaptive_max_double_backward(grad, self, output_size)",
         "self: grad.new_zeros(self_shape)"),
        jvp=(f"grad_output: {name}_backward(grad_output_t, self, output_size)",),
        inputs=("grad_output", "self"), attrs=("output_size",),
        grad_fn=f"AdaptiveMaxPool{nd}DBackwardBackward0", method=False, public=False,
        kind="backward", doc=f"the gradient of {name}",
        samples=[Sample(s.shapes[0][:-nd] + s.attrs["output_size"], s.shapes[0],
                        attrs=s.attrs) for s in samples]))
    backward.hidden_saved = ("self", "self_sym_sizes", "output_size")
    backward.extra_saved = {"_saved_indices": _indices_from_saved(adaptive_max_indices, 1)}
    return forward


ADAPTIVE_MAX_POOL2D = _adaptive_max_ops(2, ADAPTIVE_SAMPLES[2])
ADAPTIVE_MAX_POOL3D = _adaptive_max_ops(3, ADAPTIVE_SAMPLES[3])


def _output_size(output_size, shape, name, n, check_negative=True, length_error=None):
    """output_size as n ints (None: the input's size there), or PyTorch's errors."""
    if isinstance(output_size, str):
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        "but found element of type str at pos 0")
    if isinstance(output_size, (list, tuple)):
        sizes = tuple(output_size)
    elif isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = (output_size,) * n
    else:
        raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
    _check_size_ints(sizes, name, 2, none=True)
    if len(sizes) != n:
        if n == 1:
            raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got "
                               f"{len(sizes)})")
        raise RuntimeError(length_error or f"{name}: output_size must be {n}")
    sizes = tuple(shape[len(shape) - n + i] if s is None else int(s) for i, s in enumerate(sizes))
    if check_negative and any(s < 0 for s in sizes):
        shown = ", ".join(map(str, sizes[:2])) + "".join(f",{s}" for s in sizes[2:])
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{shown}}}")  # (PyTorch's text: "{-1, -1,-1}")
    return sizes



def _check_adaptive_input(input, name, ranks):
    if input.dim() not in ranks:
        raise RuntimeError(f"{name}(): Expected {ranks[0]}D or {ranks[1]}D tensor, but got "
                           f"{list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")


def _adaptive_avg_pool(nd, op, kernel):
    """adaptive_avg_pool2d/3d (kernel: the name PyTorch's dtype error gives)."""
    name = f"adaptive_avg_pool{nd}d"

    def adaptive_avg_pool(input, output_size):
        _check_adaptive_input(input, name, (nd + 1, nd + 2))
        sizes = _output_size(output_size, input.shape, name, nd)
        _check_dtype(input, kernel, "f")
        if sizes == (1,) * nd:  # (PyTorch takes the mean)
            return input.mean(tuple(range(-1, -nd - 1, -1)), keepdim=True)
        return op.apply((input,), (sizes,))
    adaptive_avg_pool.__name__ = adaptive_avg_pool.__qualname__ = name
    return adaptive_avg_pool


adaptive_avg_pool2d = _adaptive_avg_pool(2, ADAPTIVE_AVG_POOL2D, "adaptive_avg_pool2d")
adaptive_avg_pool3d = _adaptive_avg_pool(3, ADAPTIVE_AVG_POOL3D, "adaptive_avg_pool3d_cpu")


def adaptive_avg_pool1d(input, output_size):
    _check_1d_rank(input, "adaptive_avg_pool1d")
    (size,) = _output_size(output_size, input.shape, "adaptive_avg_pool1d", 1)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _adaptive_max_pool(nd, op, kernel, length_error=None):
    """adaptive_max_pool2d/3d (kernel: the name PyTorch's dtype error gives; length_error: its
    error for an output_size of another length)."""
    name = f"adaptive_max_pool{nd}d"

    def adaptive_max_pool(input, output_size, return_indices=False):
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                               f"{list(input.shape)}")
        sizes = _output_size(output_size, input.shape, name, nd, False, length_error)
        if any(s < 0 for s in sizes):
            shape = ", ".join(map(str, tuple(input.shape[:-nd]) + sizes))
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: [{shape}]")
        _check_adaptive_input(input, name, (nd + 1, nd + 2))
        _check_dtype(input, kernel, "f")
        values, indices = op.apply((input,), (sizes,))
        return (values, indices) if return_indices else values
    adaptive_max_pool.__name__ = adaptive_max_pool.__qualname__ = name
    return adaptive_max_pool


adaptive_max_pool2d = _adaptive_max_pool(2, ADAPTIVE_MAX_POOL2D, "adaptive_max_pool2d")
adaptive_max_pool3d = _adaptive_max_pool(
    3, ADAPTIVE_MAX_POOL3D, "adaptive_max_pool3d_cpu",
    "adaptive_max_pool3d(): internal error: output_size.size() must be 3")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    _check_1d_rank(input, "adaptive_max_pool1d")
    (size,) = _output_size(output_size, input.shape, "adaptive_max_pool1d", 1)
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


_FUNCTIONS = [
    (adaptive_avg_pool1d, "adaptive_avg_pool1d", "the mean of each of output_size windows",
     ("_adaptive_avg_pool2d",), True),
    (adaptive_avg_pool2d, "adaptive_avg_pool2d", "the mean of each of output_size windows",
     ("_adaptive_avg_pool2d",), False),
    (adaptive_max_pool1d, "adaptive_max_pool1d",
     "the largest element of each of output_size windows", ("_adaptive_max_pool2d",), True),
    (adaptive_max_pool2d, "adaptive_max_pool2d",
     "the largest element of each of output_size windows", ("_adaptive_max_pool2d",), False),
    (adaptive_avg_pool3d, "adaptive_avg_pool3d", "the mean of each of output_size windows",
     ("_adaptive_avg_pool3d",), False),
    (adaptive_max_pool3d, "adaptive_max_pool3d",
     "the largest element of each of output_size windows", ("_adaptive_max_pool3d",), False),
]
for _fn, _name, _doc, _via, _in_torch in _FUNCTIONS:
    _entry = register(Plain(_name, _fn, _doc, kind="pooling", via=_via,
                            signature=f"{_name}{inspect.signature(_fn)}"))
    _entry.function = _in_torch  # (torch.adaptive_avg_pool2d does not exist: F's only)
