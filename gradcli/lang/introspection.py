"""What programs see of their exceptions and classes: which exceptions an `except` clause may
catch and `raise` may raise (never the timeout or Ctrl-C), and `type`, `dir`, `super` and `help`
as programs get them (machinery shown by name only)."""

import sys

import numpy as np

from . import limits
from .namespace import stand_in
from .allowed import (EXCEPTION_CLASSES, HIDDEN_CLASSES, HiddenClass, OPAQUE_TYPES,
                      PROGRAM_CLASSES, UNSAFE_TYPES, _engine_module, _is_numpy)
from .calls import STAND_IN_CALLS
from .attributes import _is_function, _is_program_function, _loaded_entry
from .generators import GENERATOR_METHODS, is_program_generator


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
        # (a GeneratorExit: raised by close() in a generator whose finally block then raised)
        if not isinstance(context, (Exception, GeneratorExit)):
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


def _public_class(cls):
    """The class PyTorch's `type(x)` gives for an instance of cls: torch.Tensor for the
    engine's own kinds of tensor (a vmap's batched sample, a stale view), which no program
    subclasses or makes (a batched sample made or kept outside its vmap would pass for one)."""
    from ..engine.tensor import Tensor
    if cls is not Tensor and issubclass(cls, Tensor) and \
            vars(cls).get("_torch_name") == "torch.Tensor":
        return Tensor
    return cls


def safe_type(obj, *args):
    """type(obj); type(name, bases, dict) is not available (classes come from class
    statements, which check their bases).  A class a program may not use as it is comes as its
    name (HiddenClass)."""
    if args:
        raise TypeError("type() with 3 arguments is not available in gradcli programs (use a "
                        "class statement)")
    cls = _public_class(type(obj))
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
    obj = _loaded_entry(obj)
    if is_program_generator(obj):
        return list(GENERATOR_METHODS)
    if isinstance(obj, UNSAFE_TYPES) or _is_function(obj) and not _is_program_function(obj):
        return []
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def help_function(print_function):
    """help() for a session: the object's name and docstring (pydoc would read files)."""
    def help(obj=None, /):  # noqa: A001
        if obj is None:
            print_function("Type help(object) for help about object.")
            return
        obj = _loaded_entry(obj)
        name = getattr(obj, "__name__", None)
        name = name if isinstance(name, str) else type(obj).__name__
        from inspect import getdoc  # (not at start-up)
        doc = getdoc(obj) if not isinstance(obj, UNSAFE_TYPES) else None
        if type(obj) in OPAQUE_TYPES and isinstance(getattr(obj, "doc", None), str):
            doc = obj.doc or None   # (an op's own, not its class's)
        kind = "class" if isinstance(obj, type) else "function" if callable(obj) else "object"
        text = f"Help on {kind} {name}:\n\n{name}"
        if doc:
            text += "\n    " + doc.replace("\n", "\n    ")
        print_function(text.rstrip() + "\n")
    return help
