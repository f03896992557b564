"""The scatter/index family: scatter (ScatterBackward0 with a src tensor, ScatterBackward1 with a
value), scatter_add, index_add, index_copy, index_fill (IndexFillBackward0/1), as functions and
methods, with their in-place variants (same nodes), and PyTorch's messages.  The ops take the
index as an attribute (not differentiable), as gather does; the public functions put the
arguments in PyTorch's order (self, dim, index, src)."""

import numpy as np

from ..engine.tensor import Tensor, install_attribute
from .derivatives import helper
from .registry import OPS, Op, Plain, Sample, register, wrap_dim
from .shape import _array, _gather_key, check_index_bounds


def _short_name(dtype):
    return {"f": {4: "Float", 8: "Double", 2: "Half"}, "i": {8: "Long", 4: "Int", 2: "Short",
                                                          1: "Char"},
            "u": {1: "Byte"}, "b": {1: "Bool"}}.get(dtype.kind, {}).get(dtype.itemsize,
                                                                        str(dtype))


# ------------------------------------------------------------------ scatter, scatter_add

def _scatter_check(name, a, dim, index, src=None):
    index = _array(index)
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype != a.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    if index.ndim != a.ndim and not (a.ndim == 0 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = wrap_dim(dim, a.ndim)
    for k in range(a.ndim):
        too_big = (k != d and index.shape[k] > a.shape[k]) or (
            src is not None and src.ndim == a.ndim and index.shape[k] > src.shape[k])
        if too_big:
            src_part = (f" and to be no larger size than src {list(src.shape)}"
                        if src is not None else "")
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(a.shape)} apart from dimension {d}{src_part}")
    check_index_bounds(a, d, index)
    return index, d


def _src_part(src, index):
    """The elements of src that index covers (src may be larger than index)."""
    return src[tuple(slice(0, n) for n in index.shape)] if src.ndim else src


def _scatter_src(a, src, dim, index):
    index, d = _scatter_check("scatter", a, dim, index, src)
    out = a.copy()
    if a.ndim == 0:
        if index.size:
            out[...] = src.reshape(-1)[-1] if src.ndim else src
        return out
    out[_gather_key(index, d)] = _src_part(src, index)
    return out


def _scatter_value(a, dim, index, value):
    index, d = _scatter_check("scatter", a, dim, index)
    out = a.copy()
    if a.ndim == 0:
        if index.size:
            out[...] = value
        return out
    out[_gather_key(index, d)] = value
    return out


def _scatter_add(a, src, dim, index):
    index, d = _scatter_check("scatter_add", a, dim, index, src)
    out = a.copy()
    if a.ndim == 0:
        out[...] = out + _src_part(src, index).sum()
        return out
    np.add.at(out, _gather_key(index, d), _src_part(src, index))
    return out


@helper
def _zeros_at(g, dim, index):
    """g with zeros where index scatters (scatter's gradient of self)."""
    return OPS["scatter.value"].apply((g,), (dim, index, 0.0))


@helper
def _gathered(g, dim, index):
    """gather(g, dim, index): the size of index, as PyTorch's (a src larger than index gets
    PyTorch's 'invalid gradient' error from the engine, as in PyTorch)."""
    return OPS["gather"].apply((g,), (dim, index))


_SCATTER_SAMPLES = [
    Sample((3, 4), (2, 4), attrs={"dim": 0, "index": [[0, 1, 2, 0], [2, 0, 1, 1]]}),
    Sample((3, 4), (3, 2), attrs={"dim": 1, "index": [[0, 3], [1, 2], [3, 0]]})]

register(Op(
    "scatter.src", _scatter_src,
    ("self: _zeros_at(grad, dim, index)", "src: _gathered(grad, dim, index)"),
    inputs=("self", "src"), attrs=("dim", "index"), grad_fn="ScatterBackward0", jvp="linear",
    dtype="same", kind="shape", method=False, public=False,
    doc="self with src written at index along dim", samples=_SCATTER_SAMPLES))
register(Op(
    "scatter.value", _scatter_value, "self: _zeros_at(grad, dim, index)",
    attrs=("dim", "index", "value"), grad_fn="ScatterBackward1",
    jvp="self: _zeros_at(self_t, dim, index)", dtype="same",
    kind="shape", method=False, public=False, doc="self with value written at index along dim",
    samples=[Sample((3, 4), attrs={"dim": 0, "index": [[0, 1, 2, 0]], "value": 2.5})]))
register(Op(
    "scatter_add.default", _scatter_add,
    ("self: grad", "src: _gathered(grad, dim, index)"),
    inputs=("self", "src"), attrs=("dim", "index"), grad_fn="ScatterAddBackward0",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="self with src added at index along dim (repeated indices accumulate)",
    samples=_SCATTER_SAMPLES))


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    if reduce is not None:
        raise RuntimeError("scatter(..., reduce=...) is not supported in gradcli: use "
                           "scatter_add, or scatter_reduce")
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    src = value if src is None else src
    if isinstance(src, Tensor):
        return OPS["scatter.src"].apply((input, src), (dim, index))
    return OPS["scatter.value"].apply((input,), (dim, index, src))


def scatter_add(input, dim, index, src):
    return OPS["scatter_add.default"].apply((input, src), (dim, index))


# ------------------------------------------------------------------ index_add, index_copy, index_fill

def _index_check(name, a, dim, index, source=None, vector_message=None):
    index = _array(index)
    d = wrap_dim(dim, a.ndim)
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {_short_name(index.dtype)} and size: "
                         f"{list(index.shape)}")
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{_short_name(index.dtype)}")
    index = index.reshape(-1)
    if source is not None:
        count = source.shape[d] if source.ndim else 1
        if count != index.size:
            raise (IndexError if name == "index_copy_" else RuntimeError)(
                f"{name}(): Number of indices ({index.size}) should be equal to "
                f"source.size(dim){':' if name == 'index_add_' else ''} ({count})"
                f"{', for dim: ' + str(d) if name == 'index_add_' else ''}")
    size = a.shape[d] if a.ndim else 1
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        prefix = "index_copy_(): " if name == "index_copy_" else ""
        raise (IndexError if name != "index_add_" else RuntimeError)(
            f"{prefix}index {bad[0]} is out of bounds for dimension {d} with size {size}")
    return index, d


def _index_add(a, source, dim, index, alpha):
    index, d = _index_check("index_add_", a, dim, index, source)
    out = a.copy()
    if alpha != 1:
        source = source * np.asarray(alpha, a.dtype)
    if a.ndim == 0:
        out[...] = out + source.sum()
        return out
    np.add.at(out, (slice(None),) * d + (index,), source)
    return out


def _index_copy(a, source, dim, index):
    index, d = _index_check("index_copy_", a, dim, index, source)
    out = a.copy()
    if a.ndim == 0:
        out[...] = source
        return out
    out[(slice(None),) * d + (index,)] = source
    return out


def _index_fill(a, dim, index, value):
    index, d = _index_check("index_fill_", a, dim, index)
    out = a.copy()
    if a.ndim == 0:
        out[...] = value
        return out
    out[(slice(None),) * d + (index,)] = value
    return out


def _index_fill_tensor(a, value, dim, index):
    if value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    return _index_fill(a, dim, index, value)


@helper
def _index_selected(g, dim, index, source_shape):
    part = OPS["index_select"].apply((g,), (dim, index)) if g.dim() else g
    return part.reshape(source_shape) if tuple(part.shape) != tuple(source_shape) else part


@helper
def _index_zeroed(g, dim, index):
    return OPS["index_fill.int_Scalar"].apply((g,), (dim, index, 0.0))


register(Op(
    "index_add.default", _index_add,
    ("self: grad", "source: _index_selected(grad, dim, index, source_shape) * alpha if alpha != 1 "
                   "else _index_selected(grad, dim, index, source_shape)"),
    inputs=("self", "source"), attrs=("dim", "index", ("alpha", 1)),
    grad_fn="IndexAddBackward0", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="self with alpha * source added at index along dim",
    samples=[Sample((3, 4), (2, 4), attrs={"dim": 0, "index": [0, 2]}),
             Sample((3, 4), (3, 3), attrs={"dim": 1, "index": [1, 1, 3], "alpha": 2.0})]))
register(Op(
    "index_copy.default", _index_copy,
    ("self: _index_zeroed(grad, dim, index)",
     "source: _index_selected(grad, dim, index, source_shape)"),
    inputs=("self", "source"), attrs=("dim", "index"), grad_fn="IndexCopyBackward0",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="self with source written at index along dim",
    samples=[Sample((3, 4), (2, 4), attrs={"dim": 0, "index": [0, 2]}),
             Sample((3, 4), (3, 2), attrs={"dim": 1, "index": [3, 0]})]))
register(Op(
    "index_fill.int_Scalar", _index_fill, "self: _index_zeroed(grad, dim, index)",
    attrs=("dim", "index", "value"), grad_fn="IndexFillBackward0",
    jvp="self: _index_zeroed(self_t, dim, index)", dtype="same",
    kind="shape", method=False, public=False, doc="self with value at index along dim",
    samples=[Sample((3, 4), attrs={"dim": 1, "index": [0, 2], "value": -1.0})]))
register(Op(
    "index_fill.int_Tensor", _index_fill_tensor,
    ("self: _index_zeroed(grad, dim, index)", "value: index_select(grad, dim, index).sum()"),
    inputs=("self", "value"), attrs=("dim", "index"), grad_fn="IndexFillBackward1",
    jvp="linear", dtype="same", kind="shape", method=False, public=False,
    doc="self with a 0-d tensor value at index along dim",
    samples=[Sample((3, 4), (), attrs={"dim": 1, "index": [0, 2]})]))


def index_add(input, dim, index, source, *, alpha=1):
    return OPS["index_add.default"].apply((input, source), (dim, index, alpha))


def index_copy(input, dim, index, source):
    return OPS["index_copy.default"].apply((input, source), (dim, index))


def index_fill(input, dim, index, value):
    if isinstance(value, Tensor):
        return OPS["index_fill.int_Tensor"].apply((input, value), (dim, index))
    return OPS["index_fill.int_Scalar"].apply((input,), (dim, index, value))


# ------------------------------------------------------------------ in place, and the table

class _Reordered:
    """An op as ops._inplace calls it (op(self, *args)), in PyTorch's argument order."""

    def __init__(self, fn, op_name):
        self.fn, self.name = fn, op_name

    @property
    def saves(self):
        return OPS[self.name].saves if OPS[self.name].saves is not None else ()

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def _in_place(fn, op_name):
    def method(self, *args, **kwargs):
        from . import _inplace
        OPS[op_name].prepare()
        return _inplace(_Reordered(fn, op_name))(self, *args, **kwargs)
    return method


for _name, _fn, _sig, _via, _doc in [
        ("scatter", scatter, "scatter(input, dim, index, src | value)",
         ("scatter.src", "scatter.value"), "input with src (or value) written at index along dim"),
        ("scatter_add", scatter_add, "scatter_add(input, dim, index, src)",
         ("scatter_add.default",), "input with src added at index along dim"),
        ("index_add", index_add, "index_add(input, dim, index, source, alpha=1)",
         ("index_add.default",), "input with alpha * source added at index along dim"),
        ("index_copy", index_copy, "index_copy(input, dim, index, source)",
         ("index_copy.default",), "input with source written at index along dim"),
        ("index_fill", index_fill, "index_fill(input, dim, index, value)",
         ("index_fill.int_Scalar", "index_fill.int_Tensor"),
         "input with value at index along dim")]:
    _entry = register(Plain(_name, _fn, _doc, kind="shape", signature=_sig, via=_via))
    _entry.method = _fn
    install_attribute(_name + "_", _in_place(_fn, _via[0]))


# ------------------------------------------------------------------ index_put

def _index_key(indices):
    key = []
    for i in indices:
        if i is None:
            key.append(slice(None))
            continue
        arr = _array(i)
        if arr.dtype == np.bool_:
            key.extend(np.nonzero(arr))
        elif arr.dtype.kind in "iu":
            key.append(arr.astype(np.int64))
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return tuple(key)


def _index_put(a, values, indices, accumulate):
    key = _index_key(indices)
    if values.dtype != a.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_short_name(a.dtype)} for the destination and "
                           f"{_short_name(values.dtype)} for the source.")
    out = a.copy()
    try:
        region = out[key].shape
        filled = np.broadcast_to(values, region)
    except IndexError as e:
        raise IndexError(str(e)) from None
    except ValueError:
        region = out[key].shape
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(region)}") from None
    if accumulate:
        np.add.at(out, key, filled)
    else:
        out[key] = filled
    return out


@helper
def _index_put_self(g, indices, accumulate):
    if accumulate:
        return g
    return OPS["index_put.default"].apply((g, g.new_zeros(())), (indices, False))


@helper
def _index_put_values(g, indices):
    key = _index_key(indices)
    return Tensor._make(np.asarray(g._data[key]), None, 0, False) if not g.requires_grad \
        else OPS["index"].apply((g,), (((), key),))


register(Op(
    "index_put.default", _index_put,
    ("self: _index_put_self(grad, indices, accumulate)", "values: _index_put_values(grad, indices)"),
    inputs=("self", "values"), attrs=("indices", ("accumulate", False)),
    grad_fn="IndexPutBackward0", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="self with values put (or added, accumulate=True) at indices",
    samples=[Sample((3, 4), (2, 4), attrs={"indices": ([0, 2],)}),
             Sample((3, 4), (2,), attrs={"indices": ([0, 0], [1, 3]), "accumulate": True})]))


def index_put(input, indices, values, accumulate=False, *, _position=2):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position {_position}) must be tuple "
                        f"of Tensors, not {type(indices).__name__}")
    return OPS["index_put.default"].apply((input, values), (tuple(indices), bool(accumulate)))


def _index_put_method(self, indices, values, accumulate=False):
    return index_put(self, indices, values, accumulate, _position=1)


_entry = register(Plain("index_put", index_put, "input with values put at indices (added with "
                        "accumulate=True)", kind="shape",
                        signature="index_put(input, indices, values, accumulate=False)",
                        via=("index_put.default",)))
_entry.method = _index_put_method
install_attribute("index_put_", _in_place(_index_put_method, "index_put.default"))
