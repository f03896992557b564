"""torch.autograd.Variable: PyTorch's deprecated shim.  `Variable(t, requires_grad=True)` gives a
Tensor (t detached: the same data and version counter, a leaf), and every tensor is an instance
of Variable, as the legacy constructor and VariableMeta make them in PyTorch."""

import operator
import warnings

from ..engine.torch_classes import TorchClass

# PyArg_ParseTupleAndKeywords's arguments: "|ObbOz"
_ARGUMENTS = ("data", "requires_grad", "volatile", "_grad_fn", "name")
# (the legacy constructor's own capital)
ONLY_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"
VOLATILE_WARNING = "volatile was removed and now has no effect. Use `with torch.no_grad():` " \
                   "instead."


class VariableMeta(TorchClass):
    _torch_name = "torch.autograd.variable.VariableMeta"

    def __instancecheck__(cls, other):
        from ..engine.tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None): a
    Tensor, never a Variable."""

    _torch_name = "torch.autograd.variable.Variable"

    def __new__(cls, *args, **kwargs):
        data, requires_grad, volatile, grad_fn, _ = _parse(args, kwargs)
        from ..engine.tensor import Tensor
        if volatile:
            warnings.warn(VOLATILE_WARNING, UserWarning, stacklevel=2)
        if data is None:
            from ..ops.creation import empty
            var = empty(0)
        elif isinstance(data, Tensor):
            var = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if grad_fn is not None:
            from ..engine.graph import Node
            if not isinstance(grad_fn, Node):
                raise TypeError(f"_grad_fn has to be a Function object or None, but got "
                                f"{type(grad_fn).__name__}")
            raise RuntimeError("_grad_fn argument to legacy Variable constructor is no longer "
                               "supported.  Instead, please invoke your _grad_fn to produce a "
                               "variable with it as the _grad_fn.")
        if requires_grad and var.dtype.category < 2:
            raise RuntimeError(ONLY_FLOAT)
        return var.requires_grad_(requires_grad)


def _parse(args, kwargs):
    """The five arguments as PyArg_ParseTupleAndKeywords takes them, with its errors."""
    if len(args) > len(_ARGUMENTS):
        raise TypeError(f"function takes at most {len(_ARGUMENTS)} arguments "
                        f"({len(args) + len(kwargs)} given)")
    values = dict(zip(_ARGUMENTS, args))
    for key, value in kwargs.items():
        if key not in _ARGUMENTS:
            raise TypeError(f"'{key}' is an invalid keyword argument for this function")
        if key in values:
            raise TypeError(f"argument for function given by name ('{key}') and position "
                            f"({_ARGUMENTS.index(key) + 1})")
        values[key] = value
    for key in ("requires_grad", "volatile"):
        if key in values:
            values[key] = _unsigned_byte(values[key]) != 0
    name = values.get("name")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"argument 5 must be str or None, not {type(name).__name__}")
    return [values.get(key, False if key in ("requires_grad", "volatile") else None)
            for key in _ARGUMENTS]


def _unsigned_byte(value):
    """The "b" format's conversion: an integer in 0..255."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an "
                        f"integer") from None
    if value < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if value > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return value
