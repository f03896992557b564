"""What a VJP formula does with its gradient, decided by running it once on symbolic values.

Two fast paths of the engine depend on the shape of an op's VJP formulas (the lambdas of the op
table):

- float_formula(fn): whether the formula gives on Python floats what it gives on 0-d float64
  tensors (registry._on_floats), so that a scalar graph's backward pass needs no tensor per node;
- reads_gradient_once_by_operator(fn): whether the formula reads its gradient exactly once, as an
  operand of + - * / or unary -, so that the operator may compute into the gradient's array
  (engine.graph._Donation).

Both are answered by calling the formula once with stand-ins (_Symbol objects) for its
parameters, its globals and its closure's cells.  The stand-ins record, through Python's own
operator protocol, every operation applied to them, and refuse (raise _Refused) whatever the
fast path cannot follow: a truth test (an `if`, `and`, `or`, a conditional expression), an
iteration, a comparison where it matters, an attribute or call the rules do not allow.  The
answer therefore depends only on what the formula does, never on the interpreter's bytecode:
it is the same on every CPython (3.10 to 3.13 are tested) and on other implementations.

The one thing a stand-in cannot see is an identity test (`x is None`): a formula that branches
on one would be judged on the branch the stand-ins take.  The op table's formulas have none, and
tests/engine/test_formulas.py checks that from their source.
"""

import types


class _Refused(Exception):
    """The formula did something the fast path cannot follow."""


def _refuse(*_args, **_kwargs):
    raise _Refused


class _Symbol:
    """A stand-in value.  Truth tests, iteration, hashing and equality are refused on every
    kind of stand-in; the subclasses say which operators they follow."""

    __slots__ = ("kind", "trace")

    def __init__(self, kind, trace):
        self.kind = kind
        self.trace = trace

    __bool__ = __iter__ = __len__ = __index__ = __int__ = __float__ = __hash__ = _refuse
    __eq__ = __ne__ = __contains__ = _refuse


# ------------------------------------------------------------------------- float formulas

_NUMBERS = (int, float)  # constants a float formula may use (exact types: True is refused)


class _FloatTrace:
    def __init__(self, float_method):
        self.float_method = float_method
        self.methods = False


class _FloatValue(_Symbol):
    """kind: "g" (the gradient), "saved" (another parameter) or "value" (computed)."""

    __slots__ = ()

    def _operand(self, other):
        if isinstance(other, _FloatValue):
            return other
        if type(other) in _NUMBERS:
            return other
        raise _Refused

    def _binary(self, other):
        self._operand(other)
        return _FloatValue("value", self.trace)

    def _reflected(self, other):
        self._operand(other)
        return _FloatValue("value", self.trace)

    def __rtruediv__(self, other):
        # `2 / x` is Tensor.__rtruediv__: x.reciprocal() * 2, which rounds otherwise
        raise _Refused

    __add__ = __sub__ = __mul__ = __truediv__ = _binary
    __radd__ = __rsub__ = __rmul__ = _reflected

    def __neg__(self):
        return _FloatValue("value", self.trace)

    def __getattr__(self, name):
        # a method of a saved value that a NumPy ufunc computes (`self.cos()`)
        if self.kind != "saved" or name.startswith("__") or not self.trace.float_method(name):
            raise _Refused
        self.trace.methods = True
        return _FloatMethod("method", self.trace)


class _FloatMethod(_Symbol):
    """A saved value's method, not called yet: only a call without arguments is followed."""

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        if args or kwargs:
            raise _Refused
        return _FloatValue("value", self.trace)


def _parameters(fn):
    """fn's code, and how many positional parameters it has, or None where it takes more than
    positional parameters without defaults (keyword-only, *args, **kwargs)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount < 1:
        return None
    if code.co_kwonlyargcount or code.co_flags & (0x04 | 0x08):  # CO_VARARGS, CO_VARKEYWORDS
        return None
    return code


def float_formula(fn, float_method):
    """Whether VJP fn gives on Python floats what it gives on 0-d float64 tensors: made only of
    + - * / and unary - on its parameters and on int or float constants, and of methods of the
    saved values (every parameter but the first) for which float_method(name) is true, called
    without arguments.  No global, no closure.  None when not, else whether the formula calls
    such methods (its saved values are then passed as registry._FloatArg)."""
    code = _parameters(fn)
    if code is None or code.co_cellvars or code.co_freevars:
        return None
    trace = _FloatTrace(float_method)
    probe = types.FunctionType(code, {}, code.co_name)  # no globals, and so no builtins
    args = [_FloatValue("g", trace)] + [_FloatValue("saved", trace)
                                        for _ in range(code.co_argcount - 1)]
    try:
        result = probe(*args)
    except Exception:  # _Refused, or whatever else the stand-ins made the formula raise
        return None
    if not (isinstance(result, _FloatValue) or type(result) in _NUMBERS):
        return None
    return trace.methods


# ------------------------------------------------------------------------------- donation

class _Opaque(_Symbol):
    """Anything but the gradient: a parameter, a global, a closure's cell, a result.  Every
    operator, attribute, subscript and call is followed and gives another opaque value; one
    that takes the gradient among its operands counts as a read of it (_GradientTrace)."""

    __slots__ = ()

    def _follow(self, *operands, **named):
        self.trace.passed(operands, named)
        return _Opaque("value", self.trace)

    def _operator(self, other):
        if other is self.trace.g:
            self.trace.taken_by_operator()
        else:
            self.trace.passed((other,), {})
        return _Opaque("value", self.trace)

    __add__ = __sub__ = __mul__ = __truediv__ = _operator
    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = _operator
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = _follow
    __matmul__ = __rmatmul__ = __and__ = __rand__ = __or__ = __ror__ = __xor__ = _follow
    __rxor__ = __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _follow
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _follow
    __neg__ = __pos__ = __abs__ = __invert__ = _follow
    __call__ = __getitem__ = _follow

    def __getattr__(self, name):
        if name.startswith("__"):
            raise _Refused
        return _Opaque("value", self.trace)


class _Gradient(_Symbol):
    """The gradient: the operands + - * / (either side) and unary - read it; anything else
    done to it is refused."""

    __slots__ = ()

    def _operator(self, other):
        self.trace.taken_by_operator()
        self.trace.passed((other,), {})
        return _Opaque("value", self.trace)

    __add__ = __sub__ = __mul__ = __truediv__ = _operator
    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = _operator

    def __neg__(self):
        self.trace.taken_by_operator()
        return _Opaque("value", self.trace)

    def __getattr__(self, name):
        raise _Refused


class _GradientTrace:
    def __init__(self):
        self.g = _Gradient("g", self)
        self.reads = 0

    def taken_by_operator(self):
        self.reads += 1
        if self.reads > 1:
            raise _Refused

    def passed(self, operands, named):
        """operands and named are given to something that may keep them: refused if the
        gradient is among them, in a container or not."""
        if self.contains(operands) or self.contains(tuple(named.values())):
            raise _Refused

    def contains(self, value, depth=0):
        if value is self.g:
            return True
        if depth > 8:
            return True  # (deeper than any formula nests: taken as holding it)
        if isinstance(value, (tuple, list, set, frozenset)):
            return any(self.contains(v, depth + 1) for v in value)
        if isinstance(value, dict):
            return any(self.contains(v, depth + 1) for v in value.values())
        if isinstance(value, slice):
            return self.contains((value.start, value.stop, value.step), depth + 1)
        return False


def _names(code):
    """Every name code and the code nested in it refers to (globals and attributes alike)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def reads_gradient_once_by_operator(fn):
    """Whether VJP fn reads its gradient parameter (the first) exactly once, as an operand of
    +, -, * or / (or unary -), so that the operator's op may compute into the gradient's array
    (engine.graph._Donation): nothing in fn reads the gradient after that operator has run.
    Everything else (the other parameters, globals, closure cells) is an opaque stand-in; a
    formula that passes the gradient to a call or a container, reads an attribute of it, reads
    it twice, returns it as it is, closes over it or branches on anything answers False."""
    code = _parameters(fn)
    if code is None or code.co_varnames[0] in code.co_cellvars:
        return False
    trace = _GradientTrace()
    names = {name: _Opaque("global", trace) for name in _names(code)}
    closure = tuple(types.CellType(_Opaque("cell", trace)) for _ in code.co_freevars)
    probe = types.FunctionType(code, names, code.co_name, None, closure or None)
    args = [trace.g] + [_Opaque("parameter", trace) for _ in range(code.co_argcount - 1)]
    try:
        result = probe(*args)
    except Exception:
        return False
    return trace.reads == 1 and not trace.contains(result)
