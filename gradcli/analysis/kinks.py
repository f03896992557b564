"""Non-differentiable points: where an op's derivative is a convention (a subgradient), so explain
and check can say which one was used (SPEC §5)."""

import numpy as np

from ..engine.tensor import Tensor


def _arr(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _relu(inputs, attrs):
    x = _arr(inputs[0])
    if np.any(x == 0):
        return "relu at 0: the subgradient 0 was used"


def _abs(inputs, attrs):
    if np.any(_arr(inputs[0]) == 0):
        return "abs at 0: the subgradient 0 was used (sign(0) = 0)"


def _clamp(inputs, attrs):
    x = _arr(inputs[0])
    bounds = [b for b in list(inputs[1:]) + list(attrs) if isinstance(b, (int, float, Tensor))
              and not isinstance(b, bool)]
    for b in bounds:
        if np.any(x == _arr(b)):
            return f"clamp at its bound {float(np.ravel(_arr(b))[0]):g}: the gradient 1 was used"


def _tie(inputs, attrs):
    if len(inputs) >= 2 and all(isinstance(i, Tensor) for i in inputs[:2]):
        if np.any(_arr(inputs[0]) == _arr(inputs[1])):
            return "a tie between the two inputs: the gradient was split evenly between them"


def _reduction_tie(inputs, attrs):
    x = _arr(inputs[0])
    if x.size > 1 and (np.sum(x == x.max()) > 1 or np.sum(x == x.min()) > 1):
        return "ties for the extreme value: the gradient was split evenly between them"


def _sqrt(inputs, attrs):
    if np.any(_arr(inputs[0]) == 0):
        return "sqrt at 0: the derivative is infinite there"


def _flat(name):
    def check(inputs, attrs):
        return f"{name} is piecewise constant: its derivative is 0 almost everywhere"
    return check


KINKS = {"relu": _relu, "abs": _abs, "clamp": _clamp, "clip": _clamp, "maximum": _tie,
         "minimum": _tie, "max": _reduction_tie, "min": _reduction_tie, "amax": _reduction_tie,
         "amin": _reduction_tie, "sqrt": _sqrt, "sign": _flat("sign"), "floor": _flat("floor"),
         "ceil": _flat("ceil"), "round": _flat("round"), "trunc": _flat("trunc")}


def kink_at(node, record):
    """A description of the kink node met, or None."""
    op = getattr(node, "op", None)
    if op is None or record is None:
        return None
    check = KINKS.get(op.name.split(".")[0])
    return check(record.inputs, record.attrs) if check else None
