"""Shape operations: views (view, reshape, transpose, select, slice, …), joins and splits (cat,
stack, split, chunk), copies that move elements (flip, roll, repeat, gather, …), indexing and
item assignment, and dtype conversion.

Ops that PyTorch composes from others (reshape, flatten, narrow, chunk, indexing, …) are
`Composite` entries: calling one runs the same composition, so the graph holds the nodes
PyTorch's holds (`x.t().reshape(6)` is UnsafeViewBackward0 over CloneBackward0)."""

import math
import warnings

import numpy as np

from ..engine import dtypes, messages
from ..engine.tangents import set_tangent as _set_tangent
from ..engine.grad_mode import GradMode
from ..engine.tensor import StaleView, Tensor, check_numel
from .derivatives import helper
from .registry import OPS, Composed, Op, Overload, Plain, Sample, alias, register, wrap_dim


class Composite(Composed):
    """A composed op of the shape family (see `Composed`)."""

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
                raise TypeError(f"{self.name}() missing required argument 'input'")
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
            raise TypeError(f"{self.name}() missing required argument '{key}'")
        return self.apply((args[0],), (_int_tuple(rest),))


class VarArgsOp(VarArgs, Op):
    keywords = ("size", "shape", "dims", "repeats")


class VarArgsComposite(VarArgs, Composite):
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


register(VarArgsComposite(
    "reshape", _reshape_compose, via=("view", "clone", "_unsafe_view"), attrs=("shape",),
    doc="the same elements in a new shape: a view when possible, else a copy",
    samples=RESHAPE_SAMPLES + [
        Sample((3, 2), attrs={"shape": (6,)}, name="(3, 2)->6")]))

register(Composite(
    "view_as", lambda self, other: OPS["view"].apply((self,), (tuple(other._data.shape),)),
    via=("view",),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.view(other.size())",
    samples=[Sample((2, 3), (6,), gradgrad=True)]))

register(Composite(
    "reshape_as", lambda self, other: _reshape_compose(self, tuple(other._data.shape)),
    via=("view", "clone", "_unsafe_view"),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.reshape(other.size())",
    samples=[Sample((2, 3), (3, 2))]))


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


register(Composite(
    "flatten", _flatten_compose,
    via=("view", "clone", "_unsafe_view"), attrs=(("start_dim", 0), ("end_dim", -1)),
    doc="merge dims start_dim..end_dim into one",
    samples=[Sample((2, 3)), Sample((2, 3, 2), attrs={"start_dim": 1}), Sample(())]))


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


register(Composite(
    "unflatten",
    lambda self, dim, sizes: OPS["view"].apply(
        (self,), (_unflatten_shape(self._data.shape, dim, sizes),)),
    via=("view",), attrs=("dim", "sizes"),
    doc="split dim into sizes",
    samples=[Sample((2, 6), attrs={"dim": 1, "sizes": (2, 3)})]))


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


register(Composite(
    "movedim", _movedim_compose, via=("permute",), attrs=("source", "destination"),
    doc="move dims source to positions destination (a permute)",
    samples=[Sample((2, 3, 4), attrs={"source": 0, "destination": 2})]))
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
    check_numel(target)
    return np.broadcast_to(a, tuple(target))


register(VarArgsOp(
    "expand", _expand, "self: grad.sum_to_size(self_shape)", attrs=("size",),
    view=True, jvp="linear", dtype="same", kind="shape", function=False,
    doc="broadcast size-1 dimensions to size (a view)",
    samples=[Sample((3,), attrs={"size": (2, 3)}), Sample((2, 1), attrs={"size": (2, 3)}),
             Sample((), attrs={"size": (2,)})]))

register(Composite(
    "expand_as", lambda self, other: OPS["expand"].apply((self,), (tuple(other._data.shape),)),
    via=("expand",),
    inputs=("self", "other"), edges=("self",), function=False, doc="self.expand(other.size())",
    samples=[Sample((3,), (2, 3))]))


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


register(VarArgsComposite(
    "sum_to_size", _sum_to_size_compose, via=("sum.dim_IntList", "view"),
    attrs=("size",), function=False,
    doc="sum broadcast dimensions away down to size",
    samples=[Sample((2, 3), attrs={"size": (1, 3)}), Sample((2, 3), attrs={"size": (3,)})]))


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


register(VarArgsComposite(
    "tile", _tile_compose,
    via=("repeat",),
    attrs=("dims",), doc="repeat, padding dims with leading 1s",
    samples=[Sample((2, 3), attrs={"dims": (2,)})]))


# ------------------------------------------------------------------ join and split

def _check_list(arrays, name):
    if not arrays:
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors")


def _cat(arrays, dim):
    _check_list(arrays, "cat")
    first = arrays[0]
    d = wrap_dim(dim, first.ndim)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {a.ndim}")
        for k in range(first.ndim):
            if k != d and a.shape[k] != first.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
    if first.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    check_numel(first.shape[:d] + (sum(a.shape[d] for a in arrays),) + first.shape[d + 1:])
    return np.concatenate(arrays, axis=d)


@helper
def _cat_vjp(g, dim, shapes):
    d = wrap_dim(dim, len(shapes[0]))
    out = []
    offset = 0
    for shape in shapes:
        out.append(g.narrow(d, offset, shape[d]))
        offset += shape[d]
    return out


class _ListOp(Op):
    """An op of a list of tensors, with PyTorch's error for an empty list."""

    def __init__(self, *args, empty_error, **kw):
        super().__init__(*args, **kw)
        self.empty_error = empty_error

    def apply(self, inputs, attrs):
        if not inputs:
            raise self.empty_error
        return Op.apply(self, inputs, attrs)


register(_ListOp(
    "cat", _cat, "tensors: _cat_vjp(grad, dim, shapes)", inputs=("*tensors",),
    attrs=(("dim", 0),), jvp="linear",
    empty_error=ValueError("torch.cat(): expected a non-empty list of Tensors"), dtype="promote",
    kind="shape", method=False, doc="join tensors along an existing dimension",
    samples=[Sample((2,), (3,)), Sample((2, 3), (1, 3)), Sample((2, 3), (2, 1), attrs={"dim": 1})]))
alias("concat", "cat")
alias("concatenate", "cat")


def _stack(arrays, dim):
    if not arrays:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} "
                               f"at entry 0 and {list(a.shape)} at entry {i}")
    return np.stack(arrays, axis=wrap_dim(dim, len(first) + 1))


register(_ListOp(
    "stack", _stack,
    "tensors: unbind.apply((grad,), (wrap_dim(dim, len(shapes[0]) + 1),))",
    inputs=("*tensors",), attrs=(("dim", 0),), jvp="linear", dtype="promote", kind="shape",
    empty_error=RuntimeError("stack expects a non-empty TensorList"),
    method=False, doc="join tensors along a new dimension",
    samples=[Sample((), ()), Sample((3,), (3,)), Sample((2, 3), (2, 3), attrs={"dim": 1})]))


def _atleast(t, n):
    if t._data.ndim >= n:
        return t
    if t._data.ndim == 0:
        return _reshape_compose(t, (1,) * n)
    return OPS["unsqueeze"].apply((t,), (0,))


def _hstack_compose(tensors):
    _check_list(tensors, "hstack")
    tensors = [_atleast(t, 1) for t in tensors]
    return OPS["cat"].apply(tensors, (0 if tensors[0]._data.ndim == 1 else 1,))


def _vstack_compose(tensors):
    _check_list(tensors, "vstack")
    return OPS["cat"].apply([_atleast(t, 2) for t in tensors], (0,))


register(Composite(
    "hstack", _hstack_compose, via=("cat",), inputs=("*tensors",), dtype="promote", method=False,
    doc="cat along dim 1 (dim 0 for vectors)",
    samples=[Sample((2,), (3,)), Sample((2, 3), (2, 1))]))
register(Composite(
    "vstack", _vstack_compose, via=("unsqueeze", "cat"),
    inputs=("*tensors",), dtype="promote", method=False,
    doc="cat along dim 0 after making each input at least 2-D",
    samples=[Sample((3,), (3,)), Sample((2, 3), (3,))]))
alias("row_stack", "vstack")


def _split_sizes(n, split_size):
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0:
        if n:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {n}")
        return [0]
    sizes = [split_size] * (n // split_size)
    if n % split_size or not sizes:
        sizes.append(n % split_size)
    return sizes


def _split_at(a, sizes, d):
    out = []
    offset = 0
    for s in sizes:
        key = (slice(None),) * d + (slice(offset, offset + s),)
        out.append(a[key])
        offset += s
    return tuple(out)


def _split(a, split_size, dim):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, a.ndim)
    return _split_at(a, _split_sizes(a.shape[d], int(split_size)), d)


def _split_with_sizes(a, split_sizes, dim):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, a.ndim)
    sizes = [int(s) for s in split_sizes]
    if sum(sizes) != a.shape[d] or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {a.shape[d]} (input tensor's "
            f"size at dimension {d}), but got split_sizes={sizes}")
    return _split_at(a, sizes, d)


@helper
def _split_vjp(g, dim, self_shape):
    return OPS["cat"].apply(list(g), (wrap_dim(dim, len(self_shape)),))


split_int = register(Op(
    "split.int", _split, "self: _split_vjp(grad, dim, self_shape)",
    attrs=("split_size", ("dim", 0)), outputs="many",
    grad_fn="SplitBackward0", view=True, jvp="linear", dtype="same", kind="shape", method=False,
    public=False, doc="pieces of split_size along dim (views)",
    samples=[Sample((5,), attrs={"split_size": 2}), Sample((2, 4), attrs={"split_size": 2, "dim": 1})]))
split_with_sizes = register(Op(
    "split_with_sizes", _split_with_sizes, "self: _split_vjp(grad, dim, self_shape)",
    attrs=("split_sizes", ("dim", 0)),
    outputs="many", grad_fn="SplitWithSizesBackward0", view=True, jvp="linear", dtype="same",
    kind="shape", doc="pieces of the given sizes along dim (views)",
    samples=[Sample((5,), attrs={"split_sizes": [2, 3]}),
             Sample((2, 3), attrs={"split_sizes": [1, 2], "dim": 1})]))


def _choose_split(self=None, split_size_or_sections=None, dim=0, **kwargs):
    sizes = kwargs.get("split_size", kwargs.get("split_size_or_sections", split_size_or_sections))
    return split_with_sizes if isinstance(sizes, (list, tuple)) else split_int


class _Split(Overload):
    def __call__(self, tensor, split_size_or_sections=None, dim=0, **kwargs):
        sizes = kwargs.pop("split_size_or_sections", kwargs.pop("split_size", split_size_or_sections))
        if "dim" in kwargs:
            dim = kwargs.pop("dim")
        if kwargs:
            raise TypeError(f"split() got an unexpected keyword argument '{next(iter(kwargs))}'")
        op = split_with_sizes if isinstance(sizes, (list, tuple)) else split_int
        return op(tensor, sizes, dim)


register(_Split("split", _choose_split, (split_int, split_with_sizes),
                doc="split into pieces of a size, or of a list of sizes, along dim (views)",
                kind="shape"))


def _chunk_compose(self, chunks, dim):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if self._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = self._data.shape[wrap_dim(dim, self._data.ndim)]
    return split_int.apply((self,), ((n + chunks - 1) // chunks, dim))


register(Composite(
    "chunk", _chunk_compose,
    via=("split.int",), attrs=("chunks", ("dim", 0)), outputs="many",
    doc="split into `chunks` nearly equal pieces (views)",
    samples=[Sample((5,), attrs={"chunks": 2}), Sample((2, 3), attrs={"chunks": 3, "dim": 1})]))


def _unbind(a, dim):
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    return tuple(_select_view(a, d, i) for i in range(a.shape[d]))


register(Op(
    "unbind", _unbind, "self: stack.apply(list(grad), (wrap_dim(dim, len(self_shape)),))",
    attrs=(("dim", 0),), outputs="many", jvp="linear", dtype="same", kind="shape", view=True,
    doc="the slices along dim, as a tuple of views",
    samples=[Sample((2, 3)), Sample((2, 3), attrs={"dim": 1})]))


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


# ------------------------------------------------------------------ select, slice, narrow

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


register(Composite(
    "narrow", _narrow_compose,
    via=("slice",),
    attrs=("dim", "start", "length"), view=True,
    doc="length elements from start along dim (a view)",
    samples=[Sample((5,), attrs={"dim": 0, "start": 1, "length": 3}),
             Sample((2, 4), attrs={"dim": 1, "start": 2, "length": 2})]))


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
    if index.size:
        bad = index[(index < -size) | (index >= size)]
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
    index = np.broadcast_to(idx, tuple(broadcast))
    broadcast[d] = a.shape[d]
    expanded = OPS["expand"].apply((self,), (tuple(broadcast),))
    return OPS["gather"].apply((expanded,), (d, index))


register(Composite(
    "take_along_dim", _take_along_dim_compose,
    via=("expand", "gather"),
    attrs=("indices", ("dim", None)),
    doc="gather after broadcasting self and indices (flattened when dim is None)",
    samples=[Sample((2, 3), attrs={"indices": [[0], [2]], "dim": 1})]))


def _masked_select(a, mask):
    mask = _array(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _broadcast(a.shape, mask.shape)
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


register(Composite(
    "contiguous", _contiguous_compose, via=("clone",), attrs=(("memory_format", None),),
    function=False,
    doc="self if contiguous, else a contiguous copy", samples=[Sample((2, 3))]))


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
    if isinstance(item, np.ndarray):
        return "tensor", item
    if isinstance(item, (list, tuple)):
        from ..engine.tensor import to_array
        return "tensor", to_array(list(item)) if len(item) else np.zeros(0, np.int64)
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
            np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(a.shape)) for a in arrays)) from None
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
        value = value.astype(bool)
        for j in range(value.ndim):
            if value.shape[j] != cur[dim + j]:
                raise IndexError(f"The shape of the mask {list(value.shape)} at index {j} does not "
                                 f"match the shape of the indexed tensor {list(shape)} at index "
                                 f"{real + j}")
        for j, arr in enumerate(np.nonzero(value)):
            tensors[dim + j] = arr
        return dim + value.ndim, real + value.ndim
    if value.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    tensors[dim] = value.astype(np.int64)
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


register(Composite(
    "getitem", _getitem_compose, via=("select", "slice", "unsqueeze", "index"),
    attrs=("index",), method=False, public=False,
    doc="self[index]: ints, slices, None, ..., lists, long tensors, masks",
    samples=[Sample((3,), attrs={"index": 1}), Sample((2, 3), attrs={"index": (slice(None), 1)}),
             Sample((4,), attrs={"index": [0, 2, 0]}), Sample((2, 3), attrs={"index": (None, 1)}),
             Sample((2, 3), attrs={"index": (Ellipsis, slice(0, 3, 2))}),
             Sample((2, 3), attrs={"index": ([1, 0], slice(1, None))}),
             Sample((2, 3), attrs={"index": (1, [True, False, True])})]))


# ------------------------------------------------------------------ item assignment

def _index_put(a, value, path):
    steps, key = path
    out = a.copy()
    region = _region(out, steps)
    region[key if key is not None else ...] = value
    return out


@helper
def _index_put_self_vjp(g, path):
    return _SETITEM_OPS["CopySlices"].apply((g, 0.0), (path,))


@helper
def _index_put_value_vjp(g, path):
    return OPS["index"].apply((g,), (path,))


@helper
def _index_put_values_jvp(t, self_shape, path):
    zeros = Tensor._make(np.zeros(self_shape, t._data.dtype), None, 0, False)
    return _SETITEM_OPS["CopySlices"].apply((zeros, t), (path,))


def _setitem_op(name):
    return Op(
        "index_put_path", _index_put, ("self: _index_put_self_vjp(grad, path)",
         "values: _index_put_value_vjp(grad, path)"),
        inputs=("self", "values"), attrs=("path",), grad_fn=name,
        jvp=("self: _index_put_self_vjp(self_t, path)",
             "values: _index_put_values_jvp(values_t, self_shape, path)"), dtype="same",
        kind="shape", method=False, public=False,
        doc="self with values written at path (item assignment)",
        samples=[Sample((3,), (), attrs={"path": ((("select", 0, 1),), None)}),
                 Sample((2, 3), (3,), attrs={"path": ((), (np.array([1, 0]),))})])


# CopySlices: a view of self was written; IndexPutBackward0: tensor indices on self itself;
# CopyBackwards / FillBackward3: the whole of self was written with a tensor / a number.
_SETITEM_OPS = {name: _setitem_op(name) for name in
                ("CopySlices", "IndexPutBackward0", "CopyBackwards", "FillBackward3")}
for _name in ("CopySlices", "CopyBackwards"):  # C++ nodes: name() is qualified, as PyTorch's
    _SETITEM_OPS[_name].node_cls.name = lambda self, _q="torch::autograd::" + _name: _q
register(_SETITEM_OPS["CopySlices"])


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
    one-element value and a single boolean mask as the only tensor index)."""
    if not isinstance(value, Tensor) or value.dtype is self.dtype:
        return
    items = index if isinstance(index, tuple) else (index,)
    tensors = [i for i in items if isinstance(i, (list, np.ndarray)) or (
        isinstance(i, Tensor) and (i.dim() or i.dtype is dtypes.bool_))]
    if not tensors:
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
    self._counter[0] += 1
    if result._fw is not None:
        _set_tangent(self, result._fw)
    if recording:
        self.grad_fn = result.grad_fn
        self._output_nr = result._output_nr
        self.requires_grad_flag = result.requires_grad_flag
        if self._base is not None:  # a view: its base's history is rebased (CopySlices)
            from .views import rebase
            rebase(self, result)
    from .views import regenerate
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


