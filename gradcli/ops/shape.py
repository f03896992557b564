"""Shape operations: reshape, expand, indexing, stack/cat, transpose, … and dtype conversion."""

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Size, Tensor, check_numel
from .registry import Op, Sample, register, wrap_dim


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _sum_to_size(a, size):
    size = tuple(size)
    lead = a.ndim - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and a.shape[lead + i] != 1)
    out = np.sum(a, axis=axes, keepdims=True) if axes else a
    return out.reshape(size)


register(Op(
    "sum_to_size", _sum_to_size, lambda g, self_shape: g.expand(self_shape),
    attrs=("size",), grad_fn="SumBackward1", jvp="linear", dtype="same", kind="shape",
    doc="sum broadcast dimensions away down to size", formula="1 (broadcast back)",
    samples=[Sample((2, 3), attrs={"size": (1, 3)}), Sample((2, 3), attrs={"size": (3,)})]))


def _expand(a, *size):
    size = _shape_arg(size)
    lead = len(size) - a.ndim
    if lead < 0:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(a.shape)}}}, size={list(size)}): the "
                           "number of sizes provided ({}) must be greater or equal to the number "
                           "of dimensions in the tensor ({})".format(len(size), a.ndim))
    target = tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(size))
    for i, s in enumerate(a.shape):
        if s != 1 and s != target[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match "
                               f"the existing size ({s}) at non-singleton dimension {lead + i}.  "
                               f"Target sizes: {list(size)}.  Tensor sizes: {list(a.shape)}")
    check_numel(target)
    return np.broadcast_to(a, target)


class _VarShape(Op):
    """Ops whose attributes are a shape given as varargs (`x.view(2, 3)` or `x.view((2, 3))`)."""

    def __call__(self, *args, **kwargs):
        if "size" in kwargs or "shape" in kwargs:
            shape = kwargs.pop("size", None) or kwargs.pop("shape")
            return self.apply((args[0],), (tuple(shape),))
        if not args:
            raise TypeError(f"{self.name}() missing required argument 'input'")
        if kwargs:
            raise TypeError(f"{self.name}() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        return self.apply((args[0],), (_shape_arg(args[1:]),))


register(_VarShape(
    "expand", lambda a, size: _expand(a, size), lambda g, self_shape: g.sum_to_size(self_shape),
    attrs=("size",), view=True, jvp="linear", dtype="same", kind="shape", function=False,
    doc="broadcast size-1 dimensions to size (a view)", formula="sum over the expanded dims",
    samples=[Sample((3,), attrs={"size": (2, 3)}), Sample((2, 1), attrs={"size": (2, 3)})]))


def _reshape(a, shape):
    shape = tuple(shape)
    try:
        return a.reshape(shape)
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {a.size}") from None


def _view(a, shape):
    out = _reshape(a, shape)
    if not np.shares_memory(out, a) and a.size:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return out


RESHAPE_SAMPLES = [Sample((2, 3), attrs={"shape": (3, 2)}), Sample((6,), attrs={"shape": (2, -1)})]
register(_VarShape(
    "reshape", _reshape, lambda g, self_shape: g.reshape(self_shape), attrs=("shape",),
    grad_fn="ViewBackward0", view=True, jvp="linear", dtype="same", kind="shape",
    doc="the same elements in a new shape", formula="reshape back", samples=RESHAPE_SAMPLES))
register(_VarShape(
    "view", _view, lambda g, self_shape: g.reshape(self_shape), attrs=("shape",),
    grad_fn="ViewBackward0", view=True, jvp="linear", dtype="same", kind="shape",
    function=False, doc="a view with a new shape", formula="reshape back",
    samples=RESHAPE_SAMPLES))


def _to(a, dtype):
    return a.astype(dtype.np) if a.dtype != dtype.np else a.copy()


register(Op(
    "to_dtype", _to, lambda g, self_dtype: g.to_dtype(self_dtype), attrs=("dtype",),
    grad_fn="ToCopyBackward0", jvp="linear", dtype="numpy", kind="shape", method=True,
    public=False, doc="convert to dtype", formula="1 (converted back)",
    samples=[Sample((3,), attrs={"dtype": dtypes.float32}, gradgrad=False)]))

register(Op(
    "clone", lambda a, memory_format=None: a.copy(), lambda g: g,
    attrs=(("memory_format", None),), jvp="linear", dtype="same", kind="shape",
    doc="a copy", formula="1", samples=[Sample((2, 3))]))


def _unsqueeze(a, dim):
    return np.expand_dims(a, wrap_dim(dim, a.ndim + 1))


register(Op(
    "unsqueeze", _unsqueeze, lambda g, dim: g.squeeze(dim), attrs=("dim",), view=True,
    jvp="linear", dtype="same", kind="shape", inplace=False, doc="insert a size-1 dimension",
    formula="squeeze back", samples=[Sample((3,), attrs={"dim": 0}),
                                    Sample((2, 3), attrs={"dim": -1})]))


def _squeeze(a, dim):
    if dim is None:
        return a.reshape(tuple(s for s in a.shape if s != 1))
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    ax = tuple(d for d in (wrap_dim(d, a.ndim) for d in dims) if a.ndim and a.shape[d] == 1)
    return np.squeeze(a, axis=ax) if ax else a.view()


register(Op(
    "squeeze", _squeeze, lambda g, self_shape: g.reshape(self_shape), attrs=(("dim", None),),
    view=True, jvp="linear", dtype="same", kind="shape", doc="remove size-1 dimensions",
    formula="reshape back", samples=[Sample((2, 1, 3)), Sample((1, 3), attrs={"dim": 0})]))


def _stack(arrays, dim):
    if not arrays:
        raise RuntimeError("stack expects a non-empty TensorList")
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        first = arrays[0].shape
        bad = next(i for i, a in enumerate(arrays) if a.shape != first)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at "
                           f"entry 0 and {list(arrays[bad].shape)} at entry {bad}")
    d = arrays[0].dtype
    for a in arrays[1:]:
        d = np.promote_types(d, a.dtype)
    return np.stack(arrays, axis=wrap_dim(dim, arrays[0].ndim + 1)).astype(d, copy=False)


register(Op(
    "stack", _stack, lambda g, dim, shapes: g.unbind(wrap_dim(dim, len(shapes[0]) + 1)),
    inputs=("*tensors",), attrs=(("dim", 0),), jvp="linear", dtype="numpy", kind="shape",
    method=False, doc="join tensors along a new dimension", formula="unbind",
    samples=[Sample((3,), (3,)), Sample((2, 3), (2, 3), attrs={"dim": 1})]))


def _unbind(a, dim):
    d = wrap_dim(dim, a.ndim)
    return tuple(np.take(a, i, axis=d) for i in range(a.shape[d]))


register(Op(
    "unbind", _unbind, lambda g, dim: _stack_tensors(g, dim),
    attrs=(("dim", 0),), outputs="many", jvp="linear", dtype="numpy", kind="shape", view=True,
    doc="the slices along dim, as a tuple", formula="stack",
    samples=[Sample((2, 3)), Sample((2, 3), attrs={"dim": 1})]))


def _stack_tensors(gs, dim):
    from . import OPS
    return OPS["stack"](list(gs), dim)


# ------------------------------------------------------------------ indexing

def _index_key(index):
    """A NumPy key for a Python index (tensors become arrays)."""
    if isinstance(index, tuple):
        return tuple(_index_key(i) for i in index)
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, list):
        return np.asarray([i._data if isinstance(i, Tensor) else i for i in index])
    return index


def _index_grad_fn(index):
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (list, Tensor, np.ndarray)) for i in items):
        return "IndexBackward0"
    kinds = [i for i in items if i is not Ellipsis]
    if not kinds:
        return "AliasBackward0"
    last = kinds[-1]
    if last is None:
        return "UnsqueezeBackward0"
    if isinstance(last, slice):
        return "SliceBackward0"
    return "SelectBackward0"


def _getitem(a, index):
    key = _index_key(index)
    try:
        out = a[key]
    except IndexError as e:
        raise IndexError(_index_error(a, key, e)) from None
    return out


def _index_error(a, key, e):
    text = str(e)
    if "out of bounds" in text:
        import re
        m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", text)
        if m:
            return (f"index {m.group(1)} is out of bounds for dimension {m.group(2)} with size "
                    f"{m.group(3)}")
    if "too many indices" in text:
        return f"too many indices for tensor of dimension {a.ndim}"
    return text


def _index_backward(g, shape, index):
    key = _index_key(index)
    out = np.zeros(shape, g.dtype)
    np.add.at(out, key, g)
    return out


index_backward = register(Op(
    "index_backward", _index_backward, lambda g, index: g[index], attrs=("shape", "index"),
    grad_fn="IndexPutBackward0", jvp="linear", dtype="same", kind="shape", method=True,
    public=False, doc="scatter g into zeros of shape at index", formula="index again"))


class _GetItem(Op):
    """Indexing; the grad_fn name depends on the kind of index, as in PyTorch."""

    def __init__(self):
        super().__init__(
            "getitem", _getitem,
            lambda g, self_shape, index: g.index_backward(self_shape, index),
            attrs=("index",), jvp="linear", dtype="same", kind="shape", method=False,
            public=False, doc="self[index]: ints, slices, None, ..., lists, masks",
            formula="scatter into zeros",
            samples=[Sample((3,), attrs={"index": 1}), Sample((2, 3), attrs={"index": (slice(None), 1)}),
                     Sample((4,), attrs={"index": [0, 2, 0]}), Sample((2, 3), attrs={"index": (None, 1)})])
        self.by_name = {}

    def apply(self, inputs, attrs):
        name = _index_grad_fn(attrs[0])
        op = self.by_name.get(name)
        if op is None:
            op = self.by_name[name] = Op(
                "getitem", _getitem, self.vjps[0][0], attrs=("index",), jvp="linear",
                dtype="same", grad_fn=name, method=False, public=False,
                view=name != "IndexBackward0")
        return Op.apply(op, inputs, attrs)


register(_GetItem())
