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


def _tied(x, dims, pick):
    """Whether the extreme value (pick: np.max or np.min) is reached more than once, over all
    elements (dims None or ()) or within any slice along dims."""
    x = _arr(x)
    if x.size <= 1 or np.isnan(x).any():
        return False
    if dims is None or dims == () or dims == []:
        return np.count_nonzero(x == pick(x)) > 1
    axes = tuple(d % x.ndim for d in (dims if isinstance(dims, (tuple, list)) else (dims,))) \
        if x.ndim else ()
    if not axes:
        return False
    return bool(np.any(np.count_nonzero(x == pick(x, axis=axes, keepdims=True), axis=axes) > 1))


def _split_tie(extreme, pick):
    """max()/min() over all elements, amax/amin: PyTorch splits the gradient among ties."""
    def check(inputs, attrs):
        dims = attrs[0] if attrs else None
        if _tied(inputs[0], dims, pick):
            return (f"ties for the {extreme} value: the gradient was split evenly between "
                    f"them")
    return check


def _selected_tie(name, extreme, pick):
    """max/min with dim: PyTorch gives the whole gradient to the one index it returned."""
    def check(inputs, attrs):
        dim = attrs[0] if attrs else 0
        if _tied(inputs[0], dim, pick):
            return (f"ties for the {extreme} along dim {dim}: the whole gradient went to the "
                    f"index {name} returned (its indices), none to the other tied elements")
    return check


def _sqrt(inputs, attrs):
    if np.any(_arr(inputs[0]) == 0):
        return "sqrt at 0: the derivative is infinite there"


def _vector_norm(inputs, attrs):
    """A norm is not differentiable where it is 0 (ord 1: where an element is 0, as abs)."""
    x = _arr(inputs[0])
    order, dims = (list(attrs) + [2, None])[:2]
    if order == 1:
        if np.any(x == 0):
            return "norm (ord 1) at an element 0: the subgradient 0 was used (sign(0) = 0)"
        return None
    axes = None if dims is None or dims in ((), []) or x.ndim == 0 else tuple(
        d % x.ndim for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))
    if x.size and np.any(np.all(x == 0, axis=axes)):
        return "norm at the zero vector: the subgradient 0 was used"


def _flat(name):
    def check(inputs, attrs):
        return f"{name} is piecewise constant: its derivative is 0 almost everywhere"
    return check


KINKS = {"relu": _relu, "abs": _abs, "clamp": _clamp, "clip": _clamp, "maximum": _tie,
         "minimum": _tie, "max": _split_tie("maximum", np.max),
         "min": _split_tie("minimum", np.min), "amax": _split_tie("maximum", np.max),
         "amin": _split_tie("minimum", np.min),
         "max.dim": _selected_tie("max", "maximum", np.max),
         "min.dim": _selected_tie("min", "minimum", np.min), "sqrt": _sqrt,
         "linalg_vector_norm": _vector_norm,
         "sign": _flat("sign"), "floor": _flat("floor"), "ceil": _flat("ceil"),
         "round": _flat("round"), "trunc": _flat("trunc")}


def kink_at(node, record):
    """A description of the kink node met, or None."""
    op = getattr(node, "op", None)
    if op is None or record is None:
        return None
    check = KINKS.get(op.name) or KINKS.get(op.name.split(".")[0])
    return check(record.inputs, record.attrs) if check else None
