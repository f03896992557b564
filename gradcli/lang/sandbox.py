"""The guards compiled programs call, and the restricted builtins they run with.

A program reaches Python objects only through these guards (their names start with `_`, which
no program can write): attribute reads go through `guarded_getattr`, attribute stores through
`store_target`, calls through `guarded_call`, operators through the checked operator table,
imports through `import_module`/`import_from`, class statements through `build_class`.  So a
program can touch the engine, NumPy arrays (a safe subset of their attributes) and plain Python
values, and nothing else: no dunder attribute, no frame, no module other than the facades."""

import builtins
import functools
import operator
import string
import types
import weakref
from _string import formatter_field_name_split

from . import limits
from .namespace import Facade, bare_names, modules

PROGRAM_CLASSES = weakref.WeakSet()      # classes created by programs (may be subclassed)
UNSAFE_TYPES = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType,
                types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
DENIED_BUILTINS = ("eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "vars",
                   "globals", "locals", "__import__", "__build_class__", "input", "breakpoint",
                   "help", "exit", "quit", "memoryview", "type", "super", "object")
DENIED_IDS = frozenset(id(getattr(builtins, n)) for n in DENIED_BUILTINS if hasattr(builtins, n))
NUMPY_ATTRIBUTES = frozenset((
    "shape", "dtype", "ndim", "size", "T", "tolist", "item", "sum", "mean", "std", "var", "prod",
    "min", "max", "argmin", "argmax", "cumsum", "cumprod", "all", "any", "astype", "reshape",
    "flatten", "ravel", "copy", "transpose", "squeeze", "round", "clip", "dot", "trace",
    "diagonal", "nonzero", "sort", "argsort", "conj", "real", "imag", "itemsize", "nbytes",
    "name", "kind", "fill"))
SAFE_BUILTINS = ("abs", "all", "any", "bin", "bool", "callable", "chr", "classmethod",
                 "complex", "dict", "divmod", "enumerate", "filter", "float", "frozenset",
                 "hash", "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map",
                 "max", "min", "next", "oct", "ord", "property", "repr", "reversed", "round",
                 "set", "slice", "sorted", "staticmethod", "str", "sum", "tuple", "zip")

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
    return (cls.__module__ or "").partition(".")[0] == "numpy"


# ---------------------------------------------------------------------- attributes

def guarded_getattr(obj, name):
    """obj.name for a program."""
    if name.startswith("_"):
        raise AttributeError(f"attributes starting with '_' are not allowed: '{name}'")
    if isinstance(obj, Facade):
        return getattr(obj, name)
    if (isinstance(obj, str) or obj is str) and name in STRING_METHODS:
        method = STRING_METHODS[name]
        return method if obj is str else functools.partial(method, obj)
    if isinstance(obj, UNSAFE_TYPES) or (_is_numpy(obj) and name not in NUMPY_ATTRIBUTES):
        raise _not_available(obj, name)
    if name == "astype" and _is_numpy(obj):
        return functools.partial(_astype, obj)
    value = getattr(obj, name)
    if isinstance(value, UNSAFE_TYPES) or id(value) in DENIED_IDS:
        raise _not_available(obj, name)
    return value


def _astype(array, dtype, *args, **kwargs):
    limits.check_dtypes((dtype,))
    return array.astype(dtype, *args, **kwargs)


def _may_set_attributes(obj):
    from ..engine.function import FunctionCtx
    from ..engine.tensor import Tensor
    if isinstance(obj, (Tensor, FunctionCtx)) or type(obj) in PROGRAM_CLASSES:
        return True
    if isinstance(obj, type):
        return obj in PROGRAM_CLASSES
    return isinstance(obj, types.FunctionType) and not (obj.__module__ or "").startswith(
        ("gradcli", "numpy"))


def store_target(obj, name):
    """obj itself, if a program may set (or delete) its attribute `name`."""
    if _may_set_attributes(obj):
        return obj
    kind = "module" if isinstance(obj, Facade) else f"'{type(obj).__name__}' object"
    raise AttributeError(f"cannot set attribute '{name}' of {kind} in gradcli programs")


# ---------------------------------------------------------------------- strings

class SafeFormatter(string.Formatter):
    """str.format whose fields reach attributes through guarded_getattr, with bounded widths."""

    def get_field(self, field_name, args, kwargs):
        first, rest = formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            obj = guarded_getattr(obj, key) if is_attribute else obj[key]
        return obj, first

    def format_field(self, value, format_spec):
        limits.check_format_spec(format_spec)
        return format(value, format_spec)


def _format(template, /, *args, **kwargs):
    return SafeFormatter().vformat(template, args, kwargs)


def _format_map(template, mapping):
    return SafeFormatter().vformat(template, (), mapping)


def _padding(method):
    def pad(s, width, *args):
        if width > limits.MAX_WIDTH:
            limits.check_format_spec(str(width))
        return method(s, width, *args)
    return pad


def _replace(s, old, new, count=-1):
    if len(new) > len(old):
        occurrences = (len(s) + 1 if not old else s.count(old))
        if count >= 0:
            occurrences = min(occurrences, count)
        limits.check_items(len(s) + occurrences * (len(new) - len(old)))
    return s.replace(old, new, count)


STRING_METHODS = {"format": _format, "format_map": _format_map, "replace": _replace,
                  "ljust": _padding(str.ljust), "rjust": _padding(str.rjust),
                  "center": _padding(str.center), "zfill": _padding(str.zfill),
                  "expandtabs": _padding(str.expandtabs)}


def format_field(value, conversion, spec):
    """One f-string field: `{value!conversion:spec}`."""
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    limits.check_format_spec(spec)
    return format(value, spec)


def safe_format(value, format_spec=""):
    limits.check_format_spec(format_spec)
    return format(value, format_spec)


# ---------------------------------------------------------------------- calls and operators

def guarded_call(func, /, *args, **kwargs):
    """func(*args, **kwargs) for a program."""
    if id(func) in DENIED_IDS:
        raise TypeError(f"{getattr(func, '__name__', 'this function')}() is not available in "
                        f"gradcli programs")
    return func(*args, **kwargs)


def _binary(check, operation):
    def guard(a, b):
        check(a, b)
        return operation(a, b)
    return guard


def inplace(op, a, b):
    """`a op= b` (the in-place operation where the type has one, as in Python)."""
    _, _, operation, check = OPERATORS[op]
    check(a, b)
    return operation(a, b)


def inplace_attr(obj, name, op, value):
    target = store_target(obj, name)
    setattr(target, name, inplace(op, guarded_getattr(obj, name), value))


def inplace_item(obj, key, op, value):
    obj[key] = inplace(op, obj[key], value)


def safe_range(*args):
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = limits.MAX_ITEMS + 1
    limits.check_items(n)
    return r


def safe_pow(base, exp, mod=None):
    if mod is not None:
        return pow(base, exp, mod)
    limits.check_pow(base, exp)
    return pow(base, exp)


# ---------------------------------------------------------------------- imports and classes

ALLOWED_MODULES = "torch, numpy and math"


def import_module(dotted, leaf):
    """`import a.b.c`: the facade of a.b.c when leaf (`as` given), else of a."""
    parts = dotted.split(".")
    top = modules().get(parts[0])
    if top is None:
        raise ImportError(f"import of '{parts[0]}' is not allowed (programs may import "
                          f"{ALLOWED_MODULES})")
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
    return cls.__module__.startswith("gradcli.") and not issubclass(cls, BaseException)


def build_class(body, name, *bases, **keywords):
    """The class statement: bases must be engine classes or classes of the program."""
    if keywords:
        raise TypeError("class keywords such as metaclass= are not supported in gradcli "
                        "programs")
    for base in bases:
        if not (isinstance(base, type) and (base in PROGRAM_CLASSES or _engine_class(base))):
            raise TypeError(f"a class may only derive from engine classes such as "
                            f"torch.autograd.Function, not {base!r}")
    cls = builtins.__build_class__(body, name, *bases)
    PROGRAM_CLASSES.add(cls)
    return cls


# ---------------------------------------------------------------------- the builtins

@functools.lru_cache(maxsize=None)
def static_builtins():
    """The builtins every session shares: bare names, safe builtins and the guards."""
    names = dict(bare_names())
    names.update({n: getattr(builtins, n) for n in SAFE_BUILTINS})
    names.update(range=safe_range, pow=safe_pow, format=safe_format)
    names.update({guard: _binary(check, operation)
                  for guard, operation, _, check in OPERATORS.values()})
    names.update(_getattr=guarded_getattr, _store_target=store_target, _call=guarded_call,
                 _inplace=inplace, _inplace_attr=inplace_attr, _inplace_item=inplace_item,
                 _import=import_module, _import_from=import_from, _format_field=format_field,
                 __build_class__=build_class, __name__="__main__")
    return names


def program_builtins(print_function, expression_hook, import_star):
    """The builtins of one session: the static ones plus its print, its expression-statement
    hook (echo and recording) and `from m import *` (which binds into its namespace)."""
    names = dict(static_builtins())
    names.update(print=print_function, _expr=expression_hook, _import_star=import_star)
    return names
