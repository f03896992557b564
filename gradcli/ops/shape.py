"""Shape operations: views (view, reshape, flatten, squeeze, transpose, permute, …), expand and
repeat, and the helpers the other shape modules share (join_split, slicing, gather, indexing).

Ops that PyTorch composes from others (reshape, flatten, narrow, chunk, indexing, …) are
`Composed` entries: calling one runs the same composition, so the graph holds the nodes
PyTorch's holds (`x.t().reshape(6)` is UnsafeViewBackward0 over CloneBackward0)."""

import math
import warnings

import numpy as np

from ..engine import dtypes, messages
from ..engine.tensor import Tensor, check_holdable, check_numel, check_numel_overflow
from .derivatives import helper
from .arguments import missing_arguments
from .registry import OPS, Composed, Op, Overload, Sample, alias, register, wrap_dim


class ShapeComposed(Composed):
    """A composed op of the shape family (see registry's `Composed`)."""

    def __init__(self, name, compose, **kw):
        kw.setdefault("kind", "shape")
        kw.setdefault("dtype", "same")
        super().__init__(name, compose, **kw)


class VarArgs:
    """Mixin: the op's first attribute may be given as varargs (`x.view(2, 3)`, `x.view((2, 3))`,
    `x.view(size=(2, 3))`, `x.permute(1, 0)`)."""

    def __call__(self, *args, **kwargs):
        if not args:
            if "input" not in kwargs:
                raise missing_arguments(self.name, ["input"])
            args = (kwargs.pop("input"),)
        rest = args[1:]
        key = self.attr_names[0]
        for name in (key,) + self.keywords:
            if name in kwargs:
                value = kwargs.pop(name)
                rest = (tuple(value) if isinstance(value, (list, tuple)) else value,)
                break
        if kwargs:
            raise TypeError(f"{self.name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if not rest:
            if self.name == "view":   # (PyTorch's has two forms, view(dtype) and view(size))
                raise TypeError("view() received an invalid combination of arguments - got (), "
                                "but expected one of:")
            raise missing_arguments(self.name, [key])
        return self.apply((args[0],), (_int_tuple(rest),))


class VarArgsOp(VarArgs, Op):
    keywords = ("size", "shape", "dims", "repeats")


class VarArgsComposed(VarArgs, ShapeComposed):
    keywords = ("size", "shape", "dims", "repeats")


def _int_tuple(values):
    if len(values) == 1 and isinstance(values[0], (list, tuple, Tensor)):
        values = values[0]
        if isinstance(values, Tensor):
            values = values.tolist()
            values = values if isinstance(values, list) else [values]
    out = []
    for v in values:
        if isinstance(v, Tensor):
            v = v.item()
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"expected int, but got {type(v).__name__}")
        out.append(int(v))
    return tuple(out)


def _dims(dim, ndim):
    return tuple(wrap_dim(d, ndim) for d in (dim if isinstance(dim, (list, tuple)) else (dim,)))


def _type_name(a):
    return "torch." + dtypes.from_numpy_dtype(a.dtype).tensor_type


def _op(name):
    return OPS[name]


def _select_index(shape, d, index):
    size = shape[d]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    return index % size


def _select_view(a, d, i):
    """a[..., i, ...] at dim d as a view (NumPy returns a scalar copy for the last dim left)."""
    if a.ndim == 1:
        return a[i:i + 1 if i != -1 else None].reshape(())
    return a[(slice(None),) * d + (i,)]


def index_array(arr):
    """The int64 positions of an index tensor's array of advanced indexing (`x[t]`,
    index_put): PyTorch takes long and int tensors only (byte and bool ones are masks), so no
    index of a narrower or unsigned type wraps."""
    if arr.dtype != np.int64 and arr.dtype != np.int32:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr.astype(np.int64)


def _slice_bounds(size, start, end, step):
    start = 0 if start is None else int(start)
    end = size if end is None else int(end)
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end, step


# ------------------------------------------------------------------ views

def _infer_shape(shape, numel):
    if type(shape) is tuple:  # the usual case: already a tuple of sizes that fits
        known = 1
        for s in shape:
            if type(s) is not int or s < 0:
                break
            known *= s
        else:
            if known == numel:
                return shape
    shape = tuple(int(s) for s in shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous")
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@helper
@helper
def _reshape_back(g, self_shape):
    """The derivative of the reshape family: the gradient reshaped to the input's shape (a
    validated tuple of sizes, so without `Tensor.reshape`'s argument parsing)."""
    return _reshape_compose(g, self_shape)


def _viewable(a, shape):
    """Whether a can take shape without a copy (PyTorch's computeStride, NumPy's no-copy
    reshape)."""
    try:
        a.reshape(shape, copy=False)
        return True
    except ValueError:
        return False


def _view(a, shape):
    shape = _infer_shape(shape, a.size)
    try:
        return a.reshape(shape, copy=False)
    except ValueError:
        if not a.size:  # (sizes whose product overflows, or that NumPy cannot hold)
            check_numel_overflow(shape)
            check_holdable(shape, a.itemsize)
        raise RuntimeError(messages.VIEW_INCOMPATIBLE) from None


RESHAPE_SAMPLES = [Sample((2, 3), attrs={"shape": (3, 2)}), Sample((6,), attrs={"shape": (2, -1)}),
                   Sample((), attrs={"shape": (1, 1)})]
register(VarArgsOp(
    "view", _view, "self: _reshape_back(grad, self_shape)", attrs=("shape",),
    grad_fn="ViewBackward0", view=True, jvp="linear", dtype="same", kind="shape", function=False,
    doc="a view with a new shape (the elements must be contiguous enough)",
    samples=[Sample((2, 3), attrs={"shape": (3, 2)})]))

register(Op(
    "_unsafe_view", lambda a, shape: a.reshape(_infer_shape(shape, a.size)),
    "self: _reshape_back(grad, self_shape)", attrs=("shape",),
    grad_fn="UnsafeViewBackward0", jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="a reshape of a fresh copy (not tracked as a view)",
    samples=[Sample((2, 3), attrs={"shape": (6,)})]))


register(Op(
    "_reshape_alias", lambda a, shape: a.reshape(shape, copy=False),
    "self: _reshape_back(grad, self_shape)", attrs=("shape",),
    grad_fn="ReshapeAliasBackward0", view=True, jvp="linear", dtype="same", kind="shape",
    method=False, public=False, doc="reshape of a non-contiguous tensor that needs no copy",
    samples=[Sample((2, 3), attrs={"shape": (3, 2)})]))


def _reshape_compose(self, shape):
    """PyTorch's reshape: a view when the strides allow (ViewBackward0, or ReshapeAliasBackward0
    for a non-contiguous input), else a contiguous copy (CloneBackward0 + UnsafeViewBackward0)."""
    a = self._data
    shape = _infer_shape(shape, a.size)
    if a.flags.c_contiguous:  # (any shape of its size is a view of a contiguous array)
        return OPS["view"].apply((self,), (shape,))
    if _viewable(a, shape):
        return OPS["_reshape_alias"].apply((self,), (shape,))
    copy = OPS["clone"].apply((self,), ("contiguous",))
    return OPS["_unsafe_view"].apply((copy,), (shape,))


register(VarArgsComposed(
    "reshape", _reshape_compose, via=("view", "clone", "_unsafe_view"), attrs=("shape",),
    doc="the same elements in a new shape: a view when possible, else a copy",
    samples=RESHAPE_SAMPLES + [
        Sample((3, 2), attrs={"shape": (6,)}, name="(3, 2)->6")], kind="shape", dtype="same"))

register(ShapeComposed(
    "view_as", lambda self, other: OPS["view"].apply((self,), (tuple(other._data.shape),)),
    via=("view",),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.view(other.size())",
    samples=[Sample((2, 3), (6,), gradgrad=True)], kind="shape", dtype="same"))

register(ShapeComposed(
    "reshape_as", lambda self, other: _reshape_compose(self, tuple(other._data.shape)),
    via=("view", "clone", "_unsafe_view"),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.reshape(other.size())",
    samples=[Sample((2, 3), (3, 2))], kind="shape", dtype="same"))


def _flatten_shape(shape, start_dim, end_dim):
    if not shape:
        return (1,)
    s, e = wrap_dim(start_dim, len(shape)), wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    return shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:]


def _flatten_compose(self, start_dim, end_dim):
    shape = tuple(self._data.shape)
    new = _flatten_shape(shape, start_dim, end_dim)
    if shape and wrap_dim(start_dim, len(shape)) == wrap_dim(end_dim, len(shape)):
        return self
    return _reshape_compose(self, new)


register(ShapeComposed(
    "flatten", _flatten_compose,
    via=("view", "clone", "_unsafe_view"), attrs=(("start_dim", 0), ("end_dim", -1)),
    doc="merge dims start_dim..end_dim into one",
    samples=[Sample((2, 3)), Sample((2, 3, 2), attrs={"start_dim": 1}), Sample(())],
    kind="shape", dtype="same"))


def _unflatten_shape(shape, dim, sizes):
    d = wrap_dim(dim, len(shape))
    sizes = tuple(int(s) for s in sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        inferred = tuple(shape[d] // known if s == -1 and known else s for s in sizes)
    else:
        inferred = sizes
    if math.prod(inferred) != shape[d] or sizes.count(-1) > 1:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size "
                           f"of dim {dim} ({shape[d]}) in the input tensor")
    return tuple(shape[:d]) + inferred + tuple(shape[d + 1:])


register(ShapeComposed(
    "unflatten",
    lambda self, dim, sizes: OPS["view"].apply(
        (self,), (_unflatten_shape(self._data.shape, dim, sizes),)),
    via=("view",), attrs=("dim", "sizes"),
    doc="split dim into sizes",
    samples=[Sample((2, 6), attrs={"dim": 1, "sizes": (2, 3)})], kind="shape", dtype="same"))


def _squeeze_dims(shape, dim):
    if dim is None:
        return tuple(i for i, s in enumerate(shape) if s == 1)
    return tuple(d for d in sorted(set(_dims(dim, len(shape)))) if shape and shape[d] == 1)


def _squeeze(a, dim=None):
    ax = _squeeze_dims(a.shape, dim)
    return np.squeeze(a, axis=ax) if ax else a.view()


@helper
def _unsqueeze_to(g, self_shape, dim):
    for d in _squeeze_dims(self_shape, dim):
        g = g.unsqueeze(d)
    return g


squeeze_all = register(Op(
    "squeeze.all", _squeeze, "self: _unsqueeze_to(grad, self_shape, None)",
    grad_fn="SqueezeBackward0", view=True, jvp="linear", dtype="same", kind="shape",
    method=False, public=False, doc="remove every size-1 dimension",
    samples=[Sample((2, 1, 3)), Sample((1, 1))]))
squeeze_dim = register(Op(
    "squeeze.dim", _squeeze, "self: _unsqueeze_to(grad, self_shape, dim)",
    attrs=("dim",), grad_fn="SqueezeBackward1", view=True, jvp="linear", dtype="same",
    kind="shape", method=False, public=False, doc="remove dimension dim if its size is 1",
    samples=[Sample((1, 3), attrs={"dim": 0}),
                                       Sample((2, 3), attrs={"dim": 1})]))
squeeze_dims = register(Op(
    "squeeze.dims", _squeeze, "self: _unsqueeze_to(grad, self_shape, dim)",
    attrs=("dim",), grad_fn="SqueezeBackward2", view=True, jvp="linear", dtype="same",
    kind="shape", method=False, public=False, doc="remove the size-1 dimensions among dim",
    samples=[Sample((1, 3, 1), attrs={"dim": (0, 2)})]))
# matmul's `mm(...).squeeze_(0)`: the in-place squeeze of a fresh result (not a view)
register(Op(
    "_squeeze_inplace_dim", _squeeze, "self: _unsqueeze_to(grad, self_shape, dim)",
    attrs=("dim",), grad_fn="SqueezeBackward4", jvp="linear", dtype="same", kind="shape",
    method=False, public=False, doc="squeeze_(dim) of a fresh result",
    samples=[Sample((1, 3), attrs={"dim": 0})]))


def _choose_squeeze(self=None, dim=None, **kwargs):
    if "input" in kwargs:
        kwargs.pop("input")
    if dim is None:
        return squeeze_all
    return squeeze_dims if isinstance(dim, (list, tuple)) else squeeze_dim


register(Overload("squeeze", _choose_squeeze, (squeeze_all, squeeze_dim, squeeze_dims),
                  doc="remove size-1 dimensions (all, dim, or a tuple of dims); a view",
                  kind="shape"))


def _unsqueeze(a, dim):
    return np.expand_dims(a, wrap_dim(dim, a.ndim + 1))


register(Op(
    "unsqueeze", _unsqueeze, "self: grad.squeeze(dim)", attrs=("dim",), view=True,
    jvp="linear", dtype="same", kind="shape", doc="insert a size-1 dimension at dim (a view)",
    samples=[Sample((), attrs={"dim": 0}), Sample((3,), attrs={"dim": 0}),
                                     Sample((2, 3), attrs={"dim": -1})]))

register(Op(
    "alias", lambda a: a.view(), "self: grad", grad_fn="AliasBackward0", view=True, jvp="linear",
    dtype="same", kind="shape", method=False, public=False, doc="the same tensor as a new view",
    samples=[Sample((2, 3))]))


def _transpose(a, dim0, dim1):
    if a.ndim == 0:
        wrap_dim(dim0, 0), wrap_dim(dim1, 0)
        return a.view()
    return np.swapaxes(a, wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim))


register(Op(
    "transpose", _transpose, "self: grad.transpose(dim0, dim1)",
    attrs=("dim0", "dim1"), view=True, jvp="linear", dtype="same", kind="shape",
    doc="swap dimensions dim0 and dim1 (a view)",
    samples=[Sample((2, 3), attrs={"dim0": 0, "dim1": 1}),
             Sample((2, 3, 4), attrs={"dim0": -1, "dim1": 0})]))
alias("swapaxes", "transpose")
alias("swapdims", "transpose")


def _permute(a, dims):
    dims = tuple(dims)
    if len(dims) != a.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{a.ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, a.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return np.transpose(a, wrapped) if a.ndim else a.view()


@helper
def _permute_vjp(g, dims):
    wrapped = [wrap_dim(d, len(dims)) for d in dims]
    return g.permute(tuple(int(i) for i in np.argsort(wrapped)))


register(VarArgsOp(
    "permute", _permute, "self: _permute_vjp(grad, dims)", attrs=("dims",), view=True,
    jvp="linear", dtype="same",
    kind="shape", doc="reorder the dimensions (a view)",
    samples=[Sample((2, 3), attrs={"dims": (1, 0)}), Sample((2, 3, 4), attrs={"dims": (2, 0, 1)})]))


def _movedim_compose(self, source, destination):
    n = self._data.ndim
    src = _dims(source, n)
    dst = _dims(destination, n)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    order = [d for d in range(n) if d not in src]
    for s, d in sorted(zip(dst, src)):
        order.insert(s, d)
    return OPS["permute"].apply((self,), (tuple(order),))


register(ShapeComposed(
    "movedim", _movedim_compose, via=("permute",), attrs=("source", "destination"),
    doc="move dims source to positions destination (a permute)",
    samples=[Sample((2, 3, 4), attrs={"source": 0, "destination": 2})],
    kind="shape", dtype="same"))
alias("moveaxis", "movedim")


def _t(a):
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T if a.ndim == 2 else a.view()


register(Op(
    "t", _t, "self: grad.t()", view=True, jvp="linear", dtype="same", kind="shape",
    doc="transpose a matrix (0-D and 1-D tensors as they are)",
    samples=[Sample((2, 3)), Sample((3,))]))


# the warnings of Tensor.T already given: PyTorch gives each once per process
WARNED_T = set()


def _T(self):
    """Tensor.T: the dimensions reversed (PermuteBackward0); warns off 2-D as PyTorch (once)."""
    n = self._data.ndim
    if n != 2:
        message = messages.T_ZERO_DIM if n == 0 else messages.T_DEPRECATED
        if message not in WARNED_T:
            WARNED_T.add(message)
            warnings.warn(message, UserWarning, stacklevel=2)
    return OPS["permute"].apply((self,), (tuple(range(n - 1, -1, -1)),))


def _mT(self):
    """Tensor.mT: the last two dimensions swapped (TransposeBackward0)."""
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return OPS["transpose"].apply((self,), (-2, -1))




# ------------------------------------------------------------------ expand and repeat

def _expand(a, size):
    size = tuple(size)
    lead = len(size) - a.ndim
    if lead < 0:
        raise RuntimeError(f"expand({_type_name(a)}{{{list(a.shape)}}}, size={list(size)}): the "
                           f"number of sizes provided ({len(size)}) must be greater or equal to "
                           f"the number of dimensions in the tensor ({a.ndim})")
    target = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target.append(s)
        else:
            have = a.shape[i - lead]
            if s == -1:
                s = have
            if have != 1 and have != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({have}) "
                    f"at non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                    f"{list(a.shape)}")
            target.append(s)
    check_numel_overflow(target)
    check_holdable(target, a.itemsize)
    return np.broadcast_to(a, tuple(target))


register(VarArgsOp(
    "expand", _expand, "self: grad.sum_to_size(self_shape)", attrs=("size",),
    view=True, jvp="linear", dtype="same", kind="shape", function=False,
    doc="broadcast size-1 dimensions to size (a view)",
    samples=[Sample((3,), attrs={"size": (2, 3)}), Sample((2, 1), attrs={"size": (2, 3)}),
             Sample((), attrs={"size": (2,)})]))

register(ShapeComposed(
    "expand_as", lambda self, other: OPS["expand"].apply((self,), (tuple(other._data.shape),)),
    via=("expand",),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.expand(other.size())",
    samples=[Sample((3,), (2, 3))], kind="shape", dtype="same"))


def _sum_to_size_compose(self, size):
    """PyTorch's at::sum_to: sum(dims, keepdim=True), then a view dropping leading dims."""
    size, shape = tuple(size), self._data.shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, shape[lead:])):
        raise RuntimeError(messages.NOT_EXPANDABLE.format(
            size=", ".join(map(str, size)), shape=", ".join(map(str, shape))))
    if size == shape:
        return self
    if not size:  # at::sum_to of a 0-d shape: a plain sum (SumBackward0)
        return OPS["sum.default"](self)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    out = OPS["sum.dim_IntList"](self, axes, True) if axes else self
    return OPS["view"].apply((out,), (size,)) if lead else out


register(VarArgsComposed(
    "sum_to_size", _sum_to_size_compose, via=("sum.dim_IntList", "view"),
    attrs=("size",), function=False,
    doc="sum broadcast dimensions away down to size",
    samples=[Sample((2, 3), attrs={"size": (1, 3)}), Sample((2, 3), attrs={"size": (3,)})],
    kind="shape", dtype="same"))


def _repeat(a, repeats):
    repeats = tuple(repeats)
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    shape = (1,) * (len(repeats) - a.ndim) + a.shape
    target = [r * s for r, s in zip(repeats, shape)]
    for r in repeats:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r * max(shape)}: "
                               f"{target}")
    check_numel(target)
    return np.tile(a.reshape(shape), repeats)


@helper
def _repeat_vjp(g, self_shape, repeats):
    shape = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    split = []
    for r, s in zip(repeats, shape):
        split += [r, s]
    if not split:
        return g
    return g.reshape(tuple(split)).sum(tuple(range(0, len(split), 2))).reshape(self_shape)


register(VarArgsOp(
    "repeat", _repeat, "self: _repeat_vjp(grad, self_shape, repeats)", attrs=("repeats",),
    jvp="linear", dtype="same", kind="shape",
    function=False, doc="tile the tensor repeats[i] times along each dimension",
    samples=[Sample((3,), attrs={"repeats": (2,)}), Sample((2, 3), attrs={"repeats": (2, 1, 2)}),
             Sample((), attrs={"repeats": (3,)})]))


def _tile_compose(self, dims):
    dims = tuple(dims)
    dims = (1,) * (self._data.ndim - len(dims)) + dims
    return OPS["repeat"].apply((self,), (dims,))


register(VarArgsComposed(
    "tile", _tile_compose,
    via=("repeat",),
    attrs=("dims",), doc="repeat, padding dims with leading 1s",
    samples=[Sample((2, 3), attrs={"dims": (2,)})], kind="shape", dtype="same"))
