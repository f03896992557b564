"""PyTorch's argument errors for a Tensor method call that gradcli refused: what PyTorch's
Python argument parser (torch/csrc/utils/python_arg_parser.cpp and invalid_arguments.cpp) says
of the same arguments, from Python signatures derived from the op table's declarations.

Used on the error path only: a method call that raised is parsed again here against PyTorch's
signatures of that name; if PyTorch's parser would refuse the arguments, its TypeError replaces
gradcli's error (PyTorch parses the arguments before it runs anything), otherwise gradcli's
error stands.

A signature is derived from an op's declaration (gradcli.ops.registry.Op): its inputs are
Tensors, its attributes are typed by their names and defaults (PARAM_TYPES), the aten overload
name says which inputs are Scalars (`pow.Tensor_Scalar`: exponent is a Number), and the
attributes PyTorch takes by keyword only (KEYWORD_ONLY) follow a `*`.  FORMS lists the few
Python forms PyTorch has and the table does not declare as overloads (its hidden, deprecated
`add(Scalar alpha, Tensor other)`, `max(Tensor other)`, std's and var's three forms, ...)."""

import numpy as np

from ..engine import messages
from ..engine.tensor import Tensor
from .creation import is_number

# ------------------------------------------------------------------ parameter types
TENSOR, NUMBER, INT, FLOAT, BOOL, INTS, DTYPE, STR = (
    "Tensor", "Number", "int", "float", "bool", "tuple of ints", "torch.dtype", "str")

PARAM_TYPES = {  # attribute name -> PyTorch's Python type (when its default does not say)
    "dim": INT, "dim0": INT, "dim1": INT, "start_dim": INT, "end_dim": INT, "start": INT,
    "length": INT, "diagonal": INT, "k": INT, "n": INT, "offset": INT, "chunks": INT,
    "sections": INT, "split_size": INT, "steps": INT, "num_samples": INT,
    "keepdim": BOOL, "unbiased": BOOL, "largest": BOOL, "sorted": BOOL, "descending": BOOL,
    "stable": BOOL, "replacement": BOOL,
    "alpha": NUMBER, "beta": NUMBER, "value": NUMBER, "correction": NUMBER, "min": NUMBER,
    "max": NUMBER, "exponent": NUMBER, "other": NUMBER, "p": NUMBER,
    "size": INTS, "shape": INTS, "dims": INTS, "repeats": INTS, "sizes": INTS,
    "dtype": DTYPE, "rounding_mode": STR, "reduce": STR,
    "index": TENSOR, "mask": TENSOR, "src": TENSOR, "source": TENSOR, "indices": TENSOR,
}
RENAMED = {"view": {"shape": "size"}, "expand": {"shape": "size"}}  # PyTorch's names
KEYWORD_ONLY = frozenset(("alpha", "beta", "dtype", "correction", "rounding_mode", "reduce",
                          "generator", "stable", "out"))
# reductions whose `dim` is PyTorch's int[1]? (`tuple of ints dim`, which takes one int too)
INT_LIST_DIMS = frozenset(("sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp",
                           "std", "var", "count_nonzero", "squeeze.dims", "norm"))
# ops whose Tensor arguments PyTorch's parser also takes as Python numbers
# (should_allow_numbers_as_tensors)
NUMBERS_AS_TENSORS = frozenset((
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "eq", "ne",
    "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
    "logical_or", "logical_xor", "atan2", "copysign", "xlogy", "hypot", "nextafter", "where",
    "clamp", "clip", "maximum", "minimum", "fmax", "fmin", "rsub"))

# Python forms PyTorch has that the table does not declare as an op of the name: (text of
# the parameters, hidden, place among PyTorch's forms or None: last); replaces=True: these
# are the name's whole list
FORMS = {
    "add": ([("Number alpha, Tensor other", True)], False),
    "sub": ([("Number alpha, Tensor other", True)], False),
    "max": ([("Tensor other", False, 1)], False),
    "min": ([("Tensor other", False, 1)], False),
    "std": ([("tuple of ints dim, bool unbiased = True, bool keepdim = False", False),
             ("tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
              False), ("bool unbiased = True", False)], True),
    "var": ([("tuple of ints dim, bool unbiased = True, bool keepdim = False", False),
             ("tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
              False), ("bool unbiased = True", False)], True),
    "view": ([("torch.dtype dtype", False, 0)], False),
    "float_power": ([("Number exponent", False)], False),
    "narrow": ([("int dim, Tensor start, int length", False, 0)], False),
    "div": ([("Number other, *, str rounding_mode", False)], False),
    **{name: ([("Number other", False)], False) for name in ("eq", "ne", "lt", "le", "gt", "ge")},
}
OPTIONAL_TENSORS = frozenset(("min", "max"))  # Tensor inputs PyTorch declares `= None`
POSITIONAL_DTYPE = frozenset(("softmax", "log_softmax"))  # (its dtype is not keyword-only)


class Param:
    """One parameter of a Python signature: its type's text, name, default's text (None:
    required) and whether it is keyword-only."""

    __slots__ = ("type", "name", "default", "keyword_only")

    def __init__(self, type_, name, default=None, keyword_only=False):
        self.type, self.name, self.default, self.keyword_only = type_, name, default, keyword_only

    @property
    def optional(self):
        return self.default is not None

    def text(self):
        return f"{self.type} {self.name}" + (f" = {self.default}" if self.optional else "")


class Signature:
    """A Python signature of PyTorch's parser (FunctionSignature): its counts of arguments."""

    def __init__(self, name, params, hidden=False):
        self.name, self.params, self.hidden = name, params, hidden
        self.min_args = sum(not p.optional for p in params)
        self.max_args = len(params)
        self.max_pos_args = sum(not p.keyword_only for p in params)

    def printable(self):
        parts = []
        for i, p in enumerate(self.params):
            if p.keyword_only and (i == 0 or not self.params[i - 1].keyword_only):
                parts.append("*")
            parts.append(p.text())
        return f"({', '.join(parts)})"

    @classmethod
    def from_text(cls, name, text, hidden=False):
        params, keyword_only = [], False
        for part in filter(None, text.split(", ")):
            if part == "*":
                keyword_only = True
                continue
            declared, _, default = part.partition(" = ")
            type_, _, pname = declared.rpartition(" ")
            params.append(Param(type_, pname, default or None, keyword_only))
        return cls(name, params, hidden)


def _default_text(value):
    return f"'{value}'" if isinstance(value, str) else repr(value)


_MISSING_DEFAULT = object()


def _attr_type(op_name, name, default, view=False):
    if name == "index" and view:  # (a view's index is a position: select(dim, index))
        return INT
    if name == "weight" and default is _MISSING_DEFAULT:  # (lerp.Scalar's: a tensor's is
        return NUMBER                                     # an input, or defaults to None)
    if name == "dim" and (op_name.split(".")[0] in INT_LIST_DIMS or op_name in INT_LIST_DIMS
                          or "IntList" in op_name):
        return INTS
    if name in PARAM_TYPES:
        return PARAM_TYPES[name]
    for kind, type_ in ((bool, BOOL), (int, INT), (float, FLOAT), (str, STR)):
        if isinstance(default, kind):
            return type_
    return None  # (a parameter this module cannot type: the op's own errors stand)


def _scalar_inputs(op, inputs):
    """The inputs an aten overload name makes Scalars: `pow.Tensor_Scalar` (self, exponent),
    `masked_fill.Scalar` (its last input, unless the op takes its scalar as an attribute)."""
    kinds = op.name.partition(".")[2].split("_")
    if len(kinds) == len(inputs) and set(kinds) <= {"Tensor", "Scalar"}:
        return {n for n, k in zip(inputs, kinds) if k == "Scalar"}
    if "Scalar" in kinds and inputs and not op.attr_names:
        return {inputs[-1]}
    return set()


def method_signature(op):
    """PyTorch's Python signature of op's Tensor method, from op's declaration (None if an
    attribute's type is not known here)."""
    from .registry import _MISSING
    inputs = [n.lstrip("*") for n in op.inputs]
    scalars = _scalar_inputs(op, inputs)
    params = [Param(NUMBER if n in scalars else TENSOR, n,
                    "None" if n in OPTIONAL_TENSORS else None) for n in inputs if n != "self"]
    base = op.name.split(".")[0]
    renamed = RENAMED.get(op.name, {})
    keyword_only = False  # (from the first keyword-only attribute on: a schema's `*`)
    for i, (name, default) in enumerate(zip(op.attr_names, op.attr_defaults)):
        type_ = _attr_type(op.name, name, _MISSING_DEFAULT if default is _MISSING else default,
                           op.view)
        if type_ is None:
            return None
        name = renamed.get(name, name)
        text = None if default is _MISSING else (
            "None" if default is None else _default_text(default))
        keyword_only = keyword_only or i >= op.positional_attrs or (
            name in KEYWORD_ONLY and not (name == "dtype" and base in POSITIONAL_DTYPE))
        params.append(Param(type_, name, text, keyword_only))
    # (the index family's dim before its tensors, as PyTorch's schemas: index_add(dim, index,
    # source))
    params.sort(key=lambda p: not (p.name == "dim" and "index" in inputs))
    return Signature(base, params)


def method_signatures(entry, name):
    """The signatures PyTorch's parser tries for Tensor.name (the entry's forms), hidden ones
    too, in its order (Tensor forms before Scalar ones)."""
    from .registry import OPS, Op, Overload
    base = name.rstrip("_")
    entry = OPS.get(base, entry) if isinstance(OPS.get(base), Overload) else entry
    ops = entry.ops if isinstance(entry, Overload) else [entry]
    forms, replaces = FORMS.get(base, ([], False))
    signatures = [] if replaces else [method_signature(op) for op in ops
                                      if isinstance(op, Op) and "self" in op.inputs]
    if None in signatures:
        return []
    for text, hidden, *place in forms:
        form = Signature.from_text(base, text, hidden)
        signatures.insert(place[0] if place else len(signatures), form)
    unique = {}
    for s in signatures:
        s.name = name
        unique.setdefault(s.printable(), s)
    # (PyTorch's codegen sorts a Tensor form before the same form with a Scalar)
    return sorted(unique.values(), key=lambda s: sum(
        p.type == NUMBER and not p.keyword_only for p in s.params))


# ------------------------------------------------------------------ the parser
def _tp_name(value):
    """The name PyTorch's parser gives value's type (tp_name: gradcli's classes under
    torch's names)."""
    if isinstance(value, Tensor):
        return "Tensor"
    name = messages.type_name(value)
    return {"dtype": "torch.dtype", "Size": "torch.Size", "Generator": "torch._C.Generator",
            "Device": "torch.device"}.get(name, name)


def _is_int(x):
    if isinstance(x, Tensor):
        return x.dtype.is_floating_point is False and x.numel() == 1
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check(param, x, numbers_as_tensors):
    """Whether x is a value of param's type (PyTorch's FunctionParameter::check)."""
    t = param.type
    if t == TENSOR:
        return isinstance(x, Tensor) or numbers_as_tensors and is_number(x)
    if t == NUMBER:
        return is_number(x)
    if t == INT:
        return _is_int(x)
    if t == FLOAT:
        return is_number(x) and not isinstance(x, complex)
    if t == BOOL:
        return isinstance(x, (bool, np.bool_)) or isinstance(x, Tensor) and x.numel() == 1
    if t == INTS:
        if isinstance(x, (tuple, list)):
            return not x or _is_int(x[0])
        return param.name == "dim" and _is_int(x)
    if t == DTYPE:
        return _tp_name(x) == "torch.dtype"
    if t == STR:
        return isinstance(x, str)
    return True


def _extra_args(sig, nargs):
    low, high = sig.min_args, sig.max_pos_args
    if low != high:
        return f"{sig.name}() takes from {low} to {high} positional arguments but {nargs} " \
               f"were given"
    return (f"{sig.name}() takes {high} positional argument{'' if high == 1 else 's'} but "
            f"{nargs} {'was' if nargs == 1 else 'were'} given")


class Unpacked(str):
    """The message of arguments a signature takes whose list of ints then fails to unpack
    (PyTorch's parser picks the signature, its unpacking raises)."""


def _unpack_failure(sig, param, values):
    for i, v in enumerate(values):
        if not _is_int(v):
            return Unpacked(f"{sig.name}(): argument '{param.name}' failed to unpack the object "
                            f"at pos {i + 1} with error \"type must be {param.type},but got "
                            f"{_tp_name(v)}\"")
    return None


def parse(sig, args, kwargs, numbers_as_tensors=False):
    """None if sig takes these arguments, else PyTorch's message (FunctionSignature::parse
    with raise_exception)."""
    nargs = len(args)
    varargs = sig.max_pos_args == 1 and sig.params[0].type == INTS
    if nargs > sig.max_pos_args and not varargs:
        return _extra_args(sig, nargs)
    arg_pos, used, unpacked = 0, 0, None
    for i, param in enumerate(sig.params):
        is_kwd = False
        if arg_pos < nargs:
            if param.keyword_only:
                return _extra_args(sig, nargs)
            x = args[arg_pos]
        else:
            x, is_kwd = kwargs.get(param.name, _ABSENT), True
        if x is _ABSENT and param.optional or x is None and param.default == "None":
            pass
        elif x is _ABSENT:
            missing = [f'"{p.name}"' for p in sig.params[i:] if not p.optional]
            return (f"{sig.name}() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")
        elif _check(param, x, numbers_as_tensors):
            if param.type == INTS and isinstance(x, (tuple, list)):
                unpacked = unpacked or _unpack_failure(sig, param, x)
        elif varargs and arg_pos == 0 and not is_kwd and _is_int(x):
            unpacked = unpacked or _unpack_failure(sig, param, args)
            arg_pos = nargs
            continue
        elif is_kwd:
            return f"{sig.name}(): argument '{param.name}' must be {param.type}, not {_tp_name(x)}"
        else:
            return (f"{sig.name}(): argument '{param.name}' (position {arg_pos + 1}) must be "
                    f"{param.type}, not {_tp_name(x)}")
        if not is_kwd:
            arg_pos += 1
        elif x is not _ABSENT:
            used += 1
    if used < len(kwargs):
        names = [p.name for p in sig.params]
        for key in kwargs:
            if key not in names:
                return f"{sig.name}() got an unexpected keyword argument '{key}'"
            if names.index(key) < nargs:
                return f"{sig.name}() got multiple values for argument '{key}'"
    return unpacked


_ABSENT = object()


# ------------------------------------------------------------------ invalid combinations
def _simple_type(type_text):
    """What invalid_arguments.cpp's option parser makes of a parameter's text (everything
    before its last space, `Number alpha =` for `Number alpha = 1`): the type a value is
    matched against when the message marks the arguments."""
    if type_text == "float":
        return ("float", "int", "long")
    if type_text == "int":
        return ("int", "long")
    return (type_text,)


def _option(text):
    """(argument (name, accepted type names) list) of a printable signature, as
    invalid_arguments.cpp's _parseOption splits it (`*` and an empty `()` count as
    arguments there)."""
    arguments = []
    for part in text[1:-1].split(", "):
        cut = part.rfind(" ")
        name = part[cut + 1:]
        arguments.append((name, _simple_type(part[:cut] if cut >= 0 else part)))
    return arguments


def _described(value):
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_tp_name(v) for v in value)
        if isinstance(value, tuple):
            return f"tuple of ({inner}{',' if len(value) == 1 else ''})"
        return f"list of [{inner}]"
    return _tp_name(value)


def _marked(option, args, kwargs):
    given = list(args) + list(kwargs.values())
    parts = []
    for i, value in enumerate(given):
        is_kwarg = i >= len(args)
        matching = i < len(option) and _tp_name(value) in option[i][1]
        name = f"{option[i][0]}=" if is_kwarg else ""
        text = name + _described(value)
        parts.append(text if matching else f"!{text}!")
    return "(" + (", ".join(parts) if args else "".join(p + ", " for p in parts)) + ")"


def _plain(args, kwargs):
    parts = [_tp_name(a) for a in args] + [f"{k}={_tp_name(v)}" for k, v in kwargs.items()]
    return "(" + (", ".join(parts) if args else "".join(p + ", " for p in parts)) + ")"


def _unmatched_keywords(option, kwargs):
    start = max(len(option) - len(kwargs), 0)
    names = [n for n, _ in option[start:]]
    return [k for k in kwargs if k not in names]


def invalid_combination(name, args, kwargs, options):
    """PyTorch's "received an invalid combination of arguments" (format_invalid_args)."""
    text = f"{name}() received an invalid combination of arguments - "
    n = len(args) + len(kwargs)
    if len(options) == 1:
        option = _option(options[0])
        unmatched = _unmatched_keywords(option, kwargs) if kwargs else []
        if unmatched:
            return text + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        given = _marked(option, args, kwargs) if len(option) == n else _plain(args, kwargs)
        return text + f"got {given}, but expected {options[0]}"
    text += f"got {_plain(args, kwargs)}, but expected one of:\n"
    for printable in options:
        option = _option(printable)
        text += f" * {printable}\n"
        if len(option) == n:
            unmatched = _unmatched_keywords(option, kwargs) if kwargs else []
            if unmatched:
                text += ("      didn't match because some of the keywords were incorrect: "
                         + ", ".join(unmatched) + "\n")
            else:
                text += ("      didn't match because some of the arguments have invalid types: "
                         + _marked(option, args, kwargs) + "\n")
    return text


def refusal(signatures, name, args, kwargs, numbers_as_tensors=False):
    """PyTorch's TypeError message for these arguments to the name's signatures, or None if
    one of them takes them (PythonArgParser::raw_parse and print_error)."""
    if len(signatures) == 1 and not signatures[0].params and (args or kwargs):
        # (a method of self alone is a C method without arguments: Python's words)
        return (f"TensorBase.{name}() takes no keyword arguments" if kwargs else
                f"TensorBase.{name}() takes no arguments ({len(args)} given)")
    if len(signatures) == 1:
        return parse(signatures[0], args, kwargs, numbers_as_tensors)
    for s in signatures:
        message = parse(s, args, kwargs, numbers_as_tensors)
        if message is None or isinstance(message, Unpacked):
            return message
    n = len(args) + len(kwargs)
    plausible = [s for s in signatures if s.min_args <= n <= s.max_args and not s.hidden]
    if len(plausible) == 1:
        message = parse(plausible[0], args, kwargs, numbers_as_tensors)
        if message is not None:
            return message
    return invalid_combination(name, args, kwargs,
                               [s.printable() for s in signatures if not s.hidden])


def method_error(entry, name, args, kwargs, error):
    """The error a failed call `tensor.name(*args, **kwargs)` of the table's entry raises:
    PyTorch's TypeError if its parser refuses the arguments, else `error`."""
    try:
        signatures = method_signatures(entry, name)
        message = signatures and refusal(signatures, name, args, kwargs,
                                         name.rstrip("_") in NUMBERS_AS_TENSORS)
    except Exception:  # (a signature this module cannot read: gradcli's own error stands)
        return error
    return TypeError(message) if message else error


# ------------------------------------------------------------------ function forms
# the forms PyTorch declares without an `out=` (printed as its method form); an op of several
# outputs takes `tuple of Tensors out`, a view none
NO_OUT = frozenset((("sum", "(*, torch.dtype dtype = None)"),
                    ("prod", "(*, torch.dtype dtype = None)"),
                    ("nansum", "(*, torch.dtype dtype = None)"),
                    ("std", "(bool unbiased = True)"), ("var", "(bool unbiased = True)")))


def function_signature(method, name, op=None):
    """A Tensor method's signature as the function's: `Tensor input` first, `out=` last."""
    printable = method.printable()
    params = [Param(TENSOR, "input")] + list(method.params)
    if not (op is not None and op.view or (name, printable) in NO_OUT):
        multiple = op is not None and op.n_outputs > 1
        params.append(Param("tuple of Tensors" if multiple else TENSOR, "out", "None", True))
    return Signature(name, params, method.hidden)


# the function forms PyTorch has beside its method forms: (text, place among the forms)
FUNCTION_FORMS = {"pow": [("Number self, Tensor exponent, *, Tensor out = None", 1)]}


def function_signatures(entry, name):
    """The signatures PyTorch's parser tries for torch.name (the entry's forms), in its
    order."""
    from .registry import Op, Overload
    ops = entry.ops if isinstance(entry, Overload) else [entry]
    methods = method_signatures(entry, name)
    by_text = {}
    for op in ops:
        if isinstance(op, Op) and "self" in op.inputs:
            signature = method_signature(op)
            if signature is not None:
                by_text.setdefault(signature.printable(), op)
    signatures = [function_signature(m, name, by_text.get(m.printable())) for m in methods]
    for text, place in FUNCTION_FORMS.get(name, ()):
        signatures.insert(place, Signature.from_text(name, text))
    return signatures


def function_error(entry, args, kwargs, error):
    """The error a failed call `torch.name(*args, **kwargs)` of the table's entry raises:
    PyTorch's TypeError if its parser refuses the arguments, else `error`."""
    name = entry.name
    try:
        signatures = function_signatures(entry, name)
        message = signatures and refusal(signatures, name, args, kwargs,
                                         name in NUMBERS_AS_TENSORS)
    except Exception:  # (a signature this module cannot read: gradcli's own error stands)
        return error
    return TypeError(message) if message else error


# ------------------------------------------------------------------ creation functions
def must_be(name, param, expected, value, position=None):
    """PyTorch's parser's words for a value of the wrong type (position: counted from 1;
    None for a keyword argument)."""
    where = "" if position is None else f" (position {position})"
    return f"{name}(): argument '{param}'{where} must be {expected}, not {_tp_name(value)}"


def _size_element(value, first):
    """Whether PyTorch takes value as a size (the first one is checked as an int, the others
    as indexes when unpacked: a bool passes there)."""
    if isinstance(value, Tensor):
        return value.numel() == 1 and not (value.dtype.is_floating_point or value.dtype.is_complex)
    if isinstance(value, (bool, np.bool_)):
        return not first
    return isinstance(value, (int, np.integer))


def size_refusal(size, name, varargs=True):
    """PyTorch's TypeError message for the sizes of a creation function (`size`: its positional
    arguments, or one sequence of them; varargs=False: a function whose size is one argument,
    full), or None if it takes them."""
    one = size[0] if len(size) == 1 else None
    sequence = isinstance(one, (list, tuple))
    if not varargs and not sequence:
        return must_be(name, "size", INTS, one, 1)
    for i, value in enumerate(one if sequence else size):
        if _size_element(value, i == 0):
            continue
        if i > 0:
            return (f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with "
                    f"error \"type must be tuple of ints,but got {_tp_name(value)}\"")
        if sequence:
            return (f"{name}(): argument 'size' (position 1) must be tuple of ints, but found "
                    f"element of type {_tp_name(value)} at pos 0")
        return must_be(name, "size", INTS, value, 1)
    return None


def keyword_size_refusal(size, name):
    """The same for `size=`: a keyword argument must be a sequence whose first element is an
    int."""
    if not isinstance(size, (list, tuple)) or size and not _size_element(size[0], True):
        return must_be(name, "size", INTS, size)
    return size_refusal((size,), name)
