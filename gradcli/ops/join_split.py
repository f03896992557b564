"""Joining and splitting tensors: cat, stack, hstack/vstack, split, chunk, unbind."""

import numpy as np

from ..engine.tensor import check_numel, check_pieces
from .derivatives import helper
from .registry import Composed, OPS, Op, Overload, Sample, alias, register, wrap_dim
from .shape import _reshape_compose, _select_view


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
    check_numel((len(arrays),) + tuple(first))  # (one tensor, many times: `[v] * n`)
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


register(Composed(
    "hstack", _hstack_compose, via=("cat",), inputs=("*tensors",), dtype="promote", method=False,
    doc="cat along dim 1 (dim 0 for vectors)",
    samples=[Sample((2,), (3,)), Sample((2, 3), (2, 1))], kind="shape"))
register(Composed(
    "vstack", _vstack_compose, via=("unsqueeze", "cat"),
    inputs=("*tensors",), dtype="promote", method=False,
    doc="cat along dim 0 after making each input at least 2-D",
    samples=[Sample((3,), (3,)), Sample((2, 3), (3,))], kind="shape"))
alias("row_stack", "vstack")


def _split_sizes(n, split_size):
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0:
        if n:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {n}")
        return [0]
    sizes = [split_size] * check_pieces(n // split_size)
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
split_int.extra_saved = {"_saved_split_size": lambda node: node._attrs[0]}  # (no formula reads it)
split_with_sizes = register(Op(
    "split_with_sizes", _split_with_sizes, "self: _split_vjp(grad, dim, self_shape)",
    attrs=("split_sizes", ("dim", 0)),
    outputs="many", grad_fn="SplitWithSizesBackward0", view=True, jvp="linear", dtype="same",
    kind="shape", doc="pieces of the given sizes along dim (views)",
    samples=[Sample((5,), attrs={"split_sizes": [2, 3]}),
             Sample((2, 3), attrs={"split_sizes": [1, 2], "dim": 1})]))
split_with_sizes.extra_saved = {"_saved_split_sizes": lambda node: tuple(node._attrs[0])}


def _choose_split(self=None, split_size_or_sections=None, dim=0, **kwargs):
    sizes = kwargs.get("split_size", kwargs.get("split_size_or_sections", split_size_or_sections))
    return split_with_sizes if isinstance(sizes, (list, tuple)) else split_int


_NOT_GIVEN = object()


class _Split(Overload):
    """torch.split and Tensor.split, Python functions in PyTorch: a missing size is Python's
    TypeError, under each one's name for it."""

    def __call__(self, tensor, split_size_or_sections=_NOT_GIVEN, dim=0, **kwargs):
        sizes = kwargs.pop("split_size_or_sections", kwargs.pop("split_size", split_size_or_sections))
        if "dim" in kwargs:
            dim = kwargs.pop("dim")
        if kwargs:
            raise TypeError(f"split() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if sizes is _NOT_GIVEN:
            raise TypeError("split() missing 1 required positional argument: "
                            "'split_size_or_sections'")
        op = split_with_sizes if isinstance(sizes, (list, tuple)) else split_int
        return op(tensor, sizes, dim)


split = register(_Split("split", _choose_split, (split_int, split_with_sizes),
                        doc="split into pieces of a size, or of a list of sizes, along dim (views)",
                        kind="shape"))


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


_split_method.__name__, _split_method.__qualname__ = "split", "Tensor.split"
split.method = _split_method   # (PyTorch's Tensor.split(self, split_size, dim=0))


def _chunks_of(split):
    """chunk (or unsafe_chunk): `split` into pieces of ceil(size / chunks)."""
    def compose(self, chunks, dim):
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        if self._data.ndim == 0:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
        n = self._data.shape[wrap_dim(dim, self._data.ndim)]
        return split.apply((self,), ((n + chunks - 1) // chunks, dim))
    return compose


_chunk_compose = _chunks_of(split_int)


register(Composed(
    "chunk", _chunk_compose,
    via=("split.int",), attrs=("chunks", ("dim", 0)), outputs="many",
    doc="split into `chunks` nearly equal pieces (views)",
    samples=[Sample((5,), attrs={"chunks": 2}), Sample((2, 3), attrs={"chunks": 3, "dim": 1})],
    kind="shape", dtype="same"))


def _unsafe_split(a, split_size, dim):
    return _split(a, split_size, dim)


# PyTorch's unsafe_split and unsafe_chunk: split's pieces, which autograd does not track as
# views (UnsafeSplitBackward0); its recurrent cells take their gates with them
unsafe_split = register(Op(
    "unsafe_split", _unsafe_split, "self: _split_vjp(grad, dim, self_shape)",
    attrs=("split_size", ("dim", 0)), outputs="many", grad_fn="UnsafeSplitBackward0",
    jvp="linear", dtype="same", kind="shape",
    doc="split's pieces of split_size along dim, not tracked as views",
    samples=[Sample((5,), attrs={"split_size": 2}),
             Sample((2, 4), attrs={"split_size": 2, "dim": 1})]))
unsafe_split.extra_saved = {"_saved_split_size": lambda node: node._attrs[0]}


register(Composed(
    "unsafe_chunk", _chunks_of(unsafe_split),
    via=("unsafe_split",), attrs=("chunks", ("dim", 0)), outputs="many",
    doc="chunk's pieces, not tracked as views (UnsafeSplitBackward0)",
    samples=[Sample((5,), attrs={"chunks": 2}), Sample((2, 3), attrs={"chunks": 3, "dim": 1})],
    kind="shape", dtype="same"))


def _unbind(a, dim):
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    return tuple(_select_view(a, d, i) for i in range(check_pieces(a.shape[d])))


register(Op(
    "unbind", _unbind, "self: stack.apply(list(grad), (wrap_dim(dim, len(self_shape)),))",
    attrs=(("dim", 0),), outputs="many", jvp="linear", dtype="same", kind="shape", view=True,
    doc="the slices along dim, as a tuple of views",
    samples=[Sample((2, 3)), Sample((2, 3), attrs={"dim": 1})]))
OPS["unbind"].hidden_saved = ("self_sym_sizes",)  # (PyTorch's UnbindBackward0 saves dim only)
