"""Imports and classes in programs: the facades `import torch`, `import numpy` and `import math`
give, and the checks of a program's class statements (which engine classes it may derive from,
what it may redefine of them) and of attributes set on its classes later."""

import builtins
import types
import weakref

from .namespace import Facade, modules
from .allowed import (ENGINE_CLASSES, EXCEPTION_CLASSES, PROGRAM_CLASSES, PROGRAM_DUNDERS,
                      _engine_module)


ALLOWED_MODULES = "torch, numpy, math, random, functools (partial, reduce), copy and io (its BytesIO)"


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
        node = ENGINE_CLASSES["Node"]
        if base is not node and issubclass(base, node) and base not in PROGRAM_CLASSES and \
                not issubclass(base, ENGINE_CLASSES["FunctionCtx"]):  # (as PyTorch's C++ nodes)
            raise TypeError(f"type '{base.__name__}' is not an acceptable base type")
    cls = builtins.__build_class__(body, name, *bases)
    _check_engine_bases(cls)
    _check_overrides(cls, body.__code__.co_names)
    _check_special_methods(cls, body.__code__.co_names)
    if any(n in vars(cls) for n in SEQUENCE_METHODS):
        cls.__array__ = _no_array
    PROGRAM_CLASSES.add(cls)
    return cls


def _check_special_methods(cls, body_names):
    """The special methods the class body binds (__init__, allowed.PROGRAM_DUNDERS) are called by
    Python itself (`a(x)`, `a[i]`, `len(a)`, `A(x)`), not by the program's compiled call and its
    callable check: what a decorator made of one is held to that check now (`@lambda f: int`
    bound `int` itself as __call__, and `a("f" * 10 ** 6, 16)` made an integer past
    GRADCLI_MAX_INT_BITS), and a property's value when it is read.  A function of C among them
    is called through one of Python (_in_python)."""
    for name in (PROGRAM_DUNDERS | {"__init__"}) & set(body_names) & set(vars(cls)):
        value = vars(cls)[name]
        checked = _checked_special(value)
        if checked is not value:
            type.__setattr__(cls, name, checked)


def _checked_special(value):
    """value as a special method whose call passes the callable check (an object of any other
    kind, which Python calls without binding it, as a staticmethod of what passes)."""
    from .calls import checked_callable
    if isinstance(value, types.FunctionType):
        return checked_callable(value)
    if isinstance(value, (staticmethod, classmethod)):
        return type(value)(_in_python(checked_callable(value.__func__)))
    if isinstance(value, property):
        getter = value.fget
        if getter is None:
            return value
        return property(lambda self: _in_python(checked_callable(getter(self))), value.fset,
                        value.fdel)
    return staticmethod(_in_python(checked_callable(value)))


def _in_python(func):
    """func, called from a function of Python if it is one of C: a `__getitem__` that is `abs`
    makes `sum(A())` a loop in C that runs no Python code, where the timeout's signal is never
    handled (the program ran on past its time, and `list(A())` filled the memory)."""
    if isinstance(func, types.FunctionType) or not callable(func):
        return func

    def special(*args, **kwargs):
        return func(*args, **kwargs)
    return special


# A class that defines one of these is a sequence to NumPy, which would make an array of its
# objects by calling them, in C, without the element limit (`np.add(x, 1)` of an object whose
# __getitem__ gives large arrays): NumPy asks __array__ first, which refuses.
SEQUENCE_METHODS = ("__len__", "__getitem__", "__iter__")


def _no_array(self, *args, **kwargs):
    raise TypeError(f"NumPy makes no array of {type(self).__name__} objects in gradcli "
                    f"programs (make a list first: list(x))")


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
    subclass of Function or Module is for, as are the special methods an engine class leaves
    to its subclasses (`_program_dunders` in its own body: Dataset's __getitem__)."""
    mro = cls.__mro__
    tensor = ENGINE_CLASSES.get("Tensor")
    for base in mro[mro.index(owner) + 1:]:
        if base is object or base in PROGRAM_CLASSES or not _engine_class(base) or \
                not hasattr(base, name):
            continue
        if tensor is not None and issubclass(base, tensor) or name.startswith("_") and \
                name not in vars(base).get("_program_dunders", ()):
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
    PROGRAM_NAMES[cls] = {name for name in cls.__dict__ if name in body_names and
                          (not name.startswith("__") or name in PROGRAM_DUNDERS)}
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
        if name.startswith("_") and name != "_" and name not in PROGRAM_DUNDERS:
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
