"""The guards compiled programs call, and the restricted builtins they run with.

A program reaches Python objects only through these guards (their names start with `_`, which
no program can write): attribute reads go through `guarded_getattr`, attribute stores through
`store_target`, calls through `checked_callable`, operators through the checked operator table,
imports through `import_module`/`import_from`, class statements through `build_class`.  So a
program can touch the engine, NumPy arrays (a safe subset of their attributes) and plain Python
values, and nothing else: no dunder attribute, no frame, no module other than the facades."""

import builtins
import functools
import inspect
import math
import operator
import re
import sys
import types
import weakref

import numpy as np

from ..engine import callables
from ..engine.tensor import Size, index_result_size
from . import limits
from .metered_methods import (CLASS_METHODS, METERED_METHODS, METERED_TYPES, STRING_METHODS,
                              format_field, safe_format)
from .namespace import Facade, LazyFacade, StandIn, bare_names, modules, stand_in

PROGRAM_CLASSES = weakref.WeakSet()      # classes created by programs (may be subclassed)
UNSAFE_TYPES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType,
                types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
DENIED_BUILTINS = ("eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "vars",
                   "globals", "locals", "__import__", "__build_class__", "input", "breakpoint",
                   "help", "exit", "quit", "memoryview", "type", "super", "object", "dir")
DENIED_IDS = frozenset(id(getattr(builtins, n)) for n in DENIED_BUILTINS if hasattr(builtins, n))
# What a program may read of NumPy arrays, scalars and dtypes: data, and methods, which are
# handed out wrapped (numpy_method) so that their dtype arguments and results stay on the
# allow-list of limits.ALLOWED_DTYPE_KINDS (`a.cumsum(dtype=object)`).
NUMPY_DATA = frozenset(("shape", "dtype", "ndim", "size", "T", "real", "imag", "itemsize",
                        "nbytes", "name", "kind"))
NUMPY_METHODS = frozenset((
    "tolist", "item", "sum", "mean", "std", "var", "prod", "min", "max", "argmin", "argmax",
    "cumsum", "cumprod", "all", "any", "astype", "reshape", "flatten", "ravel", "copy",
    "transpose", "squeeze", "round", "clip", "dot", "trace", "diagonal", "nonzero", "sort",
    "argsort", "conj", "fill"))
NUMPY_ATTRIBUTES = NUMPY_DATA | NUMPY_METHODS
SAFE_BUILTINS = ("abs", "all", "any", "bin", "bool", "callable", "chr", "classmethod",
                 "complex", "dict", "divmod", "enumerate", "filter", "float", "frozenset",
                 "hash", "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map",
                 "max", "min", "next", "oct", "ord", "property", "repr", "reversed", "round",
                 "set", "slice", "sorted", "staticmethod", "str", "sum", "tuple", "zip")
# The exception classes a program may name, catch, raise and derive from (BaseException,
# KeyboardInterrupt, SystemExit and GeneratorExit are not among them: see catchable)
EXCEPTIONS = ("Exception", "ArithmeticError", "AssertionError", "AttributeError",
              "FloatingPointError", "ImportError", "IndexError", "KeyError", "LookupError",
              "MemoryError", "ModuleNotFoundError", "NameError", "NotImplementedError",
              "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
              "UnboundLocalError", "ValueError", "ZeroDivisionError", "Warning", "UserWarning",
              "DeprecationWarning", "FutureWarning", "RuntimeWarning")
EXCEPTION_CLASSES = frozenset(getattr(builtins, n) for n in EXCEPTIONS)

# operator symbol -> (guard name, operation, in-place operation, size check)
OPERATORS = {
    "+": ("_op_add", operator.add, operator.iadd, limits.check_add),
    "-": ("_op_sub", operator.sub, operator.isub, limits.check_arrays),
    "*": ("_op_mul", operator.mul, operator.imul, limits.check_mul),
    "/": ("_op_truediv", operator.truediv, operator.itruediv, limits.check_arrays),
    "//": ("_op_floordiv", operator.floordiv, operator.ifloordiv, limits.check_arrays),
    "%": ("_op_mod", operator.mod, operator.imod, limits.check_mod),
    "**": ("_op_pow", operator.pow, operator.ipow, limits.check_pow),
    "@": ("_op_matmul", operator.matmul, operator.imatmul, limits.check_matmul),
    "&": ("_op_and", operator.and_, operator.iand, limits.check_arrays),
    "|": ("_op_or", operator.or_, operator.ior, limits.check_arrays),
}


def _not_available(obj, name):
    kind = "module" if isinstance(obj, Facade) else f"'{type(obj).__name__}' object"
    return AttributeError(f"{kind} attribute '{name}' is not available in gradcli programs")


def _is_numpy(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    # (not always a string: Cython 3.1's function type, NumPy 2.2's on Python 3.10, has a
    # member descriptor there)
    return isinstance(module, str) and module.partition(".")[0] == "numpy"


# ---------------------------------------------------------------------- attributes

CACHE_SIZE = 4096                 # bound on each of the two caches below
ORDINARY_ATTRIBUTES = set()       # (type, name): instances whose attribute `name` is plain getattr
SAFE_VALUE_TYPES = set()          # types whose every instance is a safe attribute value
DENIED_TYPES = frozenset(type(getattr(builtins, n)) for n in DENIED_BUILTINS
                         if hasattr(builtins, n))   # builtin functions, type, site's helpers


def guarded_getattr(obj, name):
    """obj.name for a program.  The checks that depend only on the receiver's type and the name,
    and on the value's type, are made once and remembered: the usual access costs a set
    lookup or two."""
    cls = type(obj)
    if cls is Facade or cls is LazyFacade:
        try:
            return obj._members[name]
        except KeyError:
            _check_name(name)
            raise AttributeError(f"module '{obj._name}' has no attribute '{name}'") from None
    if (cls, name) in ORDINARY_ATTRIBUTES:
        value = getattr(obj, name)
        if type(value) in SAFE_VALUE_TYPES:
            return value
        return _checked_value(obj, name, value)
    return _unusual_getattr(obj, name)


def _check_name(name, obj=None):
    """Names reach here statically checked by the compiler, or from str.format fields."""
    if name.startswith("_") and not (obj is not None and _readable_underscore(obj, name)):
        raise AttributeError(f"attributes starting with '_' are not allowed: '{name}'")


def _readable_underscore(obj, name):
    """The attributes starting with `_` that a program may read: what an op's node saved, a
    tensor's version counter, any class's or function's `__name__`, and `super().__init__`."""
    if SAVED_VALUE.fullmatch(name):
        return isinstance(obj, ENGINE_CLASSES["OpNode"])
    if name == "_version":
        return isinstance(obj, ENGINE_CLASSES["Tensor"])
    if name == "__name__":
        return isinstance(obj, (type, HiddenClass)) or _is_function(obj)
    return name == "__init__" and type(obj) is super


def _unusual_getattr(obj, name):
    if type(obj) is StandIn:  # (its attributes are its class's, read as for that class)
        obj = obj._real
    _check_name(name, obj)
    if name == "__name__" and isinstance(obj, type):  # (a string: NumPy's classes' too)
        return obj.__name__
    if name == "mro":  # (a class's bases end in object, which programs do not reach)
        raise _not_available(obj, name)
    if SAVED_VALUE.fullmatch(name):  # a saved value of an op's node: only what it shows as one
        return _checked_value(obj, name, obj.saved_attribute(name))
    if isinstance(obj, BaseException):
        _check_exception_attribute(obj, name)
    elif type(obj) is super and isinstance(obj.__self__, BaseException) and \
            name != "__init__":  # (super().__init__(message) is how a program's class starts)
        _check_exception_attribute(obj.__self__, name)  # (super(E, e).with_traceback)
    if (isinstance(obj, limits.TEXT) or isinstance(obj, type) and obj in limits.TEXT) and \
            name in STRING_METHODS and hasattr(obj, name):
        method = STRING_METHODS[name]
        return method if isinstance(obj, type) else functools.partial(method, obj)
    if name in ("getter", "setter", "deleter") and isinstance(obj, property):
        return _checked_arguments(getattr(obj, name))
    if name in ("fget", "fset", "fdel") and isinstance(obj, property):
        # (the engine's: its functions take any object as `self`, see unbound_method;
        # PyTorch's properties are C descriptors, which have none of these)
        value = getattr(obj, name)
        if value is None or _is_program_function(value):
            return value
        raise _not_available(obj, name)
    if name == "sort" and (isinstance(obj, list) or obj is list):
        return _list_sort if obj is list else functools.partial(_list_sort, obj)
    cls = obj if isinstance(obj, type) else type(obj)
    if issubclass(cls, METERED_TYPES):
        method = METERED_METHODS.get((next(t for t in METERED_TYPES if issubclass(cls, t)),
                                      name))
        if method is not None:
            if name in CLASS_METHODS:
                return functools.partial(method, cls)
            return method if isinstance(obj, type) else functools.partial(method, obj)
    if isinstance(obj, UNSAFE_TYPES) or (_is_numpy(obj) and name not in NUMPY_ATTRIBUTES) or \
            _internal(obj, name):
        raise _not_available(obj, name)
    if name == "tolist" and _is_tensor_or_class(obj):  # (never remembered as ordinary)
        value = getattr(obj, name)
        if isinstance(obj, type) and type(value) is types.FunctionType:
            return _metered_tolist(unbound_method(obj, name, value), None)
        return _metered_tolist(value, obj if not isinstance(obj, type) else None)
    if name in NUMPY_METHODS and _is_numpy(obj):
        return numpy_method(getattr(obj, name))
    value = _checked_value(obj, name, getattr(obj, name))
    if isinstance(obj, type) and type(value) is types.FunctionType:
        value = unbound_method(obj, name, value)
    elif isinstance(obj, type) and type(value) is property:
        value = unbound_property(obj, name, value)
    # The decision holds for the receiver's type, except for classes (their own attributes)
    # and functions (the program's own may show what they were given, no other may).
    if not isinstance(obj, type) and not _is_function(obj):
        _remember(ORDINARY_ATTRIBUTES, (type(obj), name))
    return value


def _is_tensor_or_class(obj):
    tensor = ENGINE_CLASSES.get("Tensor")
    return tensor is not None and (isinstance(obj, tensor) or
                                   isinstance(obj, type) and issubclass(obj, tensor))


UNBOUND_METHODS = {}  # (engine class, name) -> the checked function unbound_method gives


def _engine_definer(cls, name):
    """The engine class along cls's MRO that defines `name` itself, or None (a program's class,
    or no engine class, defines it)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            break
    else:
        return None
    if klass in PROGRAM_CLASSES or not _engine_module(klass.__module__):
        return None
    return klass


def _descriptor_owner(klass):
    """The class a descriptor's error names (Tensor's methods are TensorBase's in PyTorch)."""
    return "torch._C.TensorBase" if klass is ENGINE_CLASSES.get("Tensor") else klass.__name__


def _foreign_self(name, klass, obj):
    """PyTorch's error for an engine descriptor given another class's object as `self`."""
    return TypeError(f"descriptor '{name}' for '{_descriptor_owner(klass)}' objects doesn't "
                     f"apply to a '{type(obj).__name__}' object")


def unbound_method(cls, name, value):
    """`Class.name`, a plain function: if an engine class defines it as a method, a function
    that calls it only with an instance of that class as `self`.  (A Python method takes any
    object as `self`, and a program's class body can give its objects attributes starting
    with `_`: `torch.Tensor.detach(obj)` would be a tensor whose memory is what obj shows.
    PyTorch's methods are C descriptors that refuse another class's object so.)"""
    klass = _engine_definer(cls, name)
    if klass is None or not isinstance(vars(klass)[name], types.FunctionType):
        return value  # (a program's own function, a staticmethod, a class's function)
    checked = UNBOUND_METHODS.get((klass, name))
    if checked is not None and checked.__wrapped__ is value:
        return checked

    def method(*args, **kwargs):
        if not args:
            raise TypeError(f"descriptor '{name}' of '{_descriptor_owner(klass)}' object "
                            f"needs an argument")
        if not isinstance(args[0], klass):
            raise _foreign_self(name, klass, args[0])
        return value(*args, **kwargs)
    method.__name__, method.__qualname__, method.__doc__ = name, value.__qualname__, \
        value.__doc__
    method.__wrapped__ = value
    if len(UNBOUND_METHODS) >= CACHE_SIZE:
        UNBOUND_METHODS.clear()
    UNBOUND_METHODS[klass, name] = method
    return method


class EngineProperty(property):
    """An engine class's property as a program gets it (`torch.Tensor.shape`): its getter,
    setter and deleter take an instance of that class only, as PyTorch's C descriptors do.
    (A program that puts the property in a class of its own would otherwise run the engine's
    code on its object, which reads and writes the engine's `_` attributes there.)  (No
    __slots__: a property's subclass keeps its docstring in its __dict__.)"""


EngineProperty.__name__ = EngineProperty.__qualname__ = "property"  # (as type() shows it)
UNBOUND_PROPERTIES = {}  # (engine class, name) -> (the property, the EngineProperty given)


def unbound_property(cls, name, value):
    """`Class.name`, a property: if an engine class defines it, an EngineProperty."""
    klass = _engine_definer(cls, name)
    if klass is None or vars(klass)[name] is not value:
        return value
    cached = UNBOUND_PROPERTIES.get((klass, name))
    if cached is not None and cached[0] is value:
        return cached[1]

    def checked(function):
        if function is None:
            return None

        def accessor(self, *args):
            if not isinstance(self, klass):
                raise _foreign_self(name, klass, self)
            return function(self, *args)
        accessor.__name__ = accessor.__qualname__ = name
        return accessor
    checked_property = EngineProperty(checked(value.fget), checked(value.fset),
                                      checked(value.fdel), value.__doc__)
    if len(UNBOUND_PROPERTIES) >= CACHE_SIZE:
        UNBOUND_PROPERTIES.clear()
    UNBOUND_PROPERTIES[klass, name] = (value, checked_property)
    return checked_property


def _check_exception_attribute(exc, name):
    """An exception shows a program its `args` and what the program's own exception classes
    set; not what Python's classes keep (AttributeError.obj, with_traceback, add_note)."""
    if name == "args":
        return
    builtin = next(c for c in type(exc).__mro__ if c not in PROGRAM_CLASSES)
    if type(exc) not in PROGRAM_CLASSES or hasattr(builtin, name) or \
            hasattr(BaseException, name):  # (a class mixing an exception with a Module)
        raise _not_available(exc, name)


# The op table's entries (torch.exp, torch.nn.functional.gelu, the bare `exp`): PyTorch's
# functions have no public attribute, and theirs (the raw NumPy forward, the node class, the
# samples) would let a program step around the size limits.  Filled by static_builtins.
OPAQUE_TYPES = set()
# What PyTorch's autograd graph nodes show (a custom Function's node is its ctx: all of it).
NODE_ATTRIBUTES = frozenset(("name", "next_functions", "metadata", "register_hook",
                             "register_prehook", "variable"))
ENGINE_CLASSES = {}       # "Node", "FunctionCtx", "OpNode": filled by static_builtins
# The one kind of name starting with `_` a program may read: what an op's node saved for its
# derivative (`y.grad_fn._saved_self`, `_saved_result`, `_saved_dim`; `_raw_saved_self` for its
# hooks), as PyTorch's nodes show it.  Only on those nodes (OpNode), and only to read.
SAVED_VALUE = re.compile(r"(_raw)?_saved_[a-z][a-z0-9]*(_[a-z0-9]+)*")
# The attribute names starting with `_` that the compiler lets a program read (the sandbox then
# checks the receiver: _readable_underscore)
READABLE_ATTRIBUTE = re.compile(SAVED_VALUE.pattern + "|_version|__version__|__name__|__init__")


# Functions, methods and their kin: a program may read attributes of its own functions (those
# it set), of nothing else: Cython functions show their module's globals (`func_globals`, and
# through them its loader, which reads files), partials their function, and so on.
FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                  types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
                  types.ClassMethodDescriptorType, types.GetSetDescriptorType,
                  types.MemberDescriptorType, functools.partial)


def _is_function(obj):
    return isinstance(obj, FUNCTION_TYPES) or type(obj).__name__.startswith("cython_function")


def _is_program_function(obj):
    """A function a program defined (it runs with the guards as builtins)."""
    return (isinstance(obj, types.FunctionType) and
            obj.__globals__.get("__builtins__", {}).get("_getattr") is guarded_getattr)


def _internal(obj, name):
    """Is obj.name the engine's (or Python's) business rather than the program's?  (An
    attribute that is not there at all gets Python's own AttributeError, as PyTorch's objects
    give it.)"""
    if name == "__name__":
        return False
    if type(obj) in OPAQUE_TYPES or _is_function(obj) and not _is_program_function(obj):
        internal = True
    elif isinstance(obj, type) and obj not in PROGRAM_CLASSES and \
            issubclass(obj, ENGINE_CLASSES["Node"]):   # type(y.grad_fn): as its instances
        internal = name not in NODE_ATTRIBUTES
    else:
        internal = (isinstance(obj, ENGINE_CLASSES["Node"]) and name not in NODE_ATTRIBUTES and
                    not isinstance(obj, ENGINE_CLASSES["FunctionCtx"]) and
                    type(obj) not in PROGRAM_CLASSES)
    if internal and name not in getattr(type(obj), "LAZY_ATTRIBUTES", ()):
        # (an attribute its class makes on first use counts as there: the answer must not
        # depend on whether the program, or anything before it, used the object)
        try:
            inspect.getattr_static(obj, name)
        except AttributeError:
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute "
                                 f"'{name}'") from None
    return internal


def _op_table_types(members):
    """The types of the callables of a torch facade's members that are neither classes nor
    functions (its facades' too; a LazyFacade's once it loads: _note_op_table_types)."""
    plain = (type, types.FunctionType, types.BuiltinFunctionType)
    found = set()
    pending = [members]
    while pending:
        for value in pending.pop().values():
            if isinstance(value, LazyFacade):
                if value._loaded is not None:  # (else _note_op_table_types, when it loads)
                    pending.append(value._loaded)
                continue
            if isinstance(value, Facade):
                pending.append(value._members)
            elif callable(value) and not isinstance(value, plain):
                found.add(type(value))
    return found


def _note_op_table_types(facade, members):
    """(LazyFacade.ON_LOAD) A torch facade that loads: its callables' types are opaque from
    then on, before a program sees one of them."""
    if facade._name.split(".")[0] == "torch":
        OPAQUE_TYPES.update(_op_table_types(members))


LazyFacade.ON_LOAD.append(_note_op_table_types)


def _checked_value(obj, name, value):
    if isinstance(value, UNSAFE_TYPES) or id(value) in DENIED_IDS:
        raise _not_available(obj, name)
    if type(value) not in DENIED_TYPES and not isinstance(value, type):
        _remember(SAFE_VALUE_TYPES, type(value))
    return value


def _remember(cache, key):
    if len(cache) >= CACHE_SIZE:   # programs that make classes in a loop
        cache.clear()
    cache.add(key)


def numpy_method(method):
    """A NumPy method, its dtype arguments and its result checked against the allow-list; the
    size of the result of those that make one larger than their array (dot, whose k = 1 is an
    outer product; clip, whose bounds broadcast) checked before it is made."""
    size = NUMPY_METHOD_SIZES.get(getattr(method, "__name__", None))
    owner = getattr(method, "__self__", None)
    owner = owner if isinstance(owner, (np.ndarray, np.generic)) else None

    def call(*args, **kwargs):
        limits.check_dtypes(args, (kwargs["dtype"],) if "dtype" in kwargs else ())
        if size is not None:  # (read from the class, `np.ndarray.dot(a, b)`: a is the owner;
            # anything else there, NumPy refuses itself)
            if owner is not None:
                size(owner, *args, **kwargs)
            elif args and isinstance(args[0], (np.ndarray, np.generic)):
                size(*args, **kwargs)
        return limits.check_numpy_result(method(*args, **kwargs))
    return call


def _product_of(owner, other=None, *args, **kwargs):
    from .namespace import _product_size
    limits.check_array_size(_product_size(owner, other))


def _items_of(owner, *args, **kwargs):
    """`tolist()`: one Python object an element, metered as every other list is."""
    limits.check_items(owner.size)


NUMPY_METHOD_SIZES = {"dot": _product_of, "clip": limits.check_broadcast, "tolist": _items_of}


def _metered_tolist(method, owner):
    """A tensor's tolist (bound to owner, or torch.Tensor.tolist when owner is None): a list
    of one Python number an element, metered as NumPy's tolist is (_items_of)."""
    tensor = ENGINE_CLASSES["Tensor"]

    def tolist(*args, **kwargs):
        target = owner if owner is not None else args[0] if args else None
        if isinstance(target, tensor):
            limits.check_items(target.numel())
        return method(*args, **kwargs)
    tolist.__name__ = tolist.__qualname__ = "tolist"
    tolist.__doc__ = method.__doc__
    return tolist


SETTABLE_BASES = ()       # Tensor and FunctionCtx (their subclasses too): static_builtins
# A tensor's attributes that PyTorch does not let a program set (AttributeError: attribute
# 'grad_fn' of 'torch._C.TensorBase' objects is not writable), and the engine's own state that
# has a public name here (requires_grad_flag); static_builtins adds every read-only property
# and slot of the Tensor class.
TENSOR_READ_ONLY = {"T", "mT", "H", "mH", "device", "dtype", "grad_fn", "is_cuda", "is_leaf",
                    "itemsize", "layout", "nbytes", "ndim", "output_nr", "retains_grad",
                    "shape", "requires_grad_flag", "is_sparse", "is_quantized", "is_meta"}


def _read_only_tensor_attributes(tensor_class):
    found = set(TENSOR_READ_ONLY)
    # each public name of the class with what inspect.getattr_static(tensor_class, name) finds
    # for it: the first class of the MRO that has it (asking getattr_static for each of the
    # ~500 names took every evaluator's first session some 3 ms)
    static = {}
    for klass in tensor_class.__mro__:
        for name, attribute in vars(klass).items():
            static.setdefault(name, attribute)
    for name, attribute in static.items():
        if name[0] != "_" and (isinstance(attribute, types.MemberDescriptorType) or
                               isinstance(attribute, property) and attribute.fset is None):
            found.add(name)
    found -= {"data", "grad", "requires_grad", "name"}
    return frozenset(found)


def _may_set_attributes(obj):
    from ..autograd.function import FunctionCtx
    from ..engine.tensor import Tensor
    # (torch.nn loads at its first use: before that, nothing is a Module)
    nn_module = sys.modules.get("gradcli.nn.module")
    if isinstance(obj, (Tensor, FunctionCtx)) or type(obj) in PROGRAM_CLASSES or \
            nn_module is not None and isinstance(obj, nn_module.Module):
        return True
    if isinstance(obj, type):
        return obj in PROGRAM_CLASSES
    return _is_program_function(obj)


def _check_engine_attribute(obj, name):
    """A tensor's or a custom Function's ctx's attribute that an engine class defines (a
    method, ctx's `next_functions` and `num_outputs`) is the engine's: it calls `t.numel()`
    and reads ctx's edges in the backward pass, and an instance's own attribute would answer
    for them.  Only the engine's setters (a tensor's data, grad and requires_grad) take a
    program's value; the program's own names (`ctx.k`, `ctx.to_save`, a subclass's methods)
    are its own."""
    klass = _engine_definer(type(obj), name)
    if klass is None:
        return
    attribute = vars(klass)[name]
    if isinstance(obj, ENGINE_CLASSES["Tensor"]):
        if isinstance(attribute, property) and attribute.fset is not None:
            return
        owner = "torch._C.TensorBase"
    else:
        owner = "torch._C._FunctionBase"
    raise AttributeError(f"attribute '{name}' of '{owner}' objects is not writable")


def store_target(obj, name):
    """obj itself, if a program may set (or delete) its attribute `name`: a tensor (but not
    what PyTorch keeps read-only), a function context, an object, class or function of the
    program."""
    if name in TENSOR_READ_ONLY and isinstance(obj, ENGINE_CLASSES["Tensor"]):
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not "
                             f"writable")
    if isinstance(obj, SETTABLE_BASES):
        _check_engine_attribute(obj, name)
        return obj
    if _may_set_attributes(obj):
        if isinstance(obj, type):
            _check_class_attribute(obj, name)
        return obj
    kind = "module" if isinstance(obj, Facade) else f"'{type(obj).__name__}' object"
    raise AttributeError(f"cannot set attribute '{name}' of {kind} in gradcli programs")


# ---------------------------------------------------------------------- calls and operators

def _raw_ndarray(*args, **kwargs):
    raise TypeError("numpy.ndarray() is not available in gradcli programs (make arrays with "
                    "np.array, np.zeros, np.ones, ...)")


def _dtype(spec, *args, **kwargs):
    limits.check_dtype(spec)
    return np.dtype(spec, *args, **kwargs)


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


REPLACED_CALLS = {id(np.ndarray): _raw_ndarray, id(np.dtype): _dtype, id(int): safe_int,
                  id(bytes): safe_bytes,
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
    if id(func) in CALL_CHECKED_IDS:
        replacement = REPLACED_CALLS.get(id(func))
        if replacement is not None:
            return replacement
        raise TypeError(f"{getattr(func, '__name__', 'this function')}() is not available in "
                        f"gradcli programs")
    return func


def _checked_key(kwargs):
    key = kwargs.get("key")
    if key is not None:
        kwargs["key"] = checked_callable(key)


def safe_map(function, iterable, /, *iterables):
    for i in (iterable, *iterables):
        limits.check_each(i)
    return map(checked_callable(function), iterable, *iterables)


def safe_filter(function, iterable, /):
    return filter(function if function is None else checked_callable(function),
                  limits.check_each(iterable))


def safe_sorted(iterable, /, **kwargs):
    _checked_key(kwargs)
    return sorted(limits.check_each(iterable), **kwargs)


def safe_min(*args, **kwargs):
    _checked_key(kwargs)
    return min(*args, **kwargs)


def safe_max(*args, **kwargs):
    _checked_key(kwargs)
    return max(*args, **kwargs)


def safe_iter(obj, /, *sentinel):
    """iter(); with a sentinel, a generator (Python code, which Ctrl-C and the timeout can stop:
    `list(iter(int, 1))` over Python's own callable iterator is an endless loop in C)."""
    if not sentinel:
        return iter(limits.check_each(obj))
    function, (stop,) = checked_callable(obj), sentinel

    def calls():
        while True:
            value = function()
            if value == stop:
                return
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
    _checked_key(kwargs)
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
    if symbol == "%":
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


def _comparison(operation, check):
    """The guard of a comparison of two operands that are not literals: arrays broadcast to a
    result whose size is checked before NumPy makes it."""
    def guard(a, b):
        if isinstance(a, NUMPY_VALUES) or isinstance(b, NUMPY_VALUES):
            check(a, b)
            return limits.check_numpy_result(operation(a, b))
        return operation(a, b)
    return guard


NUMPY_VALUES = (np.ndarray, np.generic)
# `_compare["<"](a, b)`: the comparison guards (`in` compares the item with each element)
COMPARE_GUARDS = {
    **{symbol: _comparison(operation, limits.check_arrays) for symbol, operation in (
        ("==", operator.eq), ("!=", operator.ne), ("<", operator.lt), ("<=", operator.le),
        (">", operator.gt), (">=", operator.ge))},
    "in": _comparison(lambda a, b: a in b, lambda a, b: limits.check_arrays(b, a)),
    "not in": _comparison(lambda a, b: a not in b, lambda a, b: limits.check_arrays(b, a))}


def _guarded_comparison(symbol):
    guard = COMPARE_GUARDS[symbol]
    return lambda self, other: guard(self.value, other.value)


class Compared:
    """`_compared(x)`: an operand of a chained comparison (`a < b <= c`), each of whose
    comparisons is its guard's (COMPARE_GUARDS): Python still evaluates each operand once, and
    the next comparison only when the one before held."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = map(
        _guarded_comparison, ("==", "!=", "<", "<=", ">", ">="))

    def __contains__(self, item):
        return COMPARE_GUARDS["in"](item.value, self.value)

    __hash__ = None


def inplace_attr(obj, name, guard, value):
    """`obj.name op= value`, guard being the operator's in-place guard."""
    target = store_target(obj, name)
    setattr(target, name, guard(guarded_getattr(obj, name), value))


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
        return sum(iterable, start)
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


# ---------------------------------------------------------------------- exceptions

def catchable(kind):
    """The classes an `except kind` clause catches: kind's classes that derive from Exception
    (BaseException stands for Exception; KeyboardInterrupt and the timeout are never caught; a
    bare `except:` is `except Exception:`).  Once the program's time is up, nothing."""
    if limits.Stopping.exception is not None:
        raise limits.Stopping.exception()
    if kind is None:
        return Exception
    kinds = kind if isinstance(kind, tuple) else (kind,)
    caught = []
    for k in kinds:
        if isinstance(k, tuple):
            caught.extend(catchable(k))
        elif not (isinstance(k, type) and issubclass(k, BaseException)):
            raise TypeError("catching classes that do not inherit from BaseException is not "
                            "allowed")
        elif issubclass(k, Exception):
            caught.append(k)
        elif k is BaseException:
            caught.append(Exception)
    return tuple(caught)


# What the engine raises for itself, never for a program to catch: the signal of a batched
# Jacobian to go column by column (filled by static_builtins), a program error of a nested run
ENGINE_SIGNALS = []


def caught():
    """First statement of every `except` body: re-raise what the program must not swallow: the
    exception caught if it is the engine's own signal, and the timeout or Ctrl-C if the caught
    exception was raised while one of them was on its way (by a finally block)."""
    exc = sys.exc_info()[1]
    if limits.Stopping.exception is not None:
        raise limits.Stopping.exception()
    if isinstance(exc, tuple(ENGINE_SIGNALS)):
        raise exc
    context, steps = exc.__context__, 0
    while context is not None and steps < 10_000:
        if not isinstance(context, Exception):
            raise context
        context, steps = context.__context__, steps + 1


def tick():
    """Called before each try and with block on CPython 3.10 (see compiler.TICK_BEFORE_BLOCKS):
    a place where signal handlers run."""


def raisable(exc):
    """What `raise exc` (or `from exc`) may raise: an exception class or instance of the
    Exception kin, or None as a cause."""
    kind = exc if isinstance(exc, type) else type(exc)
    if exc is None or isinstance(kind, type) and issubclass(kind, Exception):
        return exc
    if issubclass(kind, BaseException):
        raise TypeError(f"{kind.__name__} is not raised by gradcli programs (exceptions must "
                        f"derive from Exception)")
    raise TypeError("exceptions must derive from BaseException")


# ---------------------------------------------------------------------- introspection

def safe_super(cls=None, obj=None, /):
    """super(cls, obj) for a class of the program and one of its instances (`super()` in a
    method is compiled to `super(__class__, self)`)."""
    if cls is None or obj is None:
        raise RuntimeError("super(): only `super()` in a method and `super(Class, self)` are "
                           "supported in gradcli programs")
    if cls not in PROGRAM_CLASSES or not isinstance(obj, cls):
        raise TypeError("super(type, obj): obj must be an instance of type, a class of the "
                        "program")
    return super(cls, obj)


class HiddenClass:
    """What `type(x)` gives for a class that a program must not call or inspect (functions,
    modules, the op table's callables): its name, and how Python prints the class."""

    __slots__ = ("__name__", "_text")

    def __init__(self, name):
        self.__name__ = name
        self._text = f"<class '{name}'>"

    def __repr__(self):
        return self._text

    def __eq__(self, other):
        return isinstance(other, HiddenClass) and other._text == self._text

    def __hash__(self):
        return hash(self._text)


HIDDEN_CLASSES = {}


# The builtin classes that `type(x)` gives as they are (int, when called, is the sandbox's)
PLAIN_CLASSES = frozenset((int, float, complex, bool, str, bytes, tuple, list, dict, set,
                           frozenset, slice, type(None), type(...)))


def _shown_class(cls):
    """May `type(x)` give cls itself?  Classes of the program, plain values, exceptions,
    NumPy's and the engine's (not a metaclass, a module or the op table's callables: a class
    made by a metaclass, a range or a map made by their class would step around the checks of
    the class statement, range() and map())."""
    from .namespace import Facade
    if cls in PROGRAM_CLASSES or cls in PLAIN_CLASSES or cls in EXCEPTION_CLASSES:
        return True
    if issubclass(cls, type) or cls in OPAQUE_TYPES or issubclass(cls, Facade):
        return False
    return _engine_module(cls.__module__) or _is_numpy(cls)


def safe_type(obj, *args):
    """type(obj); type(name, bases, dict) is not available (classes come from class
    statements, which check their bases).  A class a program may not use as it is comes as its
    name (HiddenClass)."""
    if args:
        raise TypeError("type() with 3 arguments is not available in gradcli programs (use a "
                        "class statement)")
    cls = type(obj)
    if cls in STAND_IN_CALLS or issubclass(cls, (np.ndarray, np.dtype)):
        return stand_in(cls, STAND_IN_CALLS.get(cls))  # (the checked constructors)
    if _shown_class(cls):
        return cls
    from .namespace import Facade
    # (the op table's functions are PyTorch's builtin functions; a hidden class is a class)
    name = "module" if isinstance(obj, Facade) else "builtin_function_or_method" \
        if cls in OPAQUE_TYPES else "type" if isinstance(obj, HiddenClass) else cls.__name__
    hidden = HIDDEN_CLASSES.get(name)
    if hidden is None:
        hidden = HIDDEN_CLASSES[name] = HiddenClass(name)
    return hidden


def safe_dir(obj=None, /):
    """The attributes a program may read of obj (without one, the program's names are not
    listed: Python's dir() would read the caller's frame)."""
    if obj is None:
        raise TypeError("dir() needs an argument in gradcli programs")
    from .namespace import Facade
    if isinstance(obj, Facade):
        return sorted(n for n in obj._members if not n.startswith("_"))
    if isinstance(obj, UNSAFE_TYPES) or _is_function(obj) and not _is_program_function(obj):
        return []
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def help_function(print_function):
    """help() for a session: the object's name and docstring (pydoc would read files)."""
    def help(obj=None, /):  # noqa: A001
        if obj is None:
            print_function("Type help(object) for help about object.")
            return
        name = getattr(obj, "__name__", None)
        name = name if isinstance(name, str) else type(obj).__name__
        doc = inspect.getdoc(obj) if not isinstance(obj, UNSAFE_TYPES) else None
        kind = "class" if isinstance(obj, type) else "function" if callable(obj) else "object"
        text = f"Help on {kind} {name}:\n\n{name}"
        if doc:
            text += "\n    " + doc.replace("\n", "\n    ")
        print_function(text.rstrip() + "\n")
    return help


# ---------------------------------------------------------------------- imports and classes

ALLOWED_MODULES = "torch, numpy and math"


def import_module(dotted, leaf):
    """`import a.b.c`: the facade of a.b.c when leaf (`as` given), else of a."""
    parts = dotted.split(".")
    top = modules().get(parts[0])
    if top is None:
        raise ImportError(f"`import {parts[0]}` is not supported in gradcli programs (programs "
                          f"may import {ALLOWED_MODULES})")
    module = top
    for i, part in enumerate(parts[1:], start=2):
        module = module._members.get(part)
        if not isinstance(module, Facade):
            raise ModuleNotFoundError(f"No module named '{'.'.join(parts[:i])}'")
    return module if leaf else top


def import_from(dotted, name):
    """`from a.b import name`."""
    module = import_module(dotted, True)
    if name.startswith("_") or name not in module._members:
        raise ImportError(f"cannot import name '{name}' from '{dotted}'")
    return module._members[name]


def public_members(dotted):
    """What `from dotted import *` binds."""
    return dict(import_module(dotted, True)._members)


# gradcli's own machinery, not the engine a program works with: never shown by type(), never a
# base of a program's class
_MACHINERY = ("gradcli.lang", "gradcli.kernel", "gradcli.cli", "gradcli.analysis",
              "gradcli.render")


def _engine_module(module):
    return isinstance(module, str) and module.startswith("gradcli.") and \
        not module.startswith(_MACHINERY)


def _engine_class(cls):
    return (_engine_module(cls.__module__) and not issubclass(cls, BaseException) or
            cls in EXCEPTION_CLASSES)


def build_class(body, name, *bases, **keywords):
    """The class statement: bases must be engine classes or classes of the program."""
    if keywords:
        raise TypeError("class keywords such as metaclass= are not supported in gradcli "
                        "programs")
    for base in bases:
        if not (isinstance(base, type) and (base in PROGRAM_CLASSES or _engine_class(base))):
            raise TypeError(f"a class may only derive from engine classes such as "
                            f"torch.autograd.Function, torch.nn.Module or Exception, not "
                            f"{base!r}")
    cls = builtins.__build_class__(body, name, *bases)
    _check_engine_bases(cls)
    _check_overrides(cls, body.__code__.co_names)
    PROGRAM_CLASSES.add(cls)
    return cls


def _check_engine_bases(cls):
    """A class deriving from torch.Tensor has no engine base outside Tensor's own line
    (torch.nn.Parameter): another engine class's machinery would answer for Tensor's (nn.Module's
    __setattr__, and its __getattr__ for a slot never set, `_data` among them)."""
    tensor = ENGINE_CLASSES.get("Tensor")
    if tensor is None or not issubclass(cls, tensor):
        return
    for base in cls.__mro__:
        if base is not object and base not in PROGRAM_CLASSES and base is not cls and \
                _engine_class(base) and not issubclass(base, tensor) and \
                base not in tensor.__mro__:
            raise TypeError(f"class {cls.__name__} cannot derive from both torch.Tensor and "
                            f"{base.__name__} in gradcli programs")


# The names each class of the program defined (its class body's, and those it set later): what
# it may put before an engine base's in the MRO of a class that derives from both
PROGRAM_NAMES = weakref.WeakKeyDictionary()


def _redefined_base(cls, owner, name):
    """The engine base of cls whose `name` the program's class `owner` (cls or one of its
    bases, before that engine base in cls's MRO) would redefine; None if none.  Nothing of
    Tensor's may be redefined (the engine reads a tensor's memory through its attributes: a
    subclass's `_data` or `shape` would point it outside its buffers), and no `_`-name of any
    other engine class (their internals); methods such as forward and backward are what a
    subclass of Function or Module is for."""
    mro = cls.__mro__
    tensor = ENGINE_CLASSES.get("Tensor")
    for base in mro[mro.index(owner) + 1:]:
        if base is object or base in PROGRAM_CLASSES or not _engine_class(base) or \
                not hasattr(base, name):
            continue
        if (tensor is not None and issubclass(base, tensor)) or name.startswith("_"):
            return base
    return None


def _redefinition_error(cls, name, base):
    tensor = ENGINE_CLASSES.get("Tensor")
    shown = "torch.Tensor" if tensor is not None and base is tensor else base.__name__
    return TypeError(f"class {cls.__name__} cannot redefine {name!r} of {shown} in gradcli "
                     f"programs")


def _check_overrides(cls, body_names):
    """A program's class may not redefine what the engine's code reads from its engine bases
    (_redefined_base), by its own names or by those of a class of the program before an engine
    base in its MRO (a mixin: `class S(Mix, torch.Tensor)`).  body_names: the names the class
    body uses (what the engine's own class machinery adds, such as a Function's backward
    class, is not the program's; `__init__` is the program's, `__module__` and the like
    Python's)."""
    PROGRAM_NAMES[cls] = {name for name in cls.__dict__
                          if name in body_names and not name.startswith("__")}
    for owner in cls.__mro__:
        for name in PROGRAM_NAMES.get(owner, ()) if owner is cls or owner in PROGRAM_CLASSES \
                else ():
            base = _redefined_base(cls, owner, name)
            if base is not None:
                raise _redefinition_error(cls, name, base)
    for name in PROGRAM_NAMES[cls]:
        # (a program reads and writes no attribute starting with `_`: such a name would only
        # give its objects the engine's internal attributes, `_data` that the engine reads as
        # a tensor's memory)
        if name.startswith("_") and name != "_":
            raise NameError(f"names starting with '_' are not allowed in a class body: "
                            f"'{name}'")


def _check_class_attribute(cls, name):
    """`Class.name = value` for a class of the program: what its class statement may not
    define, it may not set later, for itself or for any class of the program derived from
    it."""
    pending, seen = [cls], set()
    while pending:
        sub = pending.pop()
        if sub in seen:
            continue
        seen.add(sub)
        base = _redefined_base(sub, cls, name)
        if base is not None:
            raise _redefinition_error(sub, name, base)
        pending.extend(type.__subclasses__(sub))
    PROGRAM_NAMES.setdefault(cls, set()).add(name)


# ---------------------------------------------------------------------- the builtins

# The names of the guards in a program's builtins: no program may name them (its own `_expr`
# would replace the guard of its expression statements)
GUARD_NAMES = frozenset(
    [guard for guard, *_ in OPERATORS.values()] +
    [inplace_guard_name(guard) for guard, *_ in OPERATORS.values()] +
    ["_getattr", "_store_target", "_callable", "_inplace_attr", "_inplace_item", "_import",
     "_slice_target",
     "_import_from", "_format_field", "_compare", "_compared", "_catchable", "_caught",
     "_raisable", "_tick", "_expr", "_import_star", "_item", "_key", "_each"])


@functools.lru_cache(maxsize=None)
def static_builtins():
    """The builtins every session shares: bare names, safe builtins and the guards."""
    from ..autograd.function import FunctionCtx
    from ..engine.graph import Node
    from ..engine.tensor import Tensor
    from ..ops.nodes import OpNode
    from ..engine.tangents import Unbatchable
    from .errors import ProgramError
    from .namespace import BuiltinOrOp, MathStyle, builtins_or_ops
    for unchecked in UNCHECKED_OPERANDS.values():
        unchecked.add(Tensor)
    ENGINE_CLASSES.update(Node=Node, FunctionCtx=FunctionCtx, OpNode=OpNode, Tensor=Tensor)
    global SETTABLE_BASES, TENSOR_READ_ONLY
    SETTABLE_BASES = (Tensor, FunctionCtx)
    TENSOR_READ_ONLY = _read_only_tensor_attributes(Tensor)
    OPAQUE_TYPES.update(_op_table_types(modules()["torch"]._members) | {MathStyle, BuiltinOrOp})
    limits.apply_element_limit()
    names = dict(bare_names())
    names.update({n: getattr(builtins, n) for n in SAFE_BUILTINS})
    names.update(range=safe_range, pow=safe_pow, format=safe_format, sum=safe_sum,
                 round=safe_round, **CALLING_BUILTINS)
    names.update(builtins_or_ops(names))
    names.update({guard: BINARY_GUARDS[op] for op, (guard, *_) in OPERATORS.items()})
    names.update({inplace_guard_name(guard): INPLACE_GUARDS[op]
                  for op, (guard, *_) in OPERATORS.items()})
    names.update({name: getattr(builtins, name) for name in EXCEPTIONS})
    names.update(type=safe_type, dir=safe_dir, super=safe_super)
    ENGINE_SIGNALS[:] = [Unbatchable, ProgramError]
    callables.CHECK[0] = checked_callable  # (the callables programs hand to modules)
    names.update(_getattr=guarded_getattr, _store_target=store_target,
                 _callable=checked_callable, _inplace_attr=inplace_attr,
                 _inplace_item=inplace_item, _slice_target=slice_target,
                 _import=import_module, _import_from=import_from,
                 _format_field=format_field, _compare=COMPARE_GUARDS, _compared=Compared,
                 _catchable=catchable, _caught=caught, _raisable=raisable, _tick=tick,
                 _item=item, _key=IndexKey(), _each=limits.check_each,
                 __build_class__=build_class, __name__="__main__")
    # C code (NumPy's lazy imports) imports through the builtins of the innermost Python frame,
    # which may be the program's: it gets Python's __import__.  Programs cannot name it, and
    # their own import statements compile to `_import`, never to Python's IMPORT_NAME.
    names["__import__"] = builtins.__import__
    return names


def program_builtins(print_function, expression_hook, import_star):
    """The builtins of one session: the static ones plus its print, its expression-statement
    hook (echo and recording) and `from m import *` (which binds into its namespace)."""
    names = dict(static_builtins())
    names.update(print=print_function, help=help_function(print_function),
                 _expr=expression_hook, _import_star=import_star)
    return names
