"""Attribute access in programs: every `obj.name` read or written goes through guarded_getattr
and store_target, which keep programs to public, data-like attributes (what an op's node saved,
a tensor's version, classes' names), hand out NumPy's methods and the engine's unbound methods
and properties checked, and meter tolist()."""

import builtins
import functools
import sys
import types

import numpy as np

from . import limits
from .metered_methods import CLASS_METHODS, METERED_METHODS, METERED_TYPES, STRING_METHODS
from .namespace import Facade, LazyFacade, StandIn
from .allowed import (DENIED_BUILTINS, DENIED_IDS, ENGINE_CLASSES, FUNCTION_TYPES, HiddenClass,
                      NODE_ATTRIBUTES, NUMPY_ATTRIBUTES, NUMPY_METHODS, OPAQUE_TYPES,
                      PROGRAM_CLASSES, TENSOR_READ_ONLY, UNSAFE_TYPES, _engine_module,
                      _is_numpy, _not_available, is_saved_value)
from .classes import _check_class_attribute
from .calls import _checked_arguments, _list_sort
from .generators import GENERATOR_METHODS, method as generator_method


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
    if is_saved_value(name):
        return isinstance(obj, ENGINE_CLASSES["OpNode"])
    if name == "_version":
        return isinstance(obj, ENGINE_CLASSES["Tensor"])
    if name == "__name__":   # (an op's too: `torch.sin.__name__`, as PyTorch's bindings have)
        return isinstance(obj, (type, HiddenClass)) or _is_function(obj) or \
            type(obj) in OPAQUE_TYPES
    return name == "__init__" and type(obj) is super


def _unusual_getattr(obj, name):
    if type(obj) is StandIn:  # (its attributes are its class's, read as for that class)
        obj = obj._real
    obj = _loaded_entry(obj)
    _check_name(name, obj)
    if name in GENERATOR_METHODS and type(obj) is types.GeneratorType:
        method = generator_method(obj, name)  # (a program's generator's; never remembered)
        if method is None:
            raise _not_available(obj, name)
        return method
    if name == "__name__" and isinstance(obj, type):  # (a string: NumPy's classes' too)
        return obj.__name__
    if name == "mro":  # (a class's bases end in object, which programs do not reach)
        raise _not_available(obj, name)
    if is_saved_value(name):  # a saved value of an op's node: only what it shows as one
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
    """An exception shows a program its `args` (a StopIteration its `value` too: what a
    generator returned) and what the program's own exception classes set; not what Python's
    classes keep (AttributeError.obj, with_traceback, add_note)."""
    if name == "args" or name == "value" and isinstance(exc, StopIteration):
        return
    builtin = next(c for c in type(exc).__mro__ if c not in PROGRAM_CLASSES)
    if type(exc) not in PROGRAM_CLASSES or hasattr(builtin, name) or \
            hasattr(BaseException, name):  # (a class mixing an exception with a Module)
        raise _not_available(exc, name)


def _loaded_entry(obj):
    """obj, an op's table entry whose module has not loaded yet (an entries.Pending) loaded
    first: what a program reads of an entry (its attributes, dir(), help()) and the errors it
    meets do not depend on whether its module has loaded."""
    from ..ops.entries import loaded
    return loaded(obj)


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
        from inspect import getattr_static  # (not at start-up: 18M instructions on 3.10)
        try:
            getattr_static(obj, name)
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


def inplace_attr(obj, name, guard, value):
    """`obj.name op= value`, guard being the operator's in-place guard."""
    target = store_target(obj, name)
    setattr(target, name, guard(guarded_getattr(obj, name), value))
