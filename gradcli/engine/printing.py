"""Tensor repr formatting, a port of PyTorch's torch/_tensor_str.py (2.x) over NumPy arrays.

Values are formatted as the Python floats/ints that `tensor.tolist()` yields, so a float32
element is formatted from its exact float32 value, as PyTorch does.
"""

import math

import numpy as np

from .records import Record


class _PrinterOptions(Record):
    _fields = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self, precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None):
        self.precision = precision
        self.threshold = threshold
        self.edgeitems = edgeitems
        self.linewidth = linewidth
        self.sci_mode = sci_mode


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set printing options, as `torch.set_printoptions` (sci_mode is always overwritten)."""
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options, as keyword arguments for `set_printoptions`."""
    return PRINT_OPTS.as_dict()


class _Formatter:
    """Decides int/sci/fixed mode and the common column width for all elements of a tensor."""

    def __init__(self, values):
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = values.reshape(-1)
        if not self.floating_dtype:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            # PyTorch returns before applying PRINT_OPTS.sci_mode here.
            return

        nonzero_finite_abs = np.abs(nonzero_finite).astype(np.float64)
        nonzero_finite_min = float(nonzero_finite_abs.min())
        nonzero_finite_max = float(nonzero_finite_abs.max())
        self.int_mode = bool(np.all(np.ceil(nonzero_finite) == nonzero_finite))

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = (nonzero_finite_max / nonzero_finite_min > 1000.0
                             or nonzero_finite_max > 1.0e8
                             or nonzero_finite_min < 1.0e-4)
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        for value in nonzero_finite.tolist():
            if self.sci_mode:
                width = len(f"{value:.{precision}e}")
            elif self.int_mode:
                # room for the trailing "." marking a float
                width = len(f"{value:.0f}") + 1
            else:
                width = len(f"{value:.{precision}f}")
            self.max_width = max(self.max_width, width)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _val_str(value, formatter1, formatter2=None):
    """One element; formatter2 formats the imaginary part of complex elements."""
    if formatter2 is None:
        return formatter1.format(value)
    real_str = formatter1.format(value.real)
    imag_str = (formatter2.format(value.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(data, indent, summarize, formatter1, formatter2=None):
    # length includes spaces and comma between elements
    element_length = formatter1.width() + 2
    if formatter2 is not None:
        # width for imag_formatter + an extra j for complex
        element_length += formatter2.width() + 1

    elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))

    edgeitems = PRINT_OPTS.edgeitems
    if summarize and not edgeitems:
        elements = ["..."]
    elif summarize and data.shape[0] > 2 * edgeitems:
        elements = ([_val_str(v, formatter1, formatter2) for v in data[:edgeitems].tolist()]
                    + [" ..."]
                    + [_val_str(v, formatter1, formatter2) for v in data[-edgeitems:].tolist()])
    else:
        elements = [_val_str(v, formatter1, formatter2) for v in data.tolist()]

    lines = [", ".join(elements[i:i + elements_per_line])
             for i in range(0, len(elements), elements_per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(data, indent, summarize, formatter1, formatter2=None):
    dim = data.ndim
    if dim == 0:
        return _val_str(data.item(), formatter1, formatter2)
    if dim == 1:
        return _vector_str(data, indent, summarize, formatter1, formatter2)

    edgeitems = PRINT_OPTS.edgeitems
    size = data.shape[0]
    if summarize and size > 2 * edgeitems:
        slices = ([_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter1, formatter2)
                   for i in range(edgeitems)]
                  + ["..."]
                  + [_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter1, formatter2)
                     for i in range(size - edgeitems, size)])
    else:
        slices = [_tensor_str_with_formatter(data[i], indent + 1, summarize, formatter1, formatter2)
                  for i in range(size)]

    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(data):
    """The elements that a summarised print shows; the formatter is fitted to these only."""
    dim = data.ndim
    edgeitems = PRINT_OPTS.edgeitems
    if dim == 0:
        return data
    if dim == 1:
        if data.shape[0] > 2 * edgeitems:
            return np.concatenate((data[:edgeitems], data[-edgeitems:]))
        return data
    if not edgeitems:
        return np.empty((0,) * dim, dtype=data.dtype)
    size = data.shape[0]
    if size > 2 * edgeitems:
        rows = [data[i] for i in (*range(edgeitems), *range(size - edgeitems, size))]
    else:
        rows = list(data)
    return np.stack([_summarized_data(row) for row in rows])


# check(n): refuse a text of n characters (gradcli.lang hands its item limit here)
TEXT_CHECK = [None]


class TextBudget:
    """The characters tensors' texts took within the one text being made (a program's repr,
    str, print or format, a result shown), which TEXT_CHECK meters as a whole: a list's text
    is made in C, a tensor's text at a time, so that `repr([t] * 10 ** 7)` would be ten
    million texts each within the limit.  None while no such text is being made."""
    spent = None


def budgeted(make):
    """make (repr, str, print, format) with one TextBudget for all the text it makes (within
    another such call, the outer one's)."""
    def call(*args, **kwargs):
        if TextBudget.spent is not None:
            return make(*args, **kwargs)
        TextBudget.spent = 0
        try:
            return make(*args, **kwargs)
        finally:
            TextBudget.spent = None
    call.__name__ = call.__qualname__ = getattr(make, "__name__", "call")
    call.__doc__ = make.__doc__
    return call


def shown_elements(shape, summarize):
    """How many elements the text of a tensor of that shape shows."""
    n = 1
    for size in shape:
        n *= min(size, 2 * PRINT_OPTS.edgeitems) if summarize else size
    return n


def _tensor_str(data, indent):
    summarize = data.size > PRINT_OPTS.threshold
    if TEXT_CHECK[0] is not None:  # (a threshold of any size: each element shown is two
        #                            characters at least, and one Python float while formatted)
        TEXT_CHECK[0](2 * shown_elements(data.shape, summarize) + 8)  # (and `tensor()`)
    fitted = _summarized_data(data) if summarize else data
    if data.dtype.kind == "c":
        return _tensor_str_with_formatter(data, indent, summarize,
                                          _Formatter(fitted.real), _Formatter(fitted.imag))
    return _tensor_str_with_formatter(data, indent, summarize, _Formatter(fitted))


def _add_suffixes(tensor_str, suffixes, indent):
    tensor_strs = [tensor_str]
    # PyTorch's count: two more than the last line's length when there is no newline.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def format_tensor(data, *, dtype_name, default_dtype_name, requires_grad=False,
                  grad_fn_name=None, tangent=None, prefix="tensor("):
    """The repr of a dense CPU tensor holding `data`, as `torch.Tensor.__repr__` prints it.

    dtype_name is the torch dtype without "torch." (bfloat16 data comes as float32 values);
    tangent is the forward-mode gradient, printed as PyTorch prints a dual tensor.
    """
    data = np.asarray(data)
    indent = len(prefix)
    suffixes = []

    default_complex_name = "complex128" if default_dtype_name == "float64" else "complex64"
    has_default_dtype = dtype_name in (default_dtype_name, default_complex_name, "int64", "bool")
    if data.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        # no elements to infer the dtype from, so anything but the default float is shown
        if dtype_name != default_dtype_name:
            suffixes.append(f"dtype=torch.{dtype_name}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(data.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype=torch.{dtype_name}")
        tensor_str = _tensor_str(data, indent)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    if tangent is not None:
        tangent = np.asarray(tangent)
        # PyTorch formats the tangent with an f-string, and a 0-d tensor formats as its item
        if tangent.ndim == 0:
            tangent_str = f"{tangent.item()}"
        else:
            tangent_str = format_tensor(tangent, dtype_name=dtype_name,
                                        default_dtype_name=default_dtype_name)
        suffixes.append(f"tangent={tangent_str}")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)


def format_size(shape):
    """str(torch.Size(shape))."""
    return "torch.Size([" + ", ".join(str(int(d)) for d in shape) + "])"
