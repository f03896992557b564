"""Reordering and slicing along dimensions: flip, roll, select, slice, narrow, diagonal."""

import numpy as np

from ..engine.tensor import Tensor
from .derivatives import helper
from .registry import Composed, OPS, Op, Sample, register, wrap_dim
from .shape import VarArgsOp, _dims, _select_index, _select_view, _slice_bounds


# ------------------------------------------------------------------ reorder elements

def _flip(a, dims):
    ax = _dims(dims, a.ndim) if a.ndim else tuple(wrap_dim(d, 0) for d in dims)
    seen = set()
    for d in ax:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return _like_preserve(a, np.flip(a, ax)) if a.ndim else a.copy()


def _like_preserve(a, values):
    """values in a new array laid out as empty_like(a, MemoryFormat::Preserve) lays it out: a's
    strides when a is dense (size-1 dimensions included), else its dimension order."""
    strides = a.strides
    dense = all(s > 0 for s in strides)
    if dense:
        expected = a.itemsize
        for s, n in sorted((s, n) for s, n in zip(strides, a.shape) if n != 1):
            if s != expected:
                dense = False
                break
            expected *= n
    if not dense:
        return values.copy(order="K")
    out = np.lib.stride_tricks.as_strided(np.empty(a.size, a.dtype), a.shape, strides)
    out[...] = values
    return out


register(VarArgsOp(
    "flip", _flip, "self: grad.flip(dims)", attrs=("dims",), jvp="linear", dtype="same",
    kind="shape", doc="reverse the order of elements along dims (a copy)",
    samples=[Sample((3,), attrs={"dims": (0,)}), Sample((2, 3), attrs={"dims": (0, 1)})]))


def _roll(a, shifts, dims):
    shifts = shifts if isinstance(shifts, (list, tuple)) else (shifts,)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    dims = dims if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    return np.roll(a, tuple(shifts), _dims(dims, a.ndim))


@helper
def _neg_shifts(shifts):
    return tuple(-s for s in shifts) if isinstance(shifts, (list, tuple)) else -shifts


register(Op(
    "roll", _roll, "self: grad.roll(_neg_shifts(shifts), dims)",
    attrs=("shifts", ("dims", None)), jvp="linear", dtype="same", kind="shape",
    doc="shift elements cyclically along dims (flattened when dims is None)",
    samples=[Sample((4,), attrs={"shifts": 1}), Sample((2, 3), attrs={"shifts": (1, -1), "dims": (0, 1)}),
             Sample((2, 3), attrs={"shifts": 2})]))
OPS["roll"].shown_saved = lambda name, attrs, value: (  # (int[] in PyTorch's schema)
    () if value is None else tuple(value) if isinstance(value, (list, tuple)) else (value,))


# ------------------------------------------------------------------ select, slice, narrow

def _select(a, dim, index):
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    return _select_view(a, d, _select_index(a.shape, d, int(index)))


def _select_backward(g, input_sizes, dim, index):
    out = np.zeros(input_sizes, g.dtype)
    d = wrap_dim(dim, len(input_sizes))
    out[(slice(None),) * d + (int(index),)] = g
    return out


register(Op(
    "select_backward", _select_backward, "self: grad.select(dim, index)",
    attrs=("input_sizes", "dim", "index"), grad_fn="SelectBackwardBackward0", jvp="linear",
    dtype="same", kind="shape", method=False, public=False,
    doc="zeros of input_sizes with g at index along dim",
    samples=[Sample((3,), attrs={"input_sizes": (2, 3), "dim": 0, "index": 1})]))

register(Op(
    "select", _select, "self: select_backward.apply((grad,), (self_shape, dim, index))",
    attrs=("dim", "index"), view=True, jvp="linear", dtype="same", kind="shape",
    doc="the slice at index along dim, without that dim (a view)",
    samples=[Sample((3,), attrs={"dim": 0, "index": 1}), Sample((2, 3), attrs={"dim": 1, "index": -1})]))


def _slice(a, dim, start, end, step):
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = wrap_dim(dim, a.ndim)
    s, e, st = _slice_bounds(a.shape[d], start, end, step)
    return a[(slice(None),) * d + (slice(s, e, st),)]


def _slice_backward(g, input_sizes, dim, start, end, step):
    out = np.zeros(input_sizes, g.dtype)
    d = wrap_dim(dim, len(input_sizes))
    s, e, st = _slice_bounds(input_sizes[d], start, end, step)
    out[(slice(None),) * d + (slice(s, e, st),)] = g
    return out



@helper(shows="slice({0}, {1}, {2}, {3}, {4})")
def _slice_op(g, dim, start, end, step):
    """The slice op (not Python's slice) on the gradient."""
    return OPS["slice"].apply((g,), (dim, start, end, step))


register(Op(
    "slice_backward", _slice_backward,
    "self: _slice_op(grad, dim, start, end, step)",
    attrs=("input_sizes", "dim", "start", "end", "step"), grad_fn="SliceBackwardBackward0",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="zeros of input_sizes with g at start:end:step along dim",
    samples=[Sample((2,), attrs={"input_sizes": (4,), "dim": 0, "start": 1, "end": 4, "step": 2})]))

register(Op(
    "slice", _slice, "self: slice_backward.apply((grad,), (self_shape, dim, start, end, step))",
    attrs=(("dim", 0), ("start", None), ("end", None), ("step", 1)), view=True, jvp="linear",
    dtype="same", kind="shape", method=False, public=False,
    doc="self[start:end:step] along dim (a view)",
    samples=[Sample((5,), attrs={"start": 1, "end": 4}),
             Sample((2, 5), attrs={"dim": 1, "start": 0, "end": 5, "step": 2})]))


def _narrow_compose(self, dim, start, length):
    a = self._data
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(start, Tensor):
        start = start.item()
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but "
                         f"got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return OPS["slice"].apply((self,), (d, start, start + length, 1))


register(Composed(
    "narrow", _narrow_compose,
    via=("slice",),
    attrs=("dim", "start", "length"), view=True,
    doc="length elements from start along dim (a view)",
    samples=[Sample((5,), attrs={"dim": 0, "start": 1, "length": 3}),
             Sample((2, 4), attrs={"dim": 1, "start": 2, "length": 2})],
    kind="shape", dtype="same"))


def _diagonal(a, offset=0, dim1=0, dim2=1):
    """A writable view of the diagonal (NumPy's np.diagonal is read-only)."""
    if a.ndim < 2:
        raise RuntimeError(f"diagonal(): expected a tensor with at least 2 dimensions, but got "
                           f"{a.ndim}")
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    rows, cols = a.shape[d1], a.shape[d2]
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    start = [slice(None)] * a.ndim
    if length:  # start the view at the first diagonal element
        start[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    first = a[tuple(start)]
    rest = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in rest) + (length,)
    strides = tuple(a.strides[i] for i in rest) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(first, shape, strides, writeable=a.flags.writeable)


def _diagonal_backward(g, input_sizes, offset, dim1, dim2):
    out = np.zeros(input_sizes, g.dtype)
    _diagonal(out, offset, dim1, dim2)[...] = g
    return out


register(Op(
    "diagonal_backward", _diagonal_backward,
    "self: grad.diagonal(offset, dim1, dim2)",
    attrs=("input_sizes", "offset", "dim1", "dim2"), grad_fn="DiagonalBackwardBackward0",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="zeros of input_sizes with g on the diagonal",
    samples=[Sample((2,), attrs={"input_sizes": (2, 3), "offset": 1, "dim1": 0, "dim2": 1})]))

register(Op(
    "diagonal", _diagonal,
    "self: diagonal_backward.apply((grad,), (self_shape, offset, dim1, dim2))",
    attrs=(("offset", 0), ("dim1", 0), ("dim2", 1)), view=True, jvp="linear", dtype="same",
    kind="shape", doc="the diagonal (offset above it when > 0) of dims dim1, dim2 (a view)",
    samples=[Sample((3, 3)), Sample((2, 3), attrs={"offset": 1}),
             Sample((2, 3, 3), attrs={"offset": -1, "dim1": 1, "dim2": 2})]))
