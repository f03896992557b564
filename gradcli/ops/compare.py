"""Tests of values that PyTorch tutorials assert with: allclose, isclose, equal, all, any,
count_nonzero, nonzero, argwhere.  None is differentiable: they return bool or long tensors, or
Python bools."""

import numpy as np

from ..engine import dtypes, messages
from ..engine.dtypes import short_name
from ..engine.tensor import Tensor, batched
from .arith import broadcast_error, broadcasting, check_broadcast
from .reductions import axes
from .registry import Op, Plain, register


def _check_tensors(name, names, values):
    for position, (arg, value) in enumerate(zip(names, values)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {position + 1}) must be Tensor, "
                            f"not {messages.type_name(value)}")


def _same_dtype(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{short_name(a.dtype)} did not match {short_name(b.dtype)}")


def _check_tolerances(rtol, atol):
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _isclose(a, b, rtol, atol, equal_nan):
    _same_dtype(a, b)
    _check_tolerances(rtol, atol)
    equal = a == b
    if a.dtype == np.bool_ or (rtol == 0 and atol == 0):
        close = equal
    else:
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = equal | (np.isfinite(x) & np.isfinite(y) & (np.abs(x - y) <= atol + rtol * np.abs(y)))
    if equal_nan and a.dtype.kind in "fc":
        close = close | (np.isnan(a) & np.isnan(b))
    return close


class _TensorArguments(Op):
    """A comparison whose inputs must be tensors (`torch.isclose(x, 1.0)` is a TypeError)."""

    def apply(self, inputs, attrs):
        _check_tensors(self.name, ("input", "other"), inputs)
        return super().apply(inputs, attrs)


register(_TensorArguments(
    "isclose", broadcasting(_isclose), None, inputs=("self", "other"),
    attrs=(("rtol", 1e-05), ("atol", 1e-08), ("equal_nan", False)), dtype="bool",
    kind="comparison", doc="|self - other| <= atol + rtol * |other|, elementwise"))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of input is close to other's (isclose everywhere): a Python bool."""
    _check_tensors("allclose", ("input", "other"), (input, other))
    a, b = input._data, other._data
    message = broadcast_error(a.shape, b.shape)
    if message:
        raise RuntimeError(message)
    check_broadcast(a, b)  # (a Python bool, from arrays as large as the broadcast)
    return bool(np.all(_isclose(a, b, rtol, atol, equal_nan)))


def equal(input, other):
    """Whether input and other have the same size and elements: a Python bool."""
    _check_tensors("equal", ("input", "other"), (input, other))
    a, b = input._data, other._data
    return a.shape == b.shape and bool(np.all(a == b))


def _plain_method(name, fn, doc, kind="comparison"):
    entry = register(Plain(name, fn, doc, kind=kind))
    entry.method = True
    return entry


_plain_method("allclose", allclose, "whether self and other are close everywhere (a Python bool)")
_plain_method("equal", equal, "whether self and other have the same size and elements (a Python "
              "bool)")


# ------------------------------------------------------------------ all, any, count_nonzero

def _logical_reduction(fn):
    def forward(a, dim, keepdim):
        out = np.asarray(fn(a, axis=axes(dim, a.ndim), keepdims=keepdim))
        return out.astype(np.uint8) if a.dtype == np.uint8 else out
    return forward


register(Op(
    "all", _logical_reduction(np.all), None, attrs=(("dim", None), ("keepdim", False)),
    dtype="numpy", kind="reduction",
    doc="whether every element (over dim) is nonzero (bool; uint8 stays uint8)"))
register(Op(
    "any", _logical_reduction(np.any), None, attrs=(("dim", None), ("keepdim", False)),
    dtype="numpy", kind="reduction",
    doc="whether any element (over dim) is nonzero (bool; uint8 stays uint8)"))
register(Op("count_nonzero", lambda a, dim: np.asarray(np.count_nonzero(a, axis=axes(dim, a.ndim))),
            None, attrs=(("dim", None),), dtype="long", kind="reduction",
            doc="the number of nonzero elements (over dim)"))


# ------------------------------------------------------------------ nonzero, argwhere

def _long(array):
    return Tensor._make(np.array(array, dtype=np.int64, order="C"), None, 0, False)


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements: one row per element (as_tuple: one tensor per
    dimension)."""
    _check_tensors("nonzero", ("input",), (input,))
    if batched(input):  # (PyTorch's vmap cannot batch it: each sample's result has its own shape)
        raise RuntimeError(messages.VMAP_NO_FALLBACK.format(op="aten::nonzero_numpy")
                           if as_tuple else
                           messages.VMAP_DYNAMIC_SHAPE.format(op="aten::nonzero"))
    a = input._data
    if as_tuple:
        return tuple(_long(i) for i in np.nonzero(a.reshape(1) if a.ndim == 0 else a))
    return _long(np.argwhere(a))


def argwhere(input):
    """The indices of the nonzero elements, one row per element (nonzero(as_tuple=False))."""
    _check_tensors("argwhere", ("input",), (input,))
    return _long(np.argwhere(input._data))


_plain_method("nonzero", nonzero, "indices of the nonzero elements (as_tuple=True: one tensor per "
              "dimension)")
_plain_method("argwhere", argwhere, "indices of the nonzero elements, one row per element")


# ------------------------------------------------------------------ bitwise (& | ^ on tensors)

_C_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}


def _bitwise(name, fn):
    def forward(a, b):
        arrays = [x for x in (a, b) if isinstance(x, np.ndarray)]
        if any(x.dtype.kind in "fc" for x in arrays) or any(
                isinstance(x, (float, complex)) for x in (a, b)):
            floats = [x.dtype for x in arrays if x.dtype.kind in "fc"]
            # a Python float beside an integer tensor promotes to the default dtype
            floating = np.result_type(*floats) if floats else dtypes.get_default_dtype().np
            raise messages.not_implemented(f"{name}_cpu", _C_NAMES.get(floating.name,
                                                                      floating.name))
        return fn(a, b)
    return forward


for _name, _fn, _doc in (("bitwise_and", np.bitwise_and, "self & other, bit by bit"),
                         ("bitwise_or", np.bitwise_or, "self | other, bit by bit"),
                         ("bitwise_xor", np.bitwise_xor, "self ^ other, bit by bit")):
    register(Op(_name, _bitwise(_name, broadcasting(_fn)), None, inputs=("self", "other"),
                doc=_doc + " (integers and bools)", kind="comparison", inplace=True,
                samples=[]))
