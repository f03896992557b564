"""Calls and operators in programs: the callable check every call a program makes passes (also
through map, filter, sorted, min, max, iter, key= and decorators), the checked stand-ins for
constructors that could make raw memory, and the guards of operators, item access and slices
that meter what could grow past the limits."""

import builtins
import functools
import math
import operator

import numpy as np

from ..engine.graph import AccumulateGrad
from ..engine.printing import budgeted
from ..engine.tensor import index_result_size
from ..engine.torch_classes import Size, TorchClass
from . import limits
from .allowed import DENIED_IDS, ENGINE_CLASSES, OPERATORS, PROGRAM_CLASSES


def _raw_ndarray(*args, **kwargs):
    raise TypeError("numpy.ndarray() is not available in gradcli programs (make arrays with "
                    "np.array, np.zeros, np.ones, ...)")


def _dtype(spec, *args, **kwargs):
    limits.check_dtype(spec)
    return np.dtype(spec, *args, **kwargs)


def _as_pytorch_shows(make):
    """repr or str of one object as PyTorch prints it (session.shown: a method of Tensor)."""
    def call(*args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            from .session import shown
            args = (shown(args[0]),)
        return make(*args, **kwargs)
    call.__name__ = call.__qualname__ = make.__name__
    call.__doc__ = make.__doc__
    return call


# Callables that a program may name but not call as they are: the raw ndarray constructor
# (any buffer, strides and dtype), np.dtype outside the allow-list.
def safe_int(*args, **kwargs):
    """int(): a string of digits in a power-of-two base (which Python's limit on digits leaves
    alone) must not make an integer over the limit."""
    if args and isinstance(args[0], limits.TEXT):
        base = args[1] if len(args) > 1 else kwargs.get("base", 10)
        bits_per_digit = math.log2(base) if isinstance(base, int) and base >= 2 else 6
        if len(args[0]) * bits_per_digit > limits.MAX_INT_BITS + 64:
            raise limits.int_too_large()
    return int(*args, **kwargs)


def safe_bytes(*args, **kwargs):
    """bytes(); bytes(n) makes n zero bytes at once."""
    source = args[0] if args else kwargs.get("source")
    if source is not None and not isinstance(source, (str, bytes, bytearray)) and \
            hasattr(type(source), "__index__"):
        limits.check_items(operator.index(source))
    return bytes(*args, **kwargs)


def safe_partial(func, /, *args, **keywords):
    """functools.partial: the function passes the callable check when the partial is made
    (a partial calls it from C)."""
    if not callable(func):
        raise TypeError("the first argument must be callable")
    return functools.partial(checked_callable(func), *args, **keywords)


def safe_reduce(function, iterable, /, *initial):
    """functools.reduce, its function checked and what it walks metered."""
    return functools.reduce(checked_callable(function), limits.check_each(iterable), *initial)


for _safe, _real in ((safe_partial, functools.partial), (safe_reduce, functools.reduce)):
    _safe.__name__ = _safe.__qualname__ = _real.__name__
    _safe.__doc__ = _real.__doc__


REPLACED_CALLS = {id(np.ndarray): _raw_ndarray, id(np.dtype): _dtype, id(int): safe_int,
                  id(bytes): safe_bytes, id(functools.partial): safe_partial,
                  # (printing.TextBudget)
                  **{id(c): budgeted(_as_pytorch_shows(c)) for c in (repr, str)},
                  **{id(c): limits.materialising(c) for c in (list, tuple, set, frozenset, dict,
                                                             enumerate, zip, reversed, Size)}}
# The classes `type(x)` gives as stand-ins whose call is the checked one (the engine calls what
# a program hands it unchecked: a Module's forward, a hook); ndarray and dtype classes too
STAND_IN_CALLS = {bytes: safe_bytes}
CALL_CHECKED_IDS = DENIED_IDS | frozenset(REPLACED_CALLS)


def checked_callable(func):
    """func itself, if a program may call it (the compiled call `f(x)` is `_callable(f)(x)`, so
    that Python, not a wrapper, passes the arguments).  Every other way a program has to make
    Python call a function it gives (map, filter, sorted, min, max, iter, list.sort, key=,
    property, decorators) runs this check too (CALLING_BUILTINS)."""
    if type(func) is TorchClass and issubclass(func, ENGINE_CLASSES["Node"]) and \
            not issubclass(func, ENGINE_CLASSES["FunctionCtx"]):
        raise node_class_error(func)
    if id(func) in CALL_CHECKED_IDS:
        replacement = REPLACED_CALLS.get(id(func))
        if replacement is not None:
            return replacement
        raise TypeError(f"{getattr(func, '__name__', 'this function')}() is not available in "
                        f"gradcli programs")
    return func


# torch.autograd.graph.Node's abstract methods: a program's subclass cannot define them (no
# `_` names in a class body), so that PyTorch makes no instance of it (Python 3.11's wording)
NODE_ABSTRACT_METHODS = ("_input_metadata", "_register_hook_dict", "_sequence_nr", "metadata",
                         "name", "next_functions", "register_hook", "register_prehook")


def node_class_error(cls):
    """PyTorch's refusal of a program's call of a graph node's class (a node made so would have
    none of the state the backward pass reads): `torch.autograd.graph.Node` and a program's
    subclass of it are abstract, an op's node class (`type(y.grad_fn)`) is a C++ class
    without a constructor (AccumulateGrad's refuses).  (A custom Function's node class, a Python class in PyTorch too,
    makes instances.)"""
    if cls is AccumulateGrad:
        return RuntimeError("Cannot construct")
    if cls is ENGINE_CLASSES["Node"] or cls in PROGRAM_CLASSES:
        return TypeError(f"Can't instantiate abstract class {cls.__name__} with abstract "
                         f"methods {', '.join(NODE_ABSTRACT_METHODS)}")
    return TypeError(f"cannot create '{cls.__name__}' instances")


def _checked_key(kwargs):
    """key= passes the callable check, and what it gives is metered as compared values (see
    limits.Comparisons); whether there is a key."""
    key = kwargs.get("key")
    if key is None:
        return False
    key, compared, plain = checked_callable(key), limits.Comparisons(), limits.COMPARED_PLAINLY

    def compared_key(value):
        result = key(value)
        return result if type(result) in plain else compared.add(result)
    kwargs["key"] = compared_key
    return True


def _compared_items(iterable):
    """The items min() or max() compares, metered (limits.Comparisons) as they come.  (An
    array's or a tensor's items, its rows, are alike in shape: only their number is metered.)"""
    if isinstance(iterable, limits.ITERATED_TYPES):
        return limits.check_each(iterable)
    if type(iterable) in (list, tuple):
        limits.Comparisons().add_items(iterable)
        return iterable
    if isinstance(iterable, (dict, set, frozenset)):  # (hashable items: no array among them)
        return iterable
    compared, plain = limits.Comparisons(), limits.COMPARED_PLAINLY
    return (item if type(item) in plain else compared.add(item) for item in iterable)


def safe_map(function, iterable, /, *iterables):
    for i in (iterable, *iterables):
        limits.check_each(i)
    return map(checked_callable(function), iterable, *iterables)


def safe_filter(function, iterable, /):
    return filter(function if function is None else checked_callable(function),
                  limits.check_each(iterable))


def safe_sorted(iterable, /, **kwargs):
    items = list(limits.check_each(iterable))
    _list_sort(items, **kwargs)
    return items


def _extreme(function):
    """min() or max(), its key checked and what it compares metered."""
    def extreme(*args, **kwargs):
        if not _checked_key(kwargs):
            if len(args) == 1:
                args = (_compared_items(args[0]),)
            else:
                limits.Comparisons().add(*args)
        return function(*args, **kwargs)
    extreme.__name__ = extreme.__qualname__ = function.__name__
    return extreme


safe_min, safe_max = _extreme(min), _extreme(max)


def safe_iter(obj, /, *sentinel):
    """iter(); with a sentinel, a generator (Python code, which Ctrl-C and the timeout can stop:
    `list(iter(int, 1))` over Python's own callable iterator is an endless loop in C) of at
    most GRADCLI_MAX_ITEMS values, as range() has (`list(iter(f, n))` made a list of any
    length)."""
    if not sentinel:
        return iter(limits.check_each(obj))
    function, (stop,) = checked_callable(obj), sentinel

    def calls():
        for count in range(limits.MAX_ITEMS + 1):
            value = function()
            if value == stop:
                return
            limits.check_items(count + 1)
            yield value
    return calls()


def _checked_arguments(wrapped):
    """A class (property, classmethod, staticmethod) whose callable arguments are checked."""
    def make(*args, **kwargs):
        args = [a if a is None else checked_callable(a) for a in args]
        kwargs = {k: v if v is None else checked_callable(v) for k, v in kwargs.items()}
        return wrapped(*args, **kwargs)
    make.__name__ = make.__qualname__ = wrapped.__name__
    return make


def _list_sort(lst, /, **kwargs):
    if not _checked_key(kwargs):
        limits.Comparisons().add_items(lst)
    return lst.sort(**kwargs)


CALLING_BUILTINS = {"map": safe_map, "filter": safe_filter, "sorted": safe_sorted,
                    "min": safe_min, "max": safe_max, "iter": safe_iter,
                    **{n: _checked_arguments(getattr(builtins, n))
                       for n in ("property", "classmethod", "staticmethod")}}


NUMBERS = (int, float, complex, bool)
# operator -> the operand types with which it cannot build a huge value, so that the size check
# is skipped when either operand has one (for `%` the left one: `"%999999999d" % 1`); a float
# times a list is an error, and the engine limits tensors itself (Tensor is added by
# static_builtins).
UNCHECKED_OPERANDS = {"+": {*NUMBERS}, "-": {*NUMBERS}, "/": {*NUMBERS}, "//": {*NUMBERS},
                      "%": {*NUMBERS}, "*": {float, complex}, "**": {float, complex},
                      "@": set(), "&": {int, bool}, "|": {int, bool}}


def _binary(check, operation, symbol):
    unchecked = UNCHECKED_OPERANDS[symbol]
    ndarray = np.ndarray
    # (a tensor meets an ndarray: the tensor's operator declines it, and NumPy computes the
    # broadcast, a result the engine never sees: checked as NumPy's)
    if symbol == "%":  # (a template's %s and %r: one text, budgeted)
        operation = budgeted(operation)

        def guard(a, b):
            if type(a) in unchecked and type(b) is not ndarray:
                return operation(a, b)
            check(a, b)
            result = operation(a, b)
            if type(result) is np.ndarray:
                limits.check_numpy_result(result)
            return result
    else:
        def guard(a, b):
            kind_a, kind_b = type(a), type(b)
            if (kind_a in unchecked or kind_b in unchecked) and kind_a is not ndarray and \
                    kind_b is not ndarray:
                return operation(a, b)
            check(a, b)
            result = operation(a, b)
            if type(result) is np.ndarray:  # `a * [2 ** 100]`: an object array
                limits.check_numpy_result(result)
            return result
    return guard


CONTAINERS = (list, tuple, dict)


def _comparison(operation, check):
    """The guard of a comparison of two operands that are not literals: arrays broadcast to a
    result whose size is checked before NumPy makes it; two containers compare their items in
    C, which are metered first (limits.Comparisons)."""
    def guard(a, b):
        if isinstance(a, limits.NUMPY_VALUES) or isinstance(b, limits.NUMPY_VALUES):
            check(a, b)
            return limits.check_numpy_result(operation(a, b))
        if type(a) in CONTAINERS and type(b) in CONTAINERS and a is not b:
            compared = limits.Comparisons()  # (a container and itself: each item is itself)
            compared.add_items(a)
            compared.add_items(b)
        return operation(a, b)
    return guard


def _contains(item, container):
    """`item in container`: a list's or tuple's items, and item, metered first; an iterable with
    no `__contains__` of its own (a generator, map, dict.values()) searched here as Python
    searches it (`value is item or value == item`), each value metered before it is compared."""
    if isinstance(container, limits.NUMPY_VALUES):
        limits.check_arrays(container, item)
        return limits.check_numpy_result(item in container)
    kind = type(container)
    if type(item) in limits.COMPARED_PLAINLY:  # (a number or a string broadcasts nothing)
        pass
    elif kind in (list, tuple):
        compared = limits.Comparisons()
        compared.add(item)
        compared.add_items(container)
    elif not hasattr(kind, "__contains__"):
        compared = limits.Comparisons()
        compared.add(item)
        for value in container:
            compared.add(value)
            if value is item or value == item:
                return True
        return False
    return item in container


# `_compare["<"](a, b)`: the comparison guards (`in` compares the item with each element)
COMPARE_GUARDS = {
    **{symbol: _comparison(operation, limits.check_arrays) for symbol, operation in (
        ("==", operator.eq), ("!=", operator.ne), ("<", operator.lt), ("<=", operator.le),
        (">", operator.gt), (">=", operator.ge))},
    "in": _contains, "not in": lambda item, container: not _contains(item, container)}


def _guarded_comparison(symbol):
    guard = COMPARE_GUARDS[symbol]
    return lambda self, other: guard(self.value, other.value)


class Compared:
    """`_compared(x)`: an operand of a chained comparison (`a < b <= c`), each of whose
    comparisons is its guard's (COMPARE_GUARDS): Python still evaluates each operand once, and
    the next comparison only when the one before held.  `_compared(x, True)` is the left
    operand of an `is` or `is not`, which the chain writes `==` and `!=` (a stand-in has no
    identity of its own): those compare the values' identities."""

    __slots__ = ("value", "identity")

    def __init__(self, value, identity=False):
        self.value = value
        self.identity = identity

    __lt__, __le__, __gt__, __ge__ = map(_guarded_comparison, ("<", "<=", ">", ">="))

    def __eq__(self, other):
        if self.identity:
            return self.value is other.value
        return COMPARE_GUARDS["=="](self.value, other.value)

    def __ne__(self, other):
        if self.identity:
            return self.value is not other.value
        return COMPARE_GUARDS["!="](self.value, other.value)

    def __contains__(self, item):
        return COMPARE_GUARDS["in"](item.value, self.value)

    __hash__ = None


def inplace_item(obj, key, guard, value):
    """`obj[key] op= value`."""
    obj[key] = guard(obj[key], value)


def slice_target(obj):
    """The object of `obj[a:b] = value`: a list or bytearray, which a slice assignment can
    grow (`x[:0] = x` doubles it), through a view that meters the result; anything else as
    it is (an array's or a tensor's slice keeps its size)."""
    return MeteredSlices(obj) if type(obj) in (list, bytearray) else obj


class MeteredSlices:
    __slots__ = ("_target",)

    def __init__(self, target):
        self._target = target

    def __setitem__(self, key, value):
        if not hasattr(value, "__len__"):
            value = list(value)
        limits.check_items(len(self._target) + len(value))
        self._target[key] = value


class IndexKey:
    """`_key[index]`: the index as Python makes it for a subscript (slices included)."""

    __slots__ = ()

    def __getitem__(self, key):
        return key


def _is_basic_index(k):
    return k is None or k is Ellipsis or type(k) in (int, slice, bool)


def item(obj, key):
    """`obj[key]` for a key that is not a literal: NumPy's advanced indexing makes a result as
    large as its index arrays broadcast, which is checked against the element limit before
    NumPy makes it."""
    if type(obj) is np.ndarray and not (_is_basic_index(key) or type(key) is tuple and
                                        all(_is_basic_index(k) for k in key)):
        size = index_result_size(obj.shape, key)
        if size is not None:
            limits.check_array_size(size)
        return limits.check_numpy_result(obj[key])
    return obj[key]


def inplace_guard_name(guard):
    """`_op_add` -> `_iop_add`: the guard of `+=`."""
    return "_i" + guard[1:]


BINARY_GUARDS = {op: _binary(check, operation, op)
                 for op, (_, operation, _, check) in OPERATORS.items()}
INPLACE_GUARDS = {op: _binary(check, operation, op)
                  for op, (_, _, operation, check) in OPERATORS.items()}


def safe_range(*args):
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = limits.MAX_ITEMS + 1
    limits.check_items(n)
    return r


def safe_sum(iterable, /, start=0):
    """sum(), refusing to concatenate sequences past the item limit (`sum(lists, [])`)."""
    if not isinstance(start, limits.SEQUENCES):
        return sum(limits.check_each(iterable), start)
    items = list(limits.check_each(iterable))
    limits.check_items(len(start) + sum(len(i) for i in items if isinstance(i, limits.SEQUENCES)))
    return sum(items, start)


def safe_pow(base, exp, mod=None):
    if mod is not None:
        limits.check_modular_pow(exp, mod)
        return pow(base, exp, mod)
    limits.check_pow(base, exp)
    return pow(base, exp)


def safe_round(number, ndigits=None):
    """round(); an integer rounded to -n digits computes 10 ** n."""
    if type(ndigits) is int and ndigits < 0 and isinstance(number, int):
        limits.check_pow(10, -ndigits)
    return round(number, ndigits)
