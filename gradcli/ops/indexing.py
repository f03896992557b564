"""Indexing: `x[...]` (basic items as select/slice/unsqueeze views, then one `index`) and item
assignment `x[...] = v` (index_put), with the copies they make (clone, contiguous, to) and
broadcasting (broadcast_tensors, broadcast_to)."""

import warnings

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode
from ..engine.random import Vmap
from ..engine.tensor import Tensor, batched, check_batched_write, check_numel
from .derivatives import helper
from .registry import Composed, OPS, Op, Plain, Sample, register
from .shape import _select_view, _slice_bounds, index_array
from .views import StaleView


# ------------------------------------------------------------------ copies and dtype

def _clone(a, memory_format=None):
    contiguous = memory_format is not None and "contiguous" in str(memory_format)
    return np.array(a, order="C" if contiguous else "K", copy=True)


register(Op(
    "clone", _clone, "self: grad", attrs=(("memory_format", None),), jvp="linear", dtype="same",
    kind="shape", doc="a copy (strides preserved unless memory_format says contiguous)",
    samples=[Sample((2, 3)), Sample(())]))


def _contiguous_compose(self, memory_format=None):
    if self._data.flags.c_contiguous:
        return self
    return OPS["clone"].apply((self,), ("contiguous",))


register(Composed(
    "contiguous", _contiguous_compose, via=("clone",), attrs=(("memory_format", None),),
    function=False,
    doc="self if contiguous, else a contiguous copy", samples=[Sample((2, 3))],
    kind="shape", dtype="same"))


def _to(a, dtype):
    return a.astype(dtype.np) if a.dtype != dtype.np else a.copy()


register(Op(
    "to_dtype", _to, "self: grad.to_dtype(self_dtype)", attrs=("dtype",),
    grad_fn="ToCopyBackward0", jvp="linear", dtype="numpy", kind="shape", method=True,
    public=False, doc="convert to dtype",
    samples=[Sample((3,), attrs={"dtype": dtypes.float64})]))


# ------------------------------------------------------------------ indexing
#
# PyTorch indexes in two stages: the basic items (ints, slices, None, ...) become select, slice
# and unsqueeze views applied one after another; the tensor items (lists, long tensors, masks)
# then go to one `index` call.  A *path* records both stages as NumPy steps:
# (steps, key) with steps like ("select", dim, i) and key None or a tuple for the last stage.

def _region(a, steps):
    """The view of array a that steps select."""
    for step in steps:
        kind, d = step[0], step[1]
        if kind == "select":
            a = _select_view(a, d, step[2])
        elif kind == "slice":
            a = a[(slice(None),) * d + (slice(*step[2:]),)]
        else:
            a = np.expand_dims(a, d)
    return a


def _index(a, path):
    steps, key = path
    region = _region(a, steps)
    return region[key] if key is not None else region.copy()


def _index_put_accumulate(zeros, g, path):
    steps, key = path
    out = zeros.copy()
    region = _region(out, steps)
    if key is None:
        region[...] += g
    else:
        np.add.at(region, key, g)
    return out


register(Op(
    "index_backward", _index_put_accumulate,
    ("self: grad", "values: index.apply((grad,), (path,))"), inputs=("self", "values"),
    attrs=("path",), grad_fn="IndexPutImplBackward0", jvp="linear", dtype="same",
    kind="shape", method=False, public=False,
    doc="self (zeros) with values added at path (repeated indices accumulate)",
    samples=[Sample((4,), (3,), attrs={"path": ((), (np.array([0, 2, 0]),))})]))


@helper
def _index_vjp(g, self_shape, path):
    zeros = Tensor._make(np.zeros(self_shape, g._data.dtype), None, 0, False)
    return OPS["index_backward"].apply((zeros, g), (path,))


register(Op(
    "index", _index, "self: _index_vjp(grad, self_shape, path)",
    attrs=("path",), grad_fn="IndexBackward0", jvp="linear", dtype="same", kind="shape",
    method=False, public=False, doc="self[indices] with tensor indices (a copy)",
    samples=[Sample((4,), attrs={"path": ((), (np.array([0, 2, 0]),))}),
             Sample((2, 3), attrs={"path": ((), (slice(None), np.array([True, False, True])))})]))


def _index_items(index):
    """The index as a tuple of items; some lists count as tuples, as in PyTorch."""
    if isinstance(index, tuple):
        return index, True
    if isinstance(index, list) and len(index) < 32 and any(
            isinstance(i, (Tensor, list, tuple, slice)) or i is None or i is Ellipsis for i in index):
        warnings.warn(messages.SEQUENCE_INDEX, UserWarning, stacklevel=4)
        return tuple(index), True
    return (index,), False


def _as_int(v):
    if isinstance(v, Tensor):
        if v._data.ndim == 0 and v.dtype.category == 1:
            return int(v._data)
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    return v if v is None else int(v.__index__())


def _classify(item):
    """(kind, value) for one index item."""
    if item is None:
        return "none", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, (bool, np.bool_)):
        return "bool", bool(item)
    if isinstance(item, (int, np.integer)):
        return "int", int(item)
    if isinstance(item, slice):
        return "slice", (_as_int(item.start), _as_int(item.stop), _as_int(item.step))
    if isinstance(item, Tensor):
        if item._data.ndim == 0 and item.dtype.category == 1:
            return "int", int(item._data)
        if item._data.ndim == 0 and item.dtype.category == 0:
            return "bool", bool(item._data)
        return "tensor", item._data
    if isinstance(item, (np.ndarray, list, tuple)):
        # (data, not a tensor: PyTorch makes it a long tensor, a bool or byte one a mask)
        if isinstance(item, np.ndarray):
            value = item
        else:
            from ..engine.tensor import to_array
            value = to_array(list(item)) if len(item) else np.zeros(0, np.int64)
        if value.dtype.kind in "iu" and value.dtype != np.uint8:
            value = value.astype(np.int64)
        return "tensor", value
    if isinstance(item, float):
        raise IndexError(messages.VALID_INDICES.format("float"))
    if isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    raise IndexError(messages.VALID_INDICES.format(type(item).__name__))


@helper
def _parse_index(shape, index, setitem):
    """PyTorch's applySlicing: the basic steps, the tensor indices (as a NumPy key over the
    result of the steps) and the shape after the steps."""
    items, is_tuple = _index_items(index)
    if Vmap.levels and any(batched(i) and i.dtype is dtypes.bool_ and i.dim() for i in items):
        raise RuntimeError(messages.VMAP_BOOLEAN_MASK)
    kinds = [_classify(i) for i in items]
    if not is_tuple and kinds[0][0] == "int" and not shape:
        raise IndexError(messages.ZERO_DIM_INDEX)
    specified = 0
    for kind, value in kinds:
        if kind in ("int", "slice"):
            specified += 1
        elif kind == "tensor":
            specified += value.ndim if value.dtype == np.bool_ else 1
    if specified > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    optimize = is_tuple or setitem  # a lone `x[:]` is a SliceBackward0 view, `x[:, :]` an alias
    steps = []
    tensors = {}
    cur = list(shape)
    dim = 0
    real = 0  # the dimension of self an item refers to (for messages)
    for position, (kind, value) in enumerate(kinds):
        if kind == "int":  # applySelect names the position of the item in the index
            size = cur[dim]
            if not -size <= value < size:
                raise IndexError(f"index {value} is out of bounds for dimension {position} with "
                                 f"size {size}")
            steps.append(("select", dim, value % size))
            del cur[dim]
            real += 1
        elif kind == "slice":
            start, stop, step = value
            step = 1 if step is None else step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if not (optimize and start in (None, 0) and (stop is None or stop >= cur[dim])
                    and step == 1):  # applySlice skips a slice that keeps everything
                s, e, st = _slice_bounds(cur[dim], start, stop, step)
                steps.append(("slice", dim, s, e, st))
                cur[dim] = len(range(s, e, st))
            dim += 1
            real += 1
        elif kind == "none":
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            dim += 1
        elif kind == "ellipsis":
            dim += len(shape) - specified
            real += len(shape) - specified
        elif kind == "bool":
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            tensors[dim] = np.zeros(1 if value else 0, np.int64)
            dim += 1
        else:
            dim, real = _tensor_index(value, cur, dim, real, shape, tensors)
    key = None
    if tensors:
        arrays = list(tensors.values())
        try:
            indexed = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(a.shape)) for a in arrays)) from None
        # (the index tensors broadcast as large as they like: `x[i[:, None], j]`; the result,
        # and the positions an assignment writes, before any of them is made)
        check_numel(indexed + tuple(c for d, c in enumerate(cur) if d not in tensors))
        _check_index_bounds([(tensors[d], cur[d]) for d in sorted(tensors)])
        key = tuple(tensors.get(d, slice(None)) for d in range(max(tensors) + 1))
    return tuple(steps), key, tuple(cur)


def _check_index_bounds(indexed):
    """The index kernel's bounds check: element by element (broadcast), each indexed dimension
    in turn, a dimension numbered among the indexed ones only."""
    arrays = np.broadcast_arrays(*(a for a, _ in indexed))
    bad = np.stack([(a < -size) | (a >= size) for a, (_, size) in zip(arrays, indexed)]
                   ).reshape(len(indexed), -1)
    if bad.any():
        position = int(np.argmax(bad.any(axis=0)))
        rank = int(np.argmax(bad[:, position]))
        raise IndexError(f"index {arrays[rank].reshape(-1)[position]} is out of bounds for "
                         f"dimension {rank} with size {indexed[rank][1]}")


def _tensor_index(value, cur, dim, real, shape, tensors):
    if value.dtype == np.bool_ or value.dtype == np.uint8:
        if value.dtype == np.uint8:  # (PyTorch's TORCH_WARN: at each indexing)
            warnings.warn(messages.UINT8_INDEX, UserWarning, stacklevel=2)
        value = value.astype(bool)
        for j in range(value.ndim):
            if value.shape[j] != cur[dim + j]:
                raise IndexError(f"The shape of the mask {list(value.shape)} at index {j} does not "
                                 f"match the shape of the indexed tensor {list(shape)} at index "
                                 f"{real + j}")
        for j, arr in enumerate(np.nonzero(value)):
            tensors[dim + j] = arr
        return dim + value.ndim, real + value.ndim
    tensors[dim] = index_array(value)
    return dim + 1, real + 1


_STEP_OPS = {"select": lambda t, s: OPS["select"].apply((t,), (s[1], s[2])),
             "slice": lambda t, s: OPS["slice"].apply((t,), s[1:]),
             "unsqueeze": lambda t, s: OPS["unsqueeze"].apply((t,), (s[1],))}


def _getitem_compose(self, index):
    steps, key, _ = _parse_index(self._data.shape, index, setitem=False)
    result = self
    for step in steps:
        result = _STEP_OPS[step[0]](result, step)
    if key is not None:
        return OPS["index"].apply((result,), (((), key),))
    if result is self:
        return OPS["alias"].apply((self,), ())
    return result


register(Composed(
    "getitem", _getitem_compose, via=("select", "slice", "unsqueeze", "index"),
    attrs=("index",), method=False, public=False,
    doc="self[index]: ints, slices, None, ..., lists, long tensors, masks",
    samples=[Sample((3,), attrs={"index": 1}), Sample((2, 3), attrs={"index": (slice(None), 1)}),
             Sample((4,), attrs={"index": [0, 2, 0]}), Sample((2, 3), attrs={"index": (None, 1)}),
             Sample((2, 3), attrs={"index": (Ellipsis, slice(0, 3, 2))}),
             Sample((2, 3), attrs={"index": ([1, 0], slice(1, None))}),
             Sample((2, 3), attrs={"index": (1, [True, False, True])})],
    kind="shape", dtype="same"))


# ------------------------------------------------------------------ item assignment

def _index_put(a, value, path):
    steps, key = path
    out = a.copy()
    region = _region(out, steps)
    region[key if key is not None else ...] = value
    return out


@helper
def _index_put_self_vjp(g, path):
    if not path[0] and path[1] is None:  # (the whole of self written: CopyBackwards' and
        return OPS["zeros_like"](g)      # FillBackward's zeros_like(grad), no graph)
    return _SETITEM_OPS["CopySlices"].apply((g, 0.0), (path,))


@helper
def _index_put_value_vjp(g, path):
    if not path[0] and path[1] is None:  # (CopyBackwards: grad itself, summed to the shape)
        return g
    return OPS["index"].apply((g,), (path,))


@helper
def _index_put_values_jvp(t, self_shape, path):
    zeros = Tensor._make(np.zeros(self_shape, t._data.dtype), None, 0, False)
    return _SETITEM_OPS["CopySlices"].apply((zeros, t), (path,))


@helper
def _copy_slices_backward(grad, path):
    """The gradients of `self[basic index] = values` (self's CopySlices, whose fn is the copy's
    CopyBackwards).  Outside a create_graph backward: grad with zeros at the region, and the
    region of grad.  In one (and for a region that is a strided view): CopySlices::apply_impl's
    recorded steps, as PyTorch runs them: result = an empty tensor, result.copy_(grad)
    (CopyBackwards); grad_slice = its region (AsStridedBackward0); CopyBackwards' gradients of
    grad_slice.clone() (zeros for self, the clone for values: CloneBackward0);
    grad_slice.copy_(zeros) (CopySlices of result)."""
    steps, key = path
    if GradMode.enabled and key is None and steps:
        from ..engine.storage import positions
        from .views import _affine, strided_view
        result = Tensor._make(np.empty(grad._data.shape, grad._data.dtype), None, 0, False)
        result.copy_(grad)
        pos = positions(_region(result._data, steps), result._data)
        geometry = _affine(pos)
        if geometry is not None:
            grad_slice = strided_view(result, pos, geometry)
            values_grad = OPS["clone"](grad_slice)
            grad_slice.copy_(Tensor._make(np.zeros(pos.shape, grad._data.dtype), None, 0, False))
            return result, values_grad
    return _index_put_self_vjp(grad, path), _index_put_value_vjp(grad, path)


def _setitem_op(name):
    derivatives = (("self, values: _copy_slices_backward(grad, path)",) if name == "CopySlices"
                   else ("self: _index_put_self_vjp(grad, path)",
                         "values: _index_put_value_vjp(grad, path)"))
    op = Op(
        "index_put_path", _index_put, derivatives,
        inputs=("self", "values"), attrs=("path",), grad_fn=name,
        jvp=("self: _index_put_self_vjp(self_t, path)",
             "values: _index_put_values_jvp(values_t, self_shape, path)"), dtype="same",
        kind="shape", method=False, public=False,
        doc="self with values written at path (item assignment)",
        samples=[Sample((3,), (), attrs={"path": ((("select", 0, 1),), None)}),
                 Sample((2, 3), (3,), attrs={"path": ((), (np.array([1, 0]),))})])
    op.hidden_saved = ("path",)  # (gradcli's own attribute: PyTorch's nodes show none of it)
    return op


# CopySlices: a view of self was written; IndexPutBackward0: tensor indices on self itself;
# CopyBackwards / FillBackward3: the whole of self was written with a tensor / a number.
_SETITEM_OPS = {name: _setitem_op(name) for name in
                ("CopySlices", "IndexPutBackward0", "CopyBackwards", "FillBackward3")}
for _name in ("CopySlices", "CopyBackwards"):  # C++ nodes: name() is qualified, as PyTorch's
    _SETITEM_OPS[_name].node_cls.name = lambda self, _q="torch::autograd::" + _name: _q
register(_SETITEM_OPS["CopySlices"])


MASKED_FILL_BYTE = ("masked_fill_ only supports boolean masks, but got mask with dtype unsigned "
                    "char")


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _setitem_value(self, value, key, region_shape):
    """The value as PyTorch's copy_to / index_put_ prepare it (view, expand)."""
    if not isinstance(value, Tensor):
        if isinstance(value, (list, tuple, np.ndarray)):
            from ..engine.tensor import to_array
            value = Tensor._make(to_array(value, self.dtype), None, 0, False)
        elif isinstance(value, (int, float, bool, complex, np.generic)):
            return value.item() if isinstance(value, np.generic) else value
        else:
            raise TypeError(f"can't assign a {type(value).__name__} to a "
                            f"torch.{self.dtype.tensor_type}")
    shape = tuple(value._data.shape)
    stripped = _strip_leading_ones(shape)
    if key is None:
        if shape == region_shape or not shape:
            return value
        value = OPS["view"].apply((value,), (stripped,))
        if stripped != region_shape:
            value = OPS["expand"].apply((value,), (region_shape,))
        return value
    if stripped != shape:
        value = OPS["view"].apply((value,), (stripped,))
    try:
        if np.broadcast_shapes(stripped, region_shape) != region_shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be "
                           f"broadcast to indexing result of shape {list(region_shape)}") from None
    return value


def _check_index_put_dtype(self, index, value):
    """index_put_ wants value's dtype to be self's, unless it dispatches to masked_fill_ (a
    one-element value and a single boolean mask as the only tensor index), which refuses a
    uint8 mask."""
    items = index if isinstance(index, tuple) else (index,)
    tensors = [i for i in items if isinstance(i, (list, np.ndarray)) or (
        isinstance(i, Tensor) and (i.dim() or i.dtype is dtypes.bool_))]
    if len(tensors) == 1 and isinstance(tensors[0], Tensor) and \
            tensors[0].dtype is dtypes.uint8 and \
            (not isinstance(value, Tensor) or value._data.size == 1):
        raise RuntimeError(MASKED_FILL_BYTE)
    if not isinstance(value, Tensor) or value.dtype is self.dtype or not tensors:
        return
    masks = [i for i in tensors if (isinstance(i, Tensor) and i.dtype is dtypes.bool_) or (
        isinstance(i, list) and i and all(isinstance(v, bool) for v in i))]
    if value._data.size == 1 and len(tensors) == 1 and masks:
        return
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{self.dtype.short} for the destination and {value.dtype.short} for the "
                       f"source.")


def _write_expanded(data, steps, key, new):
    """`expanded[index] = value` (data: a read-only np.broadcast_to view): as PyTorch, refused
    when two of the written elements share memory, else written through a writeable alias."""
    from . import INTERNAL_OVERLAP, _expanded_target
    mask = np.zeros(data.shape, bool)
    region = _region(mask, steps)
    if key is None:
        region[...] = True
    else:
        region[key] = True
    where = np.nonzero(mask)
    offsets = sum(np.asarray(i, np.int64) * st for i, st in zip(where, data.strides)) \
        if data.ndim else np.zeros(1, np.int64)
    if len(np.unique(offsets)) != len(offsets):
        raise RuntimeError(INTERNAL_OVERLAP)
    _expanded_target(data, "fill")[mask] = new[mask]


def _setitem(self, index, value):
    """`self[index] = value`: writes in place and bumps the version counter; when autograd
    records it, self's grad_fn becomes CopySlices (or IndexPutBackward0, CopyBackwards, …) as in
    PyTorch."""
    check_batched_write(self, (value,))
    steps, key, shape = _parse_index(self._data.shape, index, setitem=True)
    region_shape = _region(self._data, steps)[key].shape if key is not None else shape
    value = _setitem_value(self, value, key, tuple(region_shape))
    if key is not None:
        _check_index_put_dtype(self, index, value)
    is_tensor = isinstance(value, Tensor)
    if is_tensor and key is None:  # (a copy_ into the region, as PyTorch runs it)
        from . import assert_no_partial_overlap
        assert_no_partial_overlap(_region(self._data, steps), value._data)
    recording = GradMode.enabled and (
        self.requires_grad_flag or (is_tensor and value.requires_grad_flag))
    if steps:
        name = "CopySlices"
    elif key is not None:
        name = "IndexPutBackward0"
    else:
        name = "CopyBackwards" if is_tensor else "FillBackward3"
    op = _SETITEM_OPS[name]
    if recording:
        base = self._base
        if steps and type(self) is StaleView:  # PyTorch's select/slice of it reads its
            raise self.stale_error()           # grad_fn before the write
        if self._no_grad_view:
            from .views import no_grad_view_error
            raise no_grad_view_error(self, steps[-1][0] if steps else None)
        if self._multi_output_view:
            from .views import multi_output_view_error
            raise multi_output_view_error(self, steps[-1][0] if steps else None)
        if self.grad_fn is None and self.requires_grad_flag:
            raise RuntimeError(messages.VIEW_OF_LEAF_INPLACE if steps else messages.LEAF_INPLACE)
        if base is not None and base.grad_fn is None and base.requires_grad_flag:
            raise RuntimeError(messages.VIEW_OF_LEAF_INPLACE)
        source = Tensor._make(self._data, self.grad_fn, self._output_nr, self.requires_grad_flag)
        source._fw = self._fw
        result = op.apply((source, value), ((steps, key),))
    else:
        prev = GradMode.enabled
        GradMode.enabled = False
        try:
            result = op.apply((self, value), ((steps, key),))
        finally:
            GradMode.enabled = prev
    if self._data.flags.writeable:
        self._data[...] = result._data
    else:
        _write_expanded(self._data, steps, key, result._data)
    from .views import rebase, regenerate, take_result
    take_result(self, result, recording)
    if recording and self._base is not None:  # a view: its base's history is rebased
        rebase(self, result)
    regenerate(self, self if recording and self._base is not None else None)




# ------------------------------------------------------------------ broadcasting

def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (those already of that shape as they are)."""
    from .arith import broadcast_error
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shapes = [tuple(t._data.shape) for t in tensors]
    message = broadcast_error(*shapes) if shapes else None
    if message:
        raise RuntimeError(message)
    shape = np.broadcast_shapes(*shapes) if shapes else ()
    return tuple(t if tuple(t._data.shape) == shape else OPS["expand"].apply((t,), (shape,))
                 for t in tensors)


def broadcast_to(input, size):
    """input.expand(size)."""
    return OPS["expand"].apply((input,), (tuple(size),))


register(Plain("broadcast_tensors", broadcast_tensors,
               "the tensors expanded to their common shape", kind="shape"))
register(Plain("broadcast_to", broadcast_to, "input.expand(size)", kind="shape"))


def _broadcast_to_method(self, *size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    return broadcast_to(self, size)
