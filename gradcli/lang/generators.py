"""Generators of programs (`yield`, `yield from`, generator expressions): the objects Python
makes, printed as Python prints them (`<generator object f at 0x...>`), of which a program
reaches only iteration (`next`, `for`, `list(...)`) and the methods `send`, `close` and
`throw`; never `gi_frame`, `gi_code`, `gi_yieldfrom` (a frame's globals and builtins are
gradcli's, its `f_back` the engine's frames), which the sandbox refuses as it refuses every
attribute of a generator that is not one of those three, and those three only on generators
of the program's own code (the engine's, `model.parameters()`, iterate and no more).

A generator that the garbage collector finalizes while it is suspended inside a `try` block
would run the program's code (its `finally` blocks, the expressions of its `except` clauses)
wherever the collection happens: in the middle of the engine's machinery, after the program's
time is up, when the session is gone.  It runs none: in a generator function, each finally
block and except clause asks `closing()` first, which is true only while the collector closes
that generator; `close()` called by the program (on the generator or on one that delegates to
it with `yield from`) runs them as Python does."""

import itertools
import sys
import types
import weakref

from . import limits

GENERATOR_METHODS = ("close", "send", "throw")
# the code objects of programs (each function's, lambda's and comprehension's): a generator
# whose code is one of them is the program's
PROGRAM_CODES = weakref.WeakSet()
# the frames of the generators the program is closing now (their finally blocks run), and the
# _Delegate at the end of their yield-from chain
_CLOSED_BY_PROGRAM = []


def note_program_code(code):
    """Remember code (a compiled program) and the code objects nested in it."""
    pending = [code]
    while pending:
        code = pending.pop()
        PROGRAM_CODES.add(code)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def is_program_generator(obj):
    return type(obj) is types.GeneratorType and obj.gi_code in PROGRAM_CODES


def delegated(x):
    """(The guard `_delegated(x)` of `yield from x`.)  iter(x), x metered as a for loop's
    iterable; an engine generator (`yield from model.parameters()`, or what an object's
    __iter__ gives) behind an iterator of its own, and an object with a close behind a
    _Delegate, so that the delegating generator's send, throw and close reach only the
    program's code, and its collector's close none of it."""
    iterator = iter(limits.check_each(x))   # (an object's __iter__ may give one)
    if type(iterator) is types.GeneratorType:
        return iterator if is_program_generator(iterator) else itertools.chain(iterator)
    return _Delegate(iterator) if hasattr(iterator, "close") else iterator


class _Delegate:
    """An iterator of the program's that has a `close` (an object of its class with __next__
    and a close method), as a generator delegates to it: Python calls that close when the
    delegating generator closes, the collector's close too, which would run the program's
    code wherever the collection happens.  Its close runs only when the program closes the
    generator (generators.close); send and throw, which only the program's calls reach, as
    Python makes them."""

    __slots__ = ("_iterator",)

    def __init__(self, iterator):
        self._iterator = iterator

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._iterator)

    def send(self, value):
        return self._iterator.send(value)

    def throw(self, *args):
        method = getattr(self._iterator, "throw", None)
        if method is not None:
            return method(*args)
        raiser = _raiser()   # (no throw: the exception is raised where the `yield from` is)
        next(raiser)
        return raiser.throw(*args)

    def close(self):
        if any(d is self for d in _CLOSED_BY_PROGRAM):
            self._iterator.close()


def _raiser():
    yield


def closing():
    """(The guard `_closing()`, called by the finally blocks and except clauses of a generator
    function.)  Is the garbage collector closing the calling frame's generator?  That is: a
    GeneratorExit is on its way through that frame (its traceback holds the frame), and it
    was not thrown by a close() of the program's."""
    exc = sys.exc_info()[1]
    if type(exc) is not GeneratorExit:
        return False
    frame = sys._getframe(1)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame is frame:
            return not any(f is frame for f in _CLOSED_BY_PROGRAM)
        tb = tb.tb_next
    return False   # (a finally block that ends normally while a caller's runs for a close)


def close(generator):
    """generator.close() for a program: the generator and those it delegates to (`yield
    from`) run their finally blocks, as Python runs them."""
    frames, delegate = [], generator
    while type(delegate) is types.GeneratorType and delegate.gi_frame is not None:
        frames.append(delegate.gi_frame)
        delegate = delegate.gi_yieldfrom
    if type(delegate) is _Delegate:
        frames.append(delegate)
    _CLOSED_BY_PROGRAM.extend(frames)
    try:
        return generator.close()
    finally:
        del _CLOSED_BY_PROGRAM[len(_CLOSED_BY_PROGRAM) - len(frames):]


def throw(generator, kind, value=None, traceback=None, /):
    """generator.throw(...) for a program: an exception of Exception's kin only (as `raise`
    takes), and no traceback (a program holds none)."""
    from .introspection import raisable
    for given in (kind, value):  # (what is no exception at all, throw() refuses itself)
        if isinstance(given, BaseException) or isinstance(given, type) and \
                issubclass(given, BaseException):
            raisable(given)
    if traceback is not None:
        raise TypeError("throw() third argument must be a traceback object")
    if value is None:
        return generator.throw(kind)
    return generator.throw(kind, value)


class Method:
    """A generator's close or throw as a program holds it: called as the method is, printed as
    Python prints it, with nothing else to read."""

    __slots__ = ("_function", "_generator", "_name")

    def __init__(self, function, generator, name):
        self._function, self._generator, self._name = function, generator, name

    def __call__(self, *args):
        return self._function(self._generator, *args)

    def __repr__(self):
        return f"<built-in method {self._name} of generator object at {id(self._generator):#x}>"


Method.__name__ = Method.__qualname__ = "builtin_function_or_method"   # (as type() shows it)


def method(obj, name):
    """A program's `g.send`, `g.close`, `g.throw` (None for an object that is no program
    generator: the sandbox refuses the attribute)."""
    if not is_program_generator(obj):
        return None
    if name == "send":
        return obj.send
    return Method(close if name == "close" else throw, obj, name)


def unraisable(previous):
    """A sys.unraisablehook that drops what the closing of a program's generator raised
    (the timeout's alarm or Ctrl-C, met while the collector closes it: the alarm comes
    again), and hands everything else to previous."""
    def hook(report):
        if is_program_generator(report.object):
            return
        previous(report)
    return hook
