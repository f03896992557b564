"""Calculator names (issue 21): every bare elementwise op computes on Python numbers and returns
a Python float, as `exp(1.5)` and `sin(2)` do through `math` (`sigmoid(1.5)`, `relu(-1)`,
`softplus(2)`, `erf(0.5)`); and `sec`, `csc`, `cot`, `gamma`, `factorial`, which take numbers
and tensors (differentiably: they are written in the engine's ops)."""

import math

# elementwise ops whose first argument is not the number they map (polygamma(n, x)), or that
# need a tensor beside it (masked_fill)
NOT_ON_NUMBERS = frozenset({"polygamma", "masked_fill"})


def _is_number(value):
    return type(value) in (int, float)


def on_numbers(op):
    """op computed on a Python number (in float64) as a Python float: sigmoid(1.5)."""
    def compute(x, *rest):
        from ..engine import dtypes
        from ..engine.tensor import Tensor
        from ..ops.creation import tensor
        result = op(tensor(float(x), dtype=dtypes.float64), *rest)
        return float(result.item()) if isinstance(result, Tensor) else result
    compute.__name__ = getattr(op, "__name__", "op")
    return compute


def _ops():
    from .namespace import modules
    return modules()["torch"]._members


def sec(x):
    """1/cos(x), on a number or a tensor."""
    return 1 / math.cos(x) if _is_number(x) else _ops()["reciprocal"](_ops()["cos"](x))


def csc(x):
    """1/sin(x), on a number or a tensor."""
    return 1 / math.sin(x) if _is_number(x) else _ops()["reciprocal"](_ops()["sin"](x))


def cot(x):
    """cos(x)/sin(x), on a number or a tensor."""
    if _is_number(x):
        return math.cos(x) / math.sin(x)
    return _ops()["reciprocal"](_ops()["tan"](x))


def gamma(x):
    """Euler's gamma function: math.gamma on a number; exp(lgamma(x)) with Γ's sign on a
    tensor (so that its gradient is Γ(x)·digamma(x))."""
    if _is_number(x):
        return math.gamma(x)
    import numpy as np
    from ..engine.tensor import Tensor
    ops = _ops()
    data = np.asarray(x._data if isinstance(x, Tensor) else x)
    # Γ < 0 between -1 and 0, -3 and -2, ...: where ceil(-x) is odd
    sign = np.where((data > 0) | (np.ceil(-data) % 2 == 0), 1.0, -1.0).astype(
        data.dtype if data.dtype.kind == "f" else np.float32)
    return ops["exp"](ops["lgamma"](x)) * Tensor._make(sign, None, 0, False)


def factorial(x):
    """n! of a whole number (an int, or a float with no fraction, as a calculator takes it);
    Γ(x + 1) on a tensor."""
    if type(x) is float:
        if not x.is_integer():
            raise ValueError("factorial() only accepts integral values")
        x = int(x)
    if type(x) is int:
        from .namespace import modules
        return modules()["math"]._members["factorial"](x)  # (its size is checked there)
    return gamma(x + 1)


def calculator_names(names):
    """The names to add to (or replace in) the bare names `names`."""
    from ..ops import OPS
    from .namespace import MathStyle
    added = {}
    for name, op in OPS.items():
        value = names.get(name)
        if (op.kind != "elementwise" or not op.public or name in NOT_ON_NUMBERS
                or value is None or isinstance(value, MathStyle) or not callable(value)):
            continue
        added[name] = MathStyle(value, on_numbers(value))
    added.update(sec=sec, csc=csc, cot=cot, gamma=gamma, factorial=factorial)
    return added
