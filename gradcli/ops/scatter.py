"""The scatter/index family: scatter (ScatterBackward0 with a src tensor, ScatterBackward1 with a
value), scatter_add, index_add, index_copy, index_fill (IndexFillBackward0/1), as functions and
methods, with their in-place variants (same nodes), and PyTorch's messages.  The ops take the
index as an attribute (not differentiable), as gather does; the public functions put the
arguments in PyTorch's order (self, dim, index, src)."""

import warnings

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode
from ..engine.tensor import Tensor, check_numel, index_result_size, install_attribute
from .derivatives import helper
from .registry import OPS, Op, Plain, Sample, register, wrap_dim
from ..engine.tangents import ForwardAD
from .gather import _array, _gather_key, check_index_bounds
from .shape import index_array
from .sorting import FailingNode


def _short_name(dtype):
    return {"f": {4: "Float", 8: "Double", 2: "Half"}, "i": {8: "Long", 4: "Int", 2: "Short",
                                                          1: "Char"},
            "u": {1: "Byte"}, "b": {1: "Bool"}}.get(dtype.kind, {}).get(dtype.itemsize,
                                                                        str(dtype))


# ------------------------------------------------------------------ scatter, scatter_add

def _scatter_check(name, a, dim, index, src=None):
    index = _array(index)
    if not index.size:  # PyTorch checks an empty index for nothing but dim and the dtypes
        d = wrap_dim(dim, a.ndim)
        if src is not None and src.dtype != a.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        return index, d
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
    # (a negative index is out of bounds: PyTorch's scatter kernels do not wrap them)
    check_index_bounds(a, d, index)
    return index, d


def _src_part(src, index):
    """The elements of src that index covers (src may be larger than index)."""
    return src[tuple(slice(0, n) for n in index.shape)] if src.ndim else src


def _scatter_src(a, src, dim, index):
    index, d = _scatter_check("scatter", a, dim, index, src)
    out = a.copy()
    if not index.size:
        return out
    if a.ndim == 0:
        if index.size:
            out[...] = src.reshape(-1)[-1] if src.ndim else src
        return out
    out[_gather_key(index, d)] = _src_part(src, index)
    return out


def _scatter_value(a, dim, index, value):
    index, d = _scatter_check("scatter", a, dim, index)
    out = a.copy()
    if not index.size:
        return out
    if a.ndim == 0:
        if index.size:
            out[...] = value
        return out
    out[_gather_key(index, d)] = value
    return out


def _scatter_add(a, src, dim, index):
    index, d = _scatter_check("scatter_add", a, dim, index, src)
    out = a.copy()
    if not index.size:
        return out
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


# ------------------------------------------------------------------ scatter_reduce

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_LEGACY_NAMES = {"max": "amax", "min": "amin"}  # (the forward takes them; backward does not)
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}


def _identity(kind, dtype):
    """What a position that include_self=False leaves out starts from (PyTorch's kernel)."""
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    if dtype.kind == "b":
        return kind == "amin"
    if dtype.kind in "fc":
        return -np.inf if kind == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if kind == "amax" else info.max


def _reduce_into(a, src, d, index, kind, include_self):
    """a with src reduced into it at index along dimension d: every element in index order, as
    PyTorch's CPU kernel (sum and prod in that order, amax/amin propagating nan, mean the sum
    over the count, floored for integers)."""
    out = a.copy()
    if not index.size:
        return out
    target = out.reshape(1) if a.ndim == 0 else out
    if a.ndim == 0:
        key = (np.zeros(index.size, np.intp),)
        values = src.reshape(-1)[:index.size]
    else:
        key = _gather_key(index, d)
        values = _src_part(src, index)
    if not include_self:
        hit = np.zeros(target.shape, bool)
        hit[key] = True
        target[hit] = _identity(kind, a.dtype)
    _UFUNCS[kind].at(target, key, values)
    if kind == "mean":
        count = np.full(target.shape, 1 if include_self else 0, a.dtype)
        np.add.at(count, key, 1)
        count[count == 0] = 1
        target[...] = (target / count if a.dtype.kind in "fc"
                       else np.floor_divide(target, count))
    return out


def _scatter_reduce(a, src, dim, index, reduce, include_self):
    index, d = _scatter_check("scatter", a, dim, index, src)
    kind = _LEGACY_NAMES.get(reduce, reduce)
    if kind not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if kind == "mean" and a.dtype.kind == "b":
        raise messages.not_implemented("scatter_gather_tensor_cpu_reduce_mean", a.dtype)
    return _reduce_into(a, src, d, index, kind, include_self)


def _constant(array):
    return Tensor._make(np.ascontiguousarray(array), None, 0, False)


DOUBLE_BACKWARD_ZEROS = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros "
                         "in src are scattered to the same position in self")
_ZEROS_ERROR = FailingNode("Error", DOUBLE_BACKWARD_ZEROS, error=RuntimeError)


def _delayed_error(t):
    """t behind PyTorch's DelayedError node (grad_fn Error): differentiating it raises."""
    if not (GradMode.enabled and t.requires_grad):
        return t
    out = Tensor._make(t._data, None, 0, False)
    _ZEROS_ERROR.attach((t,), (out,))
    return out


@helper
def _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """PyTorch's scatter_reduce_backward (FunctionsManual.cpp): (grad_self, grad_src), the
    gradient of amax/amin shared evenly among ties, of prod exclusive of zeros."""
    gather, scatter_add = OPS["gather"], OPS["scatter_add.default"]
    idx = _array(index)
    d = wrap_dim(dim, max(self.dim(), 1))
    if reduce == "sum":
        grad_self = grad
        grad_src = gather.apply((grad,), (dim, index))
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = OPS["scatter_reduce.two"].apply(
            (masked_self, src), (dim, index, reduce, include_self))
        grad_self = grad * masked_self_result / masked_self
        zero = src._data == 0
        n_zeros = _reduce_into(np.zeros_like(self._data), zero.astype(self._data.dtype), d, idx,
                               "sum", True)
        n_zeros = gather.apply((_constant(n_zeros),), (dim, index))._data
        # (a src larger than index fails here, with PyTorch's message)
        single = _constant(zero) & _constant(n_zeros == 1)
        masked_src_result = OPS["scatter_reduce.two"].apply(
            (self, src.masked_fill(single, 1)), (dim, index, reduce, include_self))
        grad_src = OPS["where"](single, gather.apply((grad * masked_src_result,), (dim, index)),
                                gather.apply((grad * result,), (dim, index))
                                / src.masked_fill(_constant(zero), 1))
        if GradMode.enabled and bool((n_zeros > 1).any()):
            grad_src = _delayed_error(grad_src)
    elif reduce == "mean":
        n = _reduce_into(np.full(grad._data.shape, 1 if include_self else 0, grad._data.dtype),
                         np.ones(src._data.shape, grad._data.dtype), d, idx, "sum", True)
        n[n == 0] = 1
        grad_self = grad / _constant(n)
        grad_src = gather.apply((grad,), (dim, index)) / gather.apply((_constant(n),),
                                                                      (dim, index))
    elif reduce in ("amax", "amin"):
        value = gather.apply((result.detach(),), (dim, index))
        self_is = _constant(self._data == result._data)
        src_is = src.detach() == value  # (a src larger than index fails here, as in PyTorch)
        n = scatter_add.apply((self_is.to(self.dtype), src_is.to(self.dtype)), (dim, index))
        grad_distributed = grad / n
        grad_self = self_is * grad_distributed
        grad_src = src_is * gather.apply((grad_distributed,), (dim, index))
    else:
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    if not include_self:
        grad_self = _zeros_at(grad_self, dim, index)
    return grad_self, grad_src


@helper
def _scatter_reduce_jvp(tangents, self, dim, index, src, reduce, include_self, result):
    """PyTorch's scatter_reduce_jvp: the op itself for sum and mean (linear), the tangents of
    the elements that attain amax/amin averaged; none for prod (PyTorch gives no tangent)."""
    self_t, src_t = (t if t is not None else OPS["zeros_like"](x)
                     for t, x in zip(tangents, (self, src)))
    op = OPS["scatter_reduce.two"]
    if reduce in ("sum", "mean"):
        return op.apply((self_t, src_t), (dim, index, reduce, include_self))
    if reduce in ("amax", "amin"):
        mask_self = self == result
        mask_src = src == OPS["gather"].apply((result,), (dim, index))
        div = op.apply((mask_self.to(self_t.dtype), mask_src.to(self_t.dtype)),
                       (dim, index, "sum", include_self))
        return op.apply((OPS["where"](mask_self, self_t, 0.0), OPS["where"](mask_src, src_t, 0.0)),
                        (dim, index, "sum", include_self)).div(div)
    return None


class _ScatterReduce(Op):
    """scatter_reduce: PyTorch's forward-mode AD gives prod (and the legacy names max/min,
    which its JVP does not know) no tangent at all, so the output is not a dual tensor.  (A
    JVP that returns None means the same to the engine once forward_mode._forward_ad takes it so;
    until then the tangents are kept out of the call.)"""

    def apply(self, inputs, attrs):
        if attrs[2] in ("sum", "mean", "amax", "amin") or ForwardAD.level is None:
            return Op.apply(self, inputs, attrs)
        duals = [(x, x._fw) for x in inputs if isinstance(x, Tensor) and x._fw is not None]
        try:
            for x, _ in duals:
                x._fw = None
            return Op.apply(self, inputs, attrs)
        finally:
            for x, t in duals:
                x._fw = t


register(_ScatterReduce(
    "scatter_reduce.two", _scatter_reduce,
    "self, src: _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, "
    "result)",
    inputs=("self", "src"), attrs=("dim", "index", "reduce", ("include_self", True)),
    grad_fn="ScatterReduceBackward0",
    jvp="result: _scatter_reduce_jvp(tangents, self, dim, index, src, reduce, include_self, "
        "result)",
    dtype="same", kind="shape", method=False, public=False,
    doc="self with src reduced in at index along dim (sum, prod, mean, amax, amin)",
    samples=[Sample(*shapes, attrs={"dim": dim, "index": index, "reduce": reduce,
                                    "include_self": include_self}, low=0.5 if reduce == "prod"
                    else -2.0)
             for reduce in _REDUCTIONS for include_self in (True, False)
             for shapes, dim, index in [
                 (((3, 4), (2, 4)), 0, [[0, 1, 2, 0], [2, 0, 0, 1]]),
                 (((3, 4), (3, 3)), 1, [[0, 3, 0], [1, 1, 2], [3, 0, 3]])]]))


def scatter_reduce(input, dim, index, src, reduce=None, *, include_self=True, _position=4):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position {_position}) must be "
                        f"Tensor, not {messages.type_name(src)}")
    if reduce is None:
        raise TypeError('scatter_reduce() missing 1 required positional arguments: "reduce"')
    if not isinstance(include_self, bool):
        raise TypeError(f"scatter_reduce(): argument 'include_self' must be bool, not "
                        f"{type(include_self).__name__}")
    return OPS["scatter_reduce.two"].apply((input, src), (dim, index, reduce, include_self))


def _scatter_reduce_method(self, dim, index, src, reduce=None, *, include_self=True):
    return scatter_reduce(self, dim, index, src, reduce, include_self=include_self, _position=3)


def _scatter_in_place(self, dim, index, src=None, value=None, *, reduce=None):
    return scatter(self, dim, index, src, value, reduce=reduce, _name="scatter_")


# scatter(..., reduce="add" | "multiply"): no derivative in PyTorch (grad_fn NotImplemented)
_SCATTER_NOT_IMPLEMENTED = {name: FailingNode(
    "NotImplemented", f"derivative for aten::{name} is not implemented", inputs=("self", "src"),
    error=RuntimeError) for name in ("scatter", "scatter_")}
SCATTER_REDUCE_DEPRECATED = (
    "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
    "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
    "TensorAdvancedIndexing.cpp:225.)")
WARNED = set()  # PyTorch gives the deprecation once per process


def _scatter_reduce_legacy(input, dim, index, src, reduce, name="scatter"):
    a = input._data
    if isinstance(src, Tensor):
        if SCATTER_REDUCE_DEPRECATED not in WARNED:
            WARNED.add(SCATTER_REDUCE_DEPRECATED)
            warnings.warn(SCATTER_REDUCE_DEPRECATED, UserWarning, stacklevel=3)
        index, d = _scatter_check("scatter", a, dim, index, src._data)
        values = src._data
    else:
        index, d = _scatter_check("scatter", a, dim, index)
        values = np.full(index.shape, src).astype(a.dtype)
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    out = Tensor._make(_reduce_into(a, values, d, index, "sum" if reduce == "add" else "prod",
                                    True), None, 0, False)
    _SCATTER_NOT_IMPLEMENTED[name].attach((input, src), (out,))
    return out


def scatter(input, dim, index, src=None, value=None, *, reduce=None, _name="scatter"):
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    src = value if src is None else src
    if reduce is not None:
        return _scatter_reduce_legacy(input, dim, index, src, reduce, _name)
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
    """derivatives.yaml's `grad.index_select(dim, index).expand_as(source)` (ExpandBackward0
    even where the shapes agree), for a source of one dimension or more."""
    part = OPS["index_select"].apply((g,), (dim, index)) if g.dim() else g
    if len(source_shape) and g.dim():
        return part.expand(tuple(source_shape))
    return part.reshape(source_shape) if tuple(part.shape) != tuple(source_shape) else part


@helper
def _index_zeroed(g, dim, index):
    return OPS["index_fill.int_Scalar"].apply((g,), (dim, index, 0.0))


register(Op(
    "index_add.default", _index_add,
    ("self: grad", "source: _mul_s(_index_selected(grad, dim, index, source_shape), alpha) "
                   "if alpha != 1 else _index_selected(grad, dim, index, source_shape)"),
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


_METHODS = {"scatter_reduce": _scatter_reduce_method}  # (whose messages count self out)
_IN_PLACE = {"scatter": _scatter_in_place}  # (its NotImplemented node names scatter_)

for _name, _fn, _sig, _via, _doc in [
        ("scatter", scatter, "scatter(input, dim, index, src | value, *, reduce=None)",
         ("scatter.src", "scatter.value"), "input with src (or value) written at index along dim"),
        ("scatter_add", scatter_add, "scatter_add(input, dim, index, src)",
         ("scatter_add.default",), "input with src added at index along dim"),
        ("scatter_reduce", scatter_reduce,
         "scatter_reduce(input, dim, index, src, reduce, include_self=True)",
         ("scatter_reduce.two",), "input with src reduced in at index along dim (reduce: sum, "
         "prod, mean, amax or amin)"),
        ("index_add", index_add, "index_add(input, dim, index, source, alpha=1)",
         ("index_add.default",), "input with alpha * source added at index along dim"),
        ("index_copy", index_copy, "index_copy(input, dim, index, source)",
         ("index_copy.default",), "input with source written at index along dim"),
        ("index_fill", index_fill, "index_fill(input, dim, index, value)",
         ("index_fill.int_Scalar", "index_fill.int_Tensor"),
         "input with value at index along dim")]:
    _entry = register(Plain(_name, _fn, _doc, kind="shape", signature=_sig, via=_via))
    _entry.method = _METHODS.get(_name, _fn)
    install_attribute(_name + "_", _in_place(_IN_PLACE.get(_name, _entry.method), _via[0]))


# ------------------------------------------------------------------ index_put

def _index_key(indices):
    key = []
    for i in indices:
        if i is None:
            key.append(slice(None))
            continue
        arr = _array(i)
        if arr.dtype == np.bool_ or arr.dtype == np.uint8:  # (a byte tensor is a mask)
            key.extend(np.nonzero(arr))
        else:
            key.append(index_array(arr))
    return tuple(key)


def _index_put(a, values, indices, accumulate):
    key = _index_key(indices)
    if values.dtype != a.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_short_name(a.dtype)} for the destination and "
                           f"{_short_name(values.dtype)} for the source.")
    size = index_result_size(a.shape, key)  # (the positions written, before any is made:
    if size is not None:                     # the index tensors broadcast as they like)
        check_numel((size,))
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
                        f"of Tensors, not {messages.type_name(indices)}")
    if (not accumulate and len(indices) == 1 and isinstance(indices[0], Tensor)
            and indices[0].dtype is dtypes.uint8 and isinstance(values, Tensor)
            and values.numel() == 1):  # (PyTorch's index_put_ of one value: masked_fill_)
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    return OPS["index_put.default"].apply((input, values), (tuple(indices), bool(accumulate)))


def _index_put_method(self, indices, values, accumulate=False):
    return index_put(self, indices, values, accumulate, _position=1)


_entry = register(Plain("index_put", index_put, "input with values put at indices (added with "
                        "accumulate=True)", kind="shape",
                        signature="index_put(input, indices, values, accumulate=False)",
                        via=("index_put.default",)))
_entry.method = _index_put_method
install_attribute("index_put_", _in_place(_index_put_method, "index_put.default"))
