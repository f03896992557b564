"""What programs can name: the `torch`, `numpy`, `math` and `random` modules (as facades
exposing only their listed members) and the names available without import (the op table, pi,
e, inf, nan)."""

import builtins
import math
from functools import lru_cache

import numpy as np

from .limits import (_shape, check_array_size, check_broadcast, check_dtype, check_dtypes,
                     check_int_arguments, check_numpy_result, check_print_options, check_total,
                     materialising)

DENIED_TORCH_NAMES = {"set_element_limit"}
# `torch.__version__`: the PyTorch whose semantics gradcli follows, marked as gradcli's
TORCH_VERSION = "2.13.0+gradcli"   # programs must not lift their own limits


class Facade:
    """A module as programs see it: its listed members only; submodules are facades too."""

    __slots__ = ("_name", "_members")

    def __init__(self, name, members):
        self._name = name
        self._members = members

    def __getattr__(self, attr):
        try:
            return self._members[attr]
        except KeyError:
            raise AttributeError(f"module '{self._name}' has no attribute '{attr}'") from None

    def __dir__(self):
        return sorted(self._members)

    def __repr__(self):
        return f"<module '{self._name}'>"


class LazyFacade(Facade):
    """A facade whose members are made on first use (numpy.random, torch.nn, the numpy module:
    importing or wrapping them costs milliseconds at every start, for the programs that never
    use them).  Each function of ON_LOAD is called with the new members before anything sees
    them (the sandbox notes the types of the op table's callables there)."""

    __slots__ = ("_load", "_loaded")
    ON_LOAD = []

    def __init__(self, name, load):
        self._name = name
        self._load = load
        self._loaded = None

    @property
    def _members(self):
        if self._loaded is None:
            members = self._load()
            for hook in self.ON_LOAD:
                hook(self, members)
            self._loaded = members
        return self._loaded


# ---------------------------------------------------------------------- torch

def _checked_printoptions(set_printoptions):
    """torch.set_printoptions, refusing a precision or line width whose output would be many
    megabytes per tensor (`precision=10**7`)."""
    def checked(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                sci_mode=None):
        check_print_options(precision, linewidth)
        return set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)
    checked.__name__ = checked.__qualname__ = "set_printoptions"
    checked.__doc__ = set_printoptions.__doc__
    return checked


# engine functions that programs get with a size check: name -> wrapper maker
CHECKED_TORCH_NAMES = {"set_printoptions": _checked_printoptions}


def _engine_facade(module, name):
    """A facade of an engine module: its __all__ (else its public names), submodules nested
    as LazyFacades (torch.nn, torch.autograd, ...: made at their first use)."""
    return Facade(name, _engine_members(module, name))


def _lazy_engine_facade(module_name, name):
    def load():
        import importlib
        return _engine_members(importlib.import_module(module_name), name)
    return LazyFacade(name, load)


def _engine_members(module, name):
    members = {}
    # (__all__ first: reading it loads the gradcli package's namespace, _LAZY_SUBMODULES too)
    names = getattr(module, "__all__", None) or [a for a in dir(module) if a[0] != "_"]
    lazy = vars(module).get("_LAZY_SUBMODULES", ())
    for attr in names:
        if attr in lazy and attr not in DENIED_TORCH_NAMES:
            members[attr] = _lazy_engine_facade(f"{module.__name__}.{attr}", f"{name}.{attr}")
            continue
        if attr in DENIED_TORCH_NAMES or not hasattr(module, attr):
            continue
        value = getattr(module, attr)
        if attr in CHECKED_TORCH_NAMES and callable(value):
            value = CHECKED_TORCH_NAMES[attr](value)
        if type(value).__name__ == "module":
            if not value.__name__.startswith("gradcli."):
                continue
            # (its members made at first use: the modules under torch are a hundred)
            value = _lazy_engine_facade(value.__name__, f"{name}.{attr}")
        members[attr] = value
    return members


# ---------------------------------------------------------------------- numpy

class StandIn(type):
    """The metaclass of what a program holds for NumPy's ndarray and dtype classes (the facade's
    np.ndarray and np.dtype, and what `type(x)` gives for an array or a dtype) and for bytes
    (what `type(x)` gives for bytes, whose call makes n bytes at once): a class that
    isinstance, issubclass, repr and attribute reads see as the real one, and whose call is
    the checked one.  A program hands its values to code that calls them unchecked (the engine
    calls a Module's forward, a hook, an optimizer's closure; NumPy calls an object's `clip` or
    `reshape`), so the raw constructor (any buffer, strides and dtype: object arrays,
    uninitialised memory) must not be a value a program can hold at all."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub):
        return issubclass(sub._real if isinstance(sub, StandIn) else sub, cls._real)

    def __call__(cls, *args, **kwargs):
        return cls._construct(*args, **kwargs)

    def __getattr__(cls, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(cls._real, name)

    def __repr__(cls):
        return repr(cls._real)

    def __dir__(cls):
        return dir(cls._real)


StandIn.__name__ = StandIn.__qualname__ = "type"  # (type(np.ndarray) shows as NumPy's)


def _refused_ndarray(*args, **kwargs):
    raise TypeError("numpy.ndarray() is not available in gradcli programs (make arrays with "
                    "np.array, np.zeros, np.ones, ...)")


def _checked_dtype_of(real):
    def construct(*args, **kwargs):
        check_dtypes(args[:1], [kwargs[k] for k in ("dtype",) if k in kwargs])
        result = real(*args, **kwargs)
        check_dtype(result)
        return result
    return construct


_STAND_INS = {}


def stand_in(real, construct=None):
    """What a program holds for the class `real` (one object for each, so that
    `type(a) is np.ndarray` holds): calling it calls `construct`, by default for an ndarray
    class a refusal, for a dtype class the checked dtype."""
    found = _STAND_INS.get(real)
    if found is None:
        if construct is None:
            construct = _refused_ndarray if issubclass(real, np.ndarray) else \
                _checked_dtype_of(real)
        found = _STAND_INS[real] = StandIn(real.__name__, (), {
            "__module__": real.__module__, "__qualname__": real.__qualname__,
            "__doc__": real.__doc__, "_real": real, "_construct": staticmethod(construct),
            "__slots__": ()})
    return found


# (ndarray is there for isinstance: calling it, the raw constructor that takes any buffer,
# strides and dtype, is refused by the sandbox, as is calling dtype with a dtype outside the
# allow-list: see limits.ALLOWED_DTYPE_KINDS)
NUMPY_VALUES = ["pi", "e", "inf", "nan", "newaxis", "ndarray", "float16", "float32", "float64",
                "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64", "complex128",
                "dtype"]
NUMPY_VALUES += ["uint16", "uint32", "uint64"]
NUMPY_ARRAY_FUNCTIONS = [
    "array", "asarray", "reshape", "transpose", "squeeze", "expand_dims", "flip", "trace",
    "copy", "sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax",
    "argmin", "cumsum", "cumprod", "all", "any", "allclose", "isclose", "array_equal", "isnan",
    "isinf", "isfinite", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh",
    "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2",
    "log10", "log1p", "sqrt", "square", "abs", "absolute", "sign", "floor", "ceil", "round",
    "trunc", "maximum", "minimum", "clip", "where", "power", "hypot", "add", "subtract",
    "multiply", "divide", "negative"]
# (and dot, matmul, diag and the *_like: CONSTRUCTOR_SIZES; stack and concatenate:
# _numpy_members)
NUMPY_RANDOM = ["seed", "rand", "randn", "random", "uniform", "normal", "randint"]
NUMPY_LINALG = ["norm", "det", "inv", "solve"]


def _numel(shape):
    if shape is None:
        return 1
    if isinstance(shape, (int, np.integer)):
        return int(shape)
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _arange_size(*args, **kwargs):
    start, stop, step = 0, None, 1
    if len(args) == 1:
        stop = args[0]
    elif args:
        start, stop, step = (tuple(args) + (1,))[:3]
    stop = kwargs.get("stop", stop)
    step = kwargs.get("step", step)
    if stop is None or not step:
        return 0
    return max(0, math.ceil((float(stop) - float(start)) / float(step)))


def _size_arg(position, default=None):
    """Size of a `size=` argument given by keyword or at a position."""
    def size(*args, **kwargs):
        return _numel(kwargs.get("size", args[position] if len(args) > position else default))
    return size


def _linspace_size(start, stop, num=50, *args, **kwargs):
    """np.linspace's num points of each element of start and stop (arrays broadcast)."""
    try:
        points = _numel(np.broadcast_shapes(_shape(start), _shape(stop)))
    except ValueError:
        points = 1  # (start and stop that do not broadcast: linspace reports it)
    return int(num) * points


def _product_size(a, b, *args, **kwargs):
    """The elements of np.dot(a, b) (matmul's broadcast batches, for np.matmul: kwargs
    `matmul`), before it is made: a product of k = 1 is an outer product."""
    try:
        sa, sb = _shape(a), _shape(b)
    except ValueError:
        return 0
    if not sa or not sb:
        return _numel(sa or sb)
    columns = sb[-1] if len(sb) > 1 else 1
    if kwargs.get("matmul"):
        try:
            batch = _numel(np.broadcast_shapes(sa[:-2], sb[:-2]))
        except ValueError:
            return 0
        return batch * (sa[-2] if len(sa) > 1 else 1) * columns
    return _numel(sa[:-1]) * _numel(sb[:-2]) * columns


def _diag_size(v, k=0, *args, **kwargs):
    """np.diag of a vector: a square matrix of its length and the offset."""
    return (len(v) + abs(int(k))) ** 2 if np.ndim(v) == 1 else 0


def _like_size(position):
    """np.zeros_like and the like: `shape=` (by keyword or at `position`), else their first
    argument's."""
    def size(prototype, *args, **kwargs):
        shape = kwargs.get("shape", args[position - 1] if len(args) >= position else None)
        return _numel(shape) if shape is not None else _numel(_shape(prototype))
    return size


CONSTRUCTOR_SIZES = {
    "zeros": lambda shape, *a, **k: _numel(shape),
    "ones": lambda shape, *a, **k: _numel(shape),
    "full": lambda shape, *a, **k: _numel(shape),
    "eye": lambda n, m=None, *a, **k: int(n) * int(n if m is None else m),
    "identity": lambda n, *a, **k: int(n) ** 2,
    "arange": _arange_size,
    "linspace": _linspace_size,
    "dot": _product_size,
    "matmul": lambda a, b, *r, **k: _product_size(a, b, matmul=True),
    "diag": _diag_size,
    "zeros_like": _like_size(4),
    "ones_like": _like_size(4),
    "full_like": _like_size(5),
}
RANDOM_SIZES = {
    "rand": lambda *dims: _numel(dims),
    "randn": lambda *dims: _numel(dims),
    "random": _size_arg(0),
}
# the draws whose parameters are arrays: their names, in order, before `size`
RANDOM_PARAMETERS = {"uniform": ("low", "high"), "normal": ("loc", "scale"),
                     "randint": ("low", "high")}


def _draws(parameters):
    """A random draw of `size` (by keyword, or after the parameters), and without one of as
    many values as its array parameters broadcast to, refused over the element limit."""
    def check(*args, **kwargs):
        given = [*args[:len(parameters)], *(kwargs[p] for p in parameters if p in kwargs)]
        check_broadcast(*given)
        size = kwargs.get("size", args[len(parameters)] if len(args) > len(parameters) else None)
        check_array_size(_numel(size))
    return check


def _checked(fn, check=None):
    """fn, whose dtype arguments (`dtype=` and any positional dtype) must be on the allow-list,
    as must its result's dtype (`np.array([len])` would be an object array); `check(*args,
    **kwargs)` refuses a result too large before fn builds it."""
    def call(*args, **kwargs):
        check_dtypes(args, (kwargs["dtype"],) if "dtype" in kwargs else ())
        if check is not None:
            check(*args, **kwargs)
        return check_numpy_result(fn(*args, **kwargs))
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _sized(fn, size_of):
    """fn, refusing to build an array over the element limit."""
    return _checked(fn, lambda *args, **kwargs: check_array_size(size_of(*args, **kwargs)))


def _broadcasting(fn):
    """fn of array arguments, refusing a broadcast result over the element limit."""
    return _checked(fn, check_broadcast)


def _numpy_random_members():
    random = {name: _checked(getattr(np.random, name)) for name in NUMPY_RANDOM}
    random.update({name: _sized(getattr(np.random, name), size)
                   for name, size in RANDOM_SIZES.items()})
    random.update({name: _checked(getattr(np.random, name), _draws(parameters))
                   for name, parameters in RANDOM_PARAMETERS.items()})
    return random


def _numpy_facade():
    """(Lazy: wrapping its functions reads every ufunc's docstring, which NumPy composes on
    each read, some 2 ms that most programs do not need.)"""
    return LazyFacade("numpy", _numpy_members)


def _solve_size(a, b, *args, **kwargs):
    """np.linalg.solve: its batches broadcast (the copies of `a` it makes, and the result)."""
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2 or len(sb) < 2:
        return 0
    try:
        batch = _numel(np.broadcast_shapes(sa[:-2], sb[:-2]))
    except ValueError:
        return 0  # (batches that do not broadcast: solve reports it)
    return batch * max(sa[-2] * sa[-1], sb[-2] * sb[-1])


def _numpy_members():
    members = {name: getattr(np, name) for name in NUMPY_VALUES}
    members.update(ndarray=stand_in(np.ndarray), dtype=stand_in(np.dtype))
    members.update({name: _broadcasting(getattr(np, name)) for name in NUMPY_ARRAY_FUNCTIONS})
    members.update({name: _sized(getattr(np, name), size)
                    for name, size in CONSTRUCTOR_SIZES.items()})
    members.update({name: _checked(getattr(np, name), check_total)
                    for name in ("stack", "concatenate")})
    members["random"] = LazyFacade("numpy.random", _numpy_random_members)
    linalg = {n: _checked(getattr(np.linalg, n)) for n in NUMPY_LINALG}
    linalg["solve"] = _sized(np.linalg.solve, _solve_size)
    members["linalg"] = Facade("numpy.linalg", linalg)
    members["__version__"] = np.__version__
    return members


# ---------------------------------------------------------------------- math

# a product of many integers cannot be interrupted, nor metered (sumprod, Python 3.12's, of
# integers is exact: `sumprod([x], [x])` squares a number of a million bits unchecked)
MATH_UNBOUNDED = {"prod", "lcm", "sumprod"}
MATH_INTEGER = {"factorial", "comb", "perm"}
MATH_ITERATING = {"fsum", "dist"}         # they iterate their arguments in C (an array's items)


def _math_facade():
    members = {}
    for name in dir(math):
        if name.startswith("_") or name in MATH_UNBOUNDED:
            continue
        value = getattr(math, name)
        members[name] = check_int_arguments(value) if name in MATH_INTEGER else \
            materialising(value) if name in MATH_ITERATING else value
    return Facade("math", members)


# ---------------------------------------------------------------------- random

# Python's random, as tutorials use it (d2l.ai's `random.shuffle(indices)`, a random depth):
# the functions of one generator, those whose work and result are bounded by their arguments
# (not getrandbits, randbytes, choices' k, the state: `random.getrandbits(10**10)` allocates)
RANDOM_FUNCTIONS = ("seed", "random", "uniform", "randint", "randrange", "choice", "shuffle",
                    "sample", "gauss", "normalvariate", "expovariate", "triangular")


@lru_cache(maxsize=None)
def _random_facade():
    """(its members made at first use: importing random and seeding a generator cost every
    one-shot `gradcli eval` 1% of its start-up)"""
    return LazyFacade("random", _random_members)


# the functions that compute on their parameters as given: `uniform(a, b)` is `a + (b - a) *
# random()`, which of two NumPy arrays broadcasts them (Python's arithmetic, in random.py)
RANDOM_ARITHMETIC = ("uniform", "triangular", "gauss", "normalvariate", "expovariate")


def _broadcast_checked(function):
    """function, its array parameters first checked as NumPy's functions' are (check_broadcast:
    `random.uniform(np.zeros((n, 1)), np.ones((1, n)))` must not make n * n elements)."""
    def checked(*args, **kwargs):
        check_broadcast(*args, **kwargs)
        return function(*args, **kwargs)
    checked.__name__ = checked.__qualname__ = function.__name__
    checked.__doc__ = function.__doc__
    return checked


def _random_members():
    import random
    generator = random.Random()
    members = {name: getattr(generator, name) for name in RANDOM_FUNCTIONS}
    members.update({name: _broadcast_checked(members[name]) for name in RANDOM_ARITHMETIC})

    def sample(population, k, *, counts=None):
        if counts is not None:
            raise TypeError("random.sample(counts=...) is not supported in gradcli programs")
        check_array_size(k if type(k) is int else 0)
        return generator.sample(population, k)
    members["sample"] = sample
    return members


# ---------------------------------------------------------------------- functools

def _functools_facade():
    """functools as PyTorch's tutorials use it (`partial(predict, weight, bias)`,
    `reduce(operator.mul, shape)`), checked (calls.safe_partial, calls.safe_reduce)."""
    from .calls import safe_partial, safe_reduce
    return Facade("functools", {"partial": safe_partial, "reduce": safe_reduce})


# ---------------------------------------------------------------------- the program's names

class MathStyle:
    """A bare op name that also computes on Python numbers, as `math` does (`exp(1.)`)."""

    __slots__ = ("op", "math")

    def __init__(self, op, math_function):
        self.op = op
        self.math = math_function

    def __call__(self, *args, **kwargs):
        if args and not kwargs and all(type(a) in (int, float) for a in args):
            return self.math(*args)
        return self.op(*args, **kwargs)

    def __getattr__(self, attr):
        return getattr(self.op, attr)

    def __repr__(self):
        return repr(self.op)


class SandboxBuiltin:
    """A Python builtin function the sandbox replaces (print, pow, format, sorted, iter, dir):
    the sandbox's when called; Python's when printed, named or asked for help (`[print]` shows
    `[<built-in function print>]`, not the session's method)."""

    __slots__ = ("name", "builtin")

    def __init__(self, name, builtin):
        self.name = name
        self.builtin = builtin  # (the sandbox's version of it: safe_pow, the session's print)

    def __call__(self, *args, **kwargs):
        return self.builtin(*args, **kwargs)

    def __repr__(self):
        return repr(getattr(builtins, self.name))

    @property
    def __name__(self):
        return self.name

    @property
    def doc(self):   # (help()'s: the builtin's)
        return getattr(builtins, self.name).__doc__


class BuiltinOrOp(SandboxBuiltin):
    """A Python builtin that shares its name with an op (max, min, sum, round, all, any): the
    builtin, as in Python, unless called with a keyword the builtin does not take
    (`max(x, dim=0)`, `sum(x, dim=1)`, `round(x, decimals=2)`): the op then, reachable bare
    as SPEC §2 has every op."""

    __slots__ = ("op", "keywords")

    def __init__(self, name, builtin, op, keywords):
        super().__init__(name, builtin)
        self.op = op
        self.keywords = frozenset(keywords)

    def __call__(self, *args, **kwargs):
        if kwargs and not kwargs.keys() <= self.keywords:
            return self.op(*args, **kwargs)
        return self.builtin(*args, **kwargs)


# the builtins that share a name with an op, and the keywords each takes itself
BUILTIN_KEYWORDS = {"max": ("key", "default"), "min": ("key", "default"), "sum": ("start",),
                    "round": ("ndigits",), "all": (), "any": ()}


def builtins_or_ops(builtin_functions):
    """{name: BuiltinOrOp} for the names of BUILTIN_KEYWORDS, over the given builtins."""
    ops = modules()["torch"]._members
    return {name: BuiltinOrOp(name, builtin_functions[name], ops[name], keywords)
            for name, keywords in BUILTIN_KEYWORDS.items()}


@lru_cache(maxsize=None)
def modules():
    """The importable top-level modules, by name."""
    import gradcli
    torch, numpy = _engine_facade(gradcli, "torch"), _numpy_facade()
    torch._members["__version__"] = TORCH_VERSION
    from ..serialization import BytesIO  # (a file in memory for torch.save: no bytes in it)
    return {"torch": torch, "numpy": numpy, "math": _math_facade(), "random": _random_facade(),
            "io": Facade("io", {"BytesIO": BytesIO}), "functools": _functools_facade(),
            "copy": LazyFacade("copy", _copy_members)}


def _copy_members():
    from .copying import facade_members
    return facade_members()


@lru_cache(maxsize=None)
def bare_names():
    """Names every program sees without an import: the torch namespace (ops, dtypes, grad
    modes, autograd, ...) and pi, e, inf, nan; where an op shares its name with a math
    function it also computes on Python numbers.  Python's builtins are not shadowed."""
    names = {}
    for name, value in modules()["torch"]._members.items():
        if name in vars(builtins):
            continue
        if callable(value) and name in vars(math) and not isinstance(value, type):
            value = MathStyle(value, getattr(math, name))
        names[name] = value
    names.update(pi=math.pi, e=math.e, inf=math.inf, nan=math.nan)
    from .calculator import calculator_names  # sigmoid(1.5), sec, gamma, ... (issue 21)
    names.update(calculator_names(names))
    return names
