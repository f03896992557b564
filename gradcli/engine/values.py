"""Tensor values as text for every layer above the engine: PyTorch's formatting without the
`tensor(...)` wrapper, one-line values, JSON values, and derivative labels (`dz/dx`).
(gradcli.render formats whole results with these; gradcli.analysis writes values into the
sentences it returns, a why or an expression.)"""

import math
import re

import numpy as np

from . import dtypes
from .printing import format_tensor
from .tensor import Tensor


def value_text(value, indent=0):
    """216. / [1., 2.] / nested rows aligned under `indent` columns, as PyTorch prints data."""
    if isinstance(value, Tensor):
        default = dtypes.get_default_dtype().name  # as dtype_name too: no `dtype=` suffix
        text = format_tensor(value._data, dtype_name=default, default_dtype_name=default)
        return text[len("tensor("):-1].replace("\n" + " " * 7, "\n" + " " * indent)
    if value is None:
        return "None"
    return repr(value)


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


_PLAIN_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def wrt(label):
    """A label as it reads after `dy/d`: a name as it is, anything compound in brackets
    (`dy/d(x * w)`, not `dy/dx * w`, which is other mathematics)."""
    label = label.strip()
    if _PLAIN_NAME.match(label):
        return label
    if label.startswith("(") and _closing(label, 0) == len(label) - 1:
        return label
    return f"({label})"


def _closing(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def json_ready(document):
    """document with every non-finite float (nested in dicts and lists) as "inf"/"-inf"/"nan"."""
    if isinstance(document, float):
        if math.isfinite(document):
            return document
        return "nan" if math.isnan(document) else ("inf" if document > 0 else "-inf")
    if isinstance(document, dict):
        return {k: json_ready(v) for k, v in document.items()}
    if isinstance(document, (list, tuple)):
        return [json_ready(v) for v in document]
    return document


def derivative_label(out, leaf, order=1):
    """dz/dx, d2z/dx2; an output that is an expression is bracketed: d(x*2 + 1)/dx."""
    out = wrt(out)
    if order == 1:
        return f"d{out}/d{leaf}"
    if "," in leaf:  # a mixed partial, "x,x,w": d3y/dx2 dw
        names = leaf.split(",")
        counts = {n: names.count(n) for n in names}
        return f"d{order}{out}/" + " ".join(f"d{n}{k if k > 1 else ''}"
                                           for n, k in counts.items())
    return f"d{order}{out}/d{leaf}{order}"
