"""Tensor values as text for every layer above the engine: PyTorch's formatting without the
`tensor(...)` wrapper, one-line values and JSON values (labels: engine.text).
(gradcli.render formats whole results with these; gradcli.analysis writes values into the
sentences it returns, a why or an expression.)"""

import numpy as np

from . import dtypes
from .printing import budgeted, format_tensor
from .tensor import Tensor
from .text import derivative_label, json_ready, wrt  # noqa: F401  (values' text, one place)


def value_text(value, indent=0):
    """216. / [1., 2.] / nested rows aligned under `indent` columns, as PyTorch prints data."""
    if isinstance(value, Tensor):
        default = dtypes.get_default_dtype().name  # as dtype_name too: no `dtype=` suffix
        text = format_tensor(value._data, dtype_name=default, default_dtype_name=default)
        return text[len("tensor("):-1].replace("\n" + " " * 7, "\n" + " " * indent)
    if value is None:
        return "None"
    return _repr(value)


_repr = budgeted(repr)  # (a list's text: its tensors' metered as one, printing.TextBudget)


def short_value(value, limit=6):
    """A one-line value for graph labels: scalars in full, small tensors inline, others by shape."""
    if isinstance(value, np.ndarray):
        value = Tensor._make(value, None, 0, False)
    if isinstance(value, Tensor):
        if value._data.size <= limit:
            return " ".join(value_text(value).split())
        return f"<{'x'.join(map(str, value._data.shape))} {value.dtype.name}>"
    return repr(value)


def to_json(value):
    """A JSON-ready value: a 0-d tensor is a number, others nested lists; nan/inf as strings."""
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "c":
            return to_json(np.stack([value.real, value.imag], -1))
        return _clean(value.tolist())
    if isinstance(value, (np.generic,)):
        return _clean(value.item())
    return _clean(value)


def _clean(x):
    if isinstance(x, list):
        return [_clean(v) for v in x]
    if isinstance(x, tuple):
        return [_clean(v) for v in x]
    if isinstance(x, float) and not np.isfinite(x):
        return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, Tensor):
        return to_json(x)
    return repr(x)
