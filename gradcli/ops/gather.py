"""Gathering elements by index or mask: index_select, gather, take_along_dim, masked_select,
masked_scatter (and the index checks scatter shares)."""

import numpy as np

from ..engine import messages
from ..engine.dtypes import short_name
from ..engine.random import Vmap
from ..engine.tensor import Tensor, check_numel
from .registry import Composed, OPS, Op, Sample, register, wrap_dim
from .shape import _expand, _reshape_compose


# ------------------------------------------------------------------ gather-like ops

def _array(x):
    """An index or mask argument as an array (tensors, or Python lists in test samples)."""
    if isinstance(x, Tensor):
        return x._data
    return np.asarray(x)


def _index_select(a, dim, index):
    index = _array(index)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if index.size and (index.min() < -size or index.max() >= size):
        raise IndexError("index out of range in self")
    if a.ndim == 0:
        return a.copy()
    check_numel(a.shape[:d] + (index.size,) + a.shape[d + 1:])  # (an index longer than self)
    return np.take(a, index.reshape(-1), axis=d)


def _index_add_zeros(g, input_sizes, dim, index):
    out = np.zeros(input_sizes, g.dtype)
    if not input_sizes:
        out[...] = g.sum()
        return out
    d = wrap_dim(dim, len(input_sizes))
    np.add.at(out, (slice(None),) * d + (_array(index).reshape(-1),), g)
    return out


register(Op(
    "index_select_backward", _index_add_zeros,
    "self: index_select.apply((grad,), (dim, index))",
    attrs=("input_sizes", "dim", "index"), grad_fn="IndexAddBackward0", jvp="linear",
    dtype="same", kind="shape", method=False, public=False,
    doc="zeros of input_sizes with g added at index along dim",
    samples=[Sample((2,), attrs={"input_sizes": (3,), "dim": 0, "index": [0, 0]})]))

register(Op(
    "index_select", _index_select,
    "self: index_select_backward.apply((grad,), (self_shape, dim, index))",
    attrs=("dim", "index"), jvp="linear", dtype="same", kind="shape",
    doc="the entries at index (a 1-D long tensor) along dim",
    samples=[Sample((3,), attrs={"dim": 0, "index": [2, 0, 2]}),
             Sample((2, 3), attrs={"dim": 1, "index": [1]})]))


def _gather_check(a, dim, index):
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.ndim != a.ndim and not (a.ndim == 0 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = wrap_dim(dim, a.ndim)
    for k in range(a.ndim):
        if k != d and index.shape[k] > a.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{list(index.shape)} to be no larger than self {list(a.shape)} "
                               f"apart from dimension {d}")
    check_index_bounds(a, d, index)
    return d


def check_index_bounds(a, d, index):
    """gather's and scatter's bounds check of index along dimension d of a (PyTorch's words)."""
    size = a.shape[d] if a.ndim else 1
    if index.size:  # (negative indices too: gather's and scatter's kernels do not wrap them)
        bad = index[(index < 0) | (index >= size)]
        if bad.size:
            raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {d} with "
                               f"size {size}")


def _gather_key(index, d):
    grid = list(np.indices(index.shape, sparse=True))
    grid[d] = index
    return tuple(grid)


def _gather(a, dim, index):
    index = _array(index)
    d = _gather_check(a, dim, index)
    if a.ndim == 0:
        return np.broadcast_to(a, index.shape).copy()
    return a[_gather_key(index, d)]


def _scatter_add_zeros(g, input_sizes, dim, index):
    out = np.zeros(input_sizes, g.dtype)
    if not input_sizes:
        out[...] = g.sum()
        return out
    np.add.at(out, _gather_key(_array(index), wrap_dim(dim, len(input_sizes))), g)
    return out


register(Op(
    "gather_backward", _scatter_add_zeros,
    "self: gather.apply((grad,), (dim, index))",
    attrs=("input_sizes", "dim", "index"), grad_fn="ScatterAddBackward0", jvp="linear",
    dtype="same", kind="shape", method=False, public=False,
    doc="zeros of input_sizes with g added at index along dim",
    samples=[Sample((2, 1), attrs={"input_sizes": (2, 3), "dim": 1, "index": [[0], [0]]})]))

register(Op(
    "gather", _gather,
    "self: gather_backward.apply((grad,), (self_shape, dim, index))",
    attrs=("dim", "index"), jvp="linear", dtype="same", kind="shape",
    doc="out[i][j] = self[i][index[i][j]] (for dim=1)",
    samples=[Sample((2, 3), attrs={"dim": 1, "index": [[0, 0], [2, 1]]}),
             Sample((3,), attrs={"dim": 0, "index": [1, 1, 0, 2]})]))


def _take_along_dim_compose(self, indices, dim=None):
    if dim is None:
        flat = _reshape_compose(self, (-1,))
        return OPS["gather"].apply((flat,), (0, _array(indices).reshape(-1)))
    a, idx = self._data, _array(indices)
    if a.ndim != idx.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {a.ndim} dimensions for input, and {idx.ndim} "
                           "dimensions for indices")
    d = wrap_dim(dim, a.ndim)
    self_sizes = list(a.shape)
    self_sizes[d] = idx.shape[d]
    broadcast = list(np.broadcast_shapes(tuple(self_sizes), idx.shape))
    if idx.size and a.shape[d] and (idx < 0).any():  # (along a dim, PyTorch's wrap them)
        idx = np.where(idx < 0, idx % a.shape[d], idx)
    index = np.broadcast_to(idx, tuple(broadcast))
    broadcast[d] = a.shape[d]
    expanded = OPS["expand"].apply((self,), (tuple(broadcast),))
    return OPS["gather"].apply((expanded,), (d, index))


register(Composed(
    "take_along_dim", _take_along_dim_compose,
    via=("expand", "gather"),
    attrs=("indices", ("dim", None)),
    doc="gather after broadcasting self and indices (flattened when dim is None)",
    samples=[Sample((2, 3), attrs={"indices": [[0], [2]], "dim": 1})], kind="shape", dtype="same"))


def _masked_select(a, mask):
    if Vmap.levels:  # (gradcli: every mask inside vmap counts as batched)
        raise RuntimeError(messages.VMAP_MASKED_SELECT)
    mask = _array(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast(a.shape, mask.shape)
    check_numel(shape)  # (as many elements as the mask selects of the broadcast)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _broadcast(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        a, b = shapes
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and 1 not in (a[i], b[i]):
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                                   f"({b[i]}) at non-singleton dimension {i}") from None
        raise


def _masked_scatter_zeros(g, input_sizes, mask):
    mask = _array(mask)
    shape = _broadcast(tuple(input_sizes), mask.shape)
    out = np.zeros(shape, g.dtype)
    out[np.broadcast_to(mask, shape)] = g
    return out


register(Op(
    "masked_select_backward", _masked_scatter_zeros,
    "self: masked_select.apply((grad,), (mask,))", attrs=("input_sizes", "mask"),
    grad_fn="MaskedScatterBackward0", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="zeros with g at the True entries of mask",
    samples=[Sample((2,), attrs={"input_sizes": (3,), "mask": [True, False, True]})]))

register(Op(
    "masked_select", _masked_select,
    "self: masked_select_backward.apply((grad,), (self_shape, mask))",
    attrs=("mask",), jvp="linear", dtype="same", kind="shape",
    doc="the entries where mask (broadcast) is True, as a 1-D tensor",
    samples=[Sample((3,), attrs={"mask": [True, False, True]}),
             Sample((2, 3), attrs={"mask": [False, True, True]})]))


# ------------------------------------------------------------------ masked_scatter

def _bool_mask(mask, name):
    mask = _array(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{short_name(mask.dtype)}")
    return mask


def _masked_scatter(a, mask, source):
    mask = _bool_mask(mask, "masked_scatter_")
    if a.dtype != source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{short_name(a.dtype)} and {short_name(source.dtype)}")
    shape = _broadcast(mask.shape, a.shape)
    check_numel(shape)  # (self broadcast to the mask's shape: the result, made below)
    mask = np.broadcast_to(mask, shape)
    n = int(np.count_nonzero(mask))
    if n > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = np.array(np.broadcast_to(a, shape))
    out[mask] = source.reshape(-1)[:n]
    return out


def _masked_scatter_backward(g, mask, sizes):
    """The source's gradient: the entries of g where mask is True, zero-padded to sizes."""
    mask = _array(mask)
    selected = g[np.broadcast_to(mask, _broadcast(g.shape, mask.shape))]
    out = np.zeros(int(np.prod(sizes, dtype=np.int64)), g.dtype)
    out[:selected.size] = selected
    return out.reshape(sizes)


def _masked_scatter_inplace(a, mask, source):
    """masked_scatter_: the mask is expanded to self's shape (PyTorch's expand_inplace)."""
    mask = _bool_mask(mask, "masked_scatter_")
    try:
        mask = _expand(mask, a.shape)
    except RuntimeError as e:  # (named as ATen's internal expand names it)
        raise RuntimeError(str(e).replace("torch.BoolTensor", "CPUBoolType")) from None
    return _masked_scatter(a, mask, source)


_SCATTER_MASKS = [np.array(True), np.array([True, False, True]),
                  np.array([[False, True, True], [True, False, False]])]
register(Op(
    "masked_scatter_backward", _masked_scatter_backward,
    ("grad_output: grad.new_zeros(grad_output_shape).masked_scatter(mask, grad)",),
    inputs=("grad_output", "mask"), attrs=("sizes",), edges=("grad_output",),
    grad_fn="MaskedScatterBackwardBackward0",
    jvp=("grad_output: masked_scatter_backward(grad_output_t, mask, sizes)",),
    dtype="same", kind="shape", method=False, public=False,
    doc="the entries of grad_output where mask is True, zero-padded to sizes",
    samples=[Sample((2, 3), None, values={1: m}, attrs={"sizes": s})
             for m, s in zip(_SCATTER_MASKS, [(2, 4), (5,), (3,)])]))
OPS["masked_scatter_backward"].hidden_saved = ("grad_output_sym_sizes",)  # (zeros_like's shape)
_MASKED_SCATTER = dict(
    vjp=("self: grad.masked_fill(mask, 0.0)",
         "source: masked_scatter_backward(grad, mask, source_shape)"),
    jvp=("self: self_t.masked_fill(mask, 0.0)",
         "source: zeros_like(result).masked_scatter(mask, source_t)"),
    inputs=("self", "mask", "source"), edges=("self", "source"),
    dtype="same", kind="shape",
    doc="self with the entries where mask is True taken from source, in order")
register(Op(
    "masked_scatter", _masked_scatter, **_MASKED_SCATTER,
    inplace=Op("masked_scatter_", _masked_scatter_inplace, **_MASKED_SCATTER,
               grad_fn="MaskedScatterBackward0", public=False, method=False),
    samples=[Sample(shape, None, source, values={1: m}) for shape, m, source in
             [((), _SCATTER_MASKS[0], (2,)), ((2, 3), _SCATTER_MASKS[1], (2, 4)),
              ((2, 3), _SCATTER_MASKS[2], (3,)), ((3,), _SCATTER_MASKS[2], (3, 2))]]))
