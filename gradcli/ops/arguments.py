"""Binding a call's arguments to an op's declaration, in PyTorch's argument parser's words: the
errors for missing, surplus and mistyped arguments (and those of a Tensor method), the choice
among an overload's forms, and what a tensor given for a number attribute may be."""

import re

from ..engine import messages

_MISSING = object()  # (an attribute without a default; an argument not given)


# attributes whose default is None and whose value may be a tensor of any shape
TENSOR_ATTRS = frozenset(("weight", "pos_weight", "atol", "rtol", "min", "max"))


def _check_number_attr(op, i, value):
    """A tensor (or array) given for an attribute that is a number (its default is one, or
    None): PyTorch takes a 0-d tensor for a number, and a one-element tensor for an int, and
    refuses any other.  (The op's NumPy forward would broadcast it against the input, to a
    result as large as the two shapes make: `elu(x, alpha=torch.ones(n))`.)"""
    default, name = op.attr_defaults[i], op.attr_names[i]
    if type(default) is int:
        taken = value.size == 1
    elif type(default) is float or default is None and name not in TENSOR_ATTRS:
        taken = value.ndim == 0
    else:
        return
    if not taken:
        raise TypeError(f"{op.name}(): argument '{name}' (position {len(op.inputs) + i + 1}) "
                        f"must be Number, not {messages.type_name(value)}")


# the NumPy names PyTorch's argument parser takes for its own (numpy_compatibility_arg_names in
# torch/csrc/utils/python_arg_parser.cpp): `x.sum(axis=1, keepdims=True)`, `torch.add(x1=a, x2=b)`
NUMPY_ATTRIBUTES = {"axis": "dim", "keepdims": "keepdim"}
NUMPY_INPUTS = {"self": ("x", "a", "x1"), "other": ("x2",)}


def numpy_named_attr(op, key, kwargs):
    """The index of the attribute a keyword that is not one of op's names stands for (`axis`:
    dim), or PyTorch's TypeError for an unexpected keyword (the error path of Op.bind)."""
    name = NUMPY_ATTRIBUTES.get(key)
    if name in op.attr_names and name not in kwargs:
        return op.attr_names.index(name)
    # (under the op's public name: an overload's, `mean.dim`, is no name PyTorch shows)
    raise TypeError(f"{op.name.split('.')[0]}() got an unexpected keyword argument '{key}'")


def numpy_named_retry(call, error, args, kwargs):
    """call(*args, **kwargs) again with NumPy's keywords renamed to PyTorch's, when there are
    any and the call refused them (the error path of Overload.__call__); else raise error, or,
    for a call without NumPy's keywords, PyTorch's parser's TypeError for the arguments where
    it refuses them (gradcli.ops.arg_errors.function_error: `torch.sum(x, 'a')`).  A refusal
    of the renamed call that names a renamed keyword gives way to the first refusal (a keyword
    the program did not write)."""
    numpy_keys = [k for k in kwargs if k in NUMPY_ATTRIBUTES]
    renamed = {NUMPY_ATTRIBUTES.get(k, k): v for k, v in kwargs.items()}
    if numpy_keys and len(renamed) == len(kwargs):
        try:
            return call(*args, **renamed)
        except TypeError as retried:
            text = str(retried)
            if not any(f"'{NUMPY_ATTRIBUTES[k]}'" in text or f"{NUMPY_ATTRIBUTES[k]}=" in text
                       for k in numpy_keys):
                raise
    if numpy_keys:
        raise error
    from .arg_errors import function_error
    raised = function_error(call, args, kwargs, error)
    if raised is error:
        raise error
    raise raised from None


def numpy_named_input(name, kwargs):
    """An input not given by its name, given by one of NumPy's (`x1`, `x2`), else _MISSING."""
    for key in NUMPY_INPUTS.get(name, ()):
        if key in kwargs:
            return kwargs.pop(key)
    return _MISSING


def missing_arguments(name, missing):
    """PyTorch's TypeError for required arguments not given, in its parser's words (its "1
    required positional arguments" and "2 required positional argument" too)."""
    quoted = ", ".join(f'"{m}"' for m in missing)
    name = name.split(".")[0]   # (an overload's form, `pow.Tensor_Scalar`, by its public name)
    return TypeError(f"{name}() missing {len(missing)} required positional argument"
                     f"{'s' if len(missing) == 1 else ''}: {quoted}")


def method_words(text, name=None):
    """An op's argument-count TypeError said of its Tensor method: counts without self, as
    PyTorch's parser counts a method's arguments, and under the method's name if given
    (`uniform_`, not the op's `uniform`)."""
    if name:
        text = re.sub(r"^[\w.]+\(\) (takes|missing|got)", lambda m: f"{name}() {m.group(1)}", text)

    def without_self(m):
        low, high, given = (int(g) - 1 if g else None for g in m.group(2, 3, 4))
        if high == 0:  # (a method of self alone: Python's words for PyTorch's C method)
            return f"TensorBase.{m.group(1)}() takes no arguments ({given} given)"
        if low is not None and low != high:
            return f"{m.group(1)}() takes from {low} to {high} positional arguments but {given} " \
                   f"were given"
        return (f"{m.group(1)}() takes {high} positional argument{'' if high == 1 else 's'} "
                f"but {given} {'was' if given == 1 else 'were'} given")
    return re.sub(r"^([\w.]+)\(\) takes (?:from (\d+) to )?(\d+) positional arguments? but "
                  r"(\d+) (?:was|were) given$", without_self, text)


def chosen_form(ops, args, kwargs, invalid, method=True):
    """The op of an overload's forms that takes these arguments (the first, as PyTorch's parser
    tries them); none: as PyTorch's print_error, the one form whose argument counts admit them
    (its binding then raises its own TypeError: `x.random_(0, 5, g)` "takes 2 positional
    arguments but 3 were given"), else `invalid`, the "invalid combination" TypeError."""
    for op in ops:
        if op.takes(args, kwargs, method):
            return op
    n = len(args) + len(kwargs)
    counts = [(sum(d is _MISSING for d in op.attr_defaults), len(op.attr_names),
               op.n_inputs - (method and "self" in op.inputs)) for op in ops]
    plausible = [op for op, (required, every, inputs) in zip(ops, counts)
                 if inputs + required <= n <= inputs + every]
    if len(plausible) == 1:
        return plausible[0]
    raise invalid


def _bad_argument(op, x, position):
    """PyTorch's argument parser's words for x, no tensor, as op's input `position` (counted
    from 0; the element's index in a list of tensors): its first argument is `input`."""
    if op.variadic:
        return messages.NOT_TENSOR_ELEMENT.format(index=position, argument=0,
                                                  type=messages.type_name(x))
    name = (op.inputs + ("other",))[min(position, len(op.inputs))].lstrip("*")
    return (f"{op.name}(): argument '{'input' if position == 0 else name}' "
            f"(position {position + 1}) must be Tensor, not {messages.type_name(x)}")
