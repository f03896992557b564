"""What a program may name and reach (the allow-lists: builtins, exception classes, operators,
NumPy's attributes) and the registries the guards share (the classes programs made, the engine's
classes and read-only attributes, the op table's types), filled as the language loads
(gradcli.lang.sandbox.static_builtins)."""

import builtins
import functools
import operator
import re
import types
import weakref

from . import limits
from .namespace import Facade

# The special methods a class of the program may define besides __init__: a map-style Dataset's
# (`__len__`, `__getitem__`), an iterator's (`__iter__`, `__next__`), `in` and calling.  Python
# calls them (len(), indexing, for loops, `in`, a call), and they are the program's code, with
# its checks.  No others: __eq__/__hash__ run inside dict and set lookups the engine makes,
# __repr__/__str__ while it words an error, __exit__ could swallow the timeout, __del__ at any
# time.
PROGRAM_DUNDERS = frozenset({"__len__", "__getitem__", "__iter__", "__next__", "__contains__",
                             "__call__"})


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
SAVED_VALUE = r"(_raw)?_saved_[a-z][a-z0-9]*(_[a-z0-9]+)*"  # (compiled at its first use)


def is_saved_value(name):
    return name.startswith(("_saved_", "_raw_saved_")) and bool(re.fullmatch(SAVED_VALUE, name))


def readable_attribute(name):
    """The attribute names starting with `_` that the compiler lets a program read (the sandbox
    then checks the receiver: _readable_underscore)."""
    return name in ("_version", "__version__", "__name__", "__init__") or is_saved_value(name)


# Functions, methods and their kin: a program may read attributes of its own functions (those
# it set), of nothing else: Cython functions show their module's globals (`func_globals`, and
# through them its loader, which reads files), partials their function, and so on.
FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                  types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType,
                  types.ClassMethodDescriptorType, types.GetSetDescriptorType,
                  types.MemberDescriptorType, functools.partial)
# A tensor's attributes that PyTorch does not let a program set (AttributeError: attribute
# 'grad_fn' of 'torch._C.TensorBase' objects is not writable), and the engine's own state that
# has a public name here (requires_grad_flag); static_builtins adds every read-only property
# and slot of the Tensor class.
TENSOR_READ_ONLY = {"T", "mT", "H", "mH", "device", "dtype", "grad_fn", "is_cuda", "is_leaf",
                    "itemsize", "layout", "nbytes", "ndim", "output_nr", "retains_grad",
                    "shape", "requires_grad_flag", "is_sparse", "is_quantized", "is_meta"}


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


# gradcli's own machinery, not the engine a program works with: never shown by type(), never a
# base of a program's class
_MACHINERY = ("gradcli.lang", "gradcli.kernel", "gradcli.cli", "gradcli.analysis",
              "gradcli.render")


def _engine_module(module):
    return isinstance(module, str) and module.startswith("gradcli.") and \
        not module.startswith(_MACHINERY)
