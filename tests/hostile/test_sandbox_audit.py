"""The sandbox audit: every path from a program to a Python object is closed.  Each attack ends
in a one-line `Type: message` (never a traceback, never success), and a walk over everything a
program can reach finds only the engine, allowed NumPy and plain Python values."""

import collections
import types
import warnings

import pytest

from gradcli.lang import allowed, attributes

NOT_ALLOWED = "attributes starting with '_' are not allowed"
NAMES_NOT_ALLOWED = "names starting with '__' are not allowed"
RESERVED = "is a name gradcli reserves for itself"
NOT_AVAILABLE = "is not available in gradcli programs"
NO_MODULE = "is not supported in gradcli programs (programs may import torch, numpy, math, random, functools (partial, reduce), copy and io (its BytesIO))"

# name -> (source, error type, a fragment of the message)
ATTACKS = {
    # ------------------------------------------------------------ dunder and `_` names
    "dunder attribute": ("x.__class__", "AttributeError", NOT_ALLOWED),
    "subclasses walk": ("().__class__.__bases__[0].__subclasses__()", "AttributeError",
                        NOT_ALLOWED),
    "private attribute": ("x._data", "AttributeError", NOT_ALLOWED),
    "mro": ("x.__class__.__mro__", "AttributeError", NOT_ALLOWED),
    "instance dict": ("x.__dict__", "AttributeError", NOT_ALLOWED),
    "builtins name": ("__builtins__", "NameError", NAMES_NOT_ALLOWED),
    "a guard by name": ("_getattr(x, '__class__')", "NameError", RESERVED),
    "the call guard": ("_callable(print)", "NameError", RESERVED),
    "the except guard": ("_caught()", "NameError", RESERVED),
    "module name stored": ("__name__ = 1", "NameError", NAMES_NOT_ALLOWED),
    "assigning a guard's name": ("_getattr = 1", "NameError", RESERVED),
    "a function named as a guard": ("def _expr():\n    pass", "NameError", RESERVED),
    "a parameter named as a guard": ("def k(_callable):\n    pass", "NameError", RESERVED),
    "a lambda parameter named as a guard": ("lambda _op_mul: 1", "NameError", RESERVED),
    "a keyword named as a guard": ("f(_import=1)", "NameError", RESERVED),
    "a class named as a guard": ("class _raisable:\n    pass", "NameError", RESERVED),
    "an import alias named as a guard": ("import torch as _catchable", "NameError", RESERVED),
    "a global named as a guard": ("def k():\n    global _store_target", "NameError", RESERVED),
    "an except name named as a guard": ("try:\n    pass\nexcept Exception as _caught:\n"
                                        "    pass", "NameError", RESERVED),
    "dunder function": ("def __f():\n    pass", "NameError", NAMES_NOT_ALLOWED),
    "dunder parameter": ("def k(__p):\n    pass", "NameError", NAMES_NOT_ALLOWED),
    "underscore from-import": ("from torch import _C", "ImportError",
                               "cannot import name '_C' from 'torch'"),
    "dunder store": ("x.__class__ = int", "AttributeError", NOT_ALLOWED),
    "dunder delete": ("del f.__defaults__", "AttributeError", NOT_ALLOWED),
    "dunder augmented store": ("x.__dict__ += 1", "AttributeError", NOT_ALLOWED),
    # ------------------------------------------------------------ builtins
    **{f"builtin {name}": (f"{name}", "NameError", f"name '{name}' is not defined")
       for name in ("open", "eval", "exec", "getattr", "setattr", "delattr", "vars", "globals",
                    "locals", "compile", "object", "breakpoint", "input", "memoryview", "exit",
                    "quit", "id", "copyright", "credits", "license", "bytearray", "bytes",
                    "BaseException", "KeyboardInterrupt", "SystemExit", "GeneratorExit")},
    "type with 3 arguments": ("type('A', (), {})", "TypeError", "type() with 3 arguments"),
    "a node's class": ("type(y.grad_fn).apply", "AttributeError",
                       "object attribute 'apply' is not available"),
    "super outside a method": ("super(int, 3)", "TypeError", "a class of the program"),
    "a metaclass from type()": ("type(torch.Tensor)('E', (), {})", "TypeError",
                                "'HiddenClass' object is not callable"),
    # (type() of a type, a range, a map or a property is the stand-in of its class that the
    # program's name is: its call is the sandbox's, wherever it is made from)
    "type's own class": ("type(int)('E', (), {})", "TypeError",
                         "type() with 3 arguments is not available"),
    "range past its check": ("type(range(1))(10 ** 18)", "MemoryError", "sequence too long"),
    "map past its check": ("list(type(map(abs, []))(np.ndarray, [(1,)]))", "TypeError",
                           "numpy.ndarray() is not available"),
    "property past its check": ("class P:\n    v = type(property())(np.ndarray)\nP().v",
                                "TypeError", "numpy.ndarray() is not available"),
    "super of an engine class": ("super(torch.Tensor, x).__init__", "TypeError",
                                 "a class of the program"),
    "__import__": ("__import__('os')", "NameError", NAMES_NOT_ALLOWED),
    "object from a class's mro": ("torch.autograd.Function.mro()[-1]()", "AttributeError",
                                  "attribute 'mro' is not available in gradcli programs"),
    # ------------------------------------------------------------ imports
    **{f"import {name}": (f"import {name}", "ImportError", NO_MODULE)
       for name in ("os", "sys", "subprocess", "builtins", "importlib", "ctypes", "pickle",
                    "pathlib", "gradcli", "inspect", "gc", "threading", "signal", "shutil")},
    "from os import": ("from os import system", "ImportError", NO_MODULE),
    # (io is gradcli's facade of one class, an in-memory file for torch.save: no real file)
    "io.open": ("import io\nio.open", "AttributeError", "module 'io' has no attribute 'open'"),
    "io.FileIO": ("from io import FileIO", "ImportError", "cannot import name 'FileIO' from 'io'"),
    "BytesIO's bytes": ("import io\nio.BytesIO('abc')", "TypeError", "takes no initial bytes"),
    "BytesIO's records": ("import io\nio.BytesIO()._records", "AttributeError", NOT_ALLOWED),
    "dotted os": ("import os.path", "ImportError", NO_MODULE),
    "numpy.lib": ("import numpy.lib", "ModuleNotFoundError", "No module named 'numpy.lib'"),
    "numpy.ctypeslib": ("import numpy.ctypeslib as c", "ModuleNotFoundError",
                        "No module named 'numpy.ctypeslib'"),
    "numpy.core": ("from numpy.core import multiarray", "ModuleNotFoundError",
                   "No module named 'numpy.core'"),
    "torch engine": ("import torch.engine", "ModuleNotFoundError",
                     "No module named 'torch.engine'"),
    "from torch import engine": ("from torch import engine", "ImportError",
                                 "cannot import name 'engine' from 'torch'"),
    "np.load by import": ("from numpy import load", "ImportError",
                          "cannot import name 'load' from 'numpy'"),
    "relative import": ("from . import x", "SyntaxError", "invalid syntax"),
    "star import of os": ("from os import *", "ImportError", NO_MODULE),
    # ------------------------------------------------------------ format specs and conversions
    "f-string dunder": ('f"{x.__class__}"', "AttributeError", NOT_ALLOWED),
    "f-string conversion with a dunder spec": ('f"{x!r:{x.__class__}}"', "AttributeError",
                                               NOT_ALLOWED),
    "f-string huge nested width": ("f\"{x!r:{'9' * 9}}\"", "ValueError",
                                   "format width or precision too large"),
    "f-string huge width": ('f"{1:>{10 ** 9}}"', "ValueError",
                            "format width or precision too large"),
    "str.format attribute": ('"{0.__class__}".format(x)', "AttributeError", NOT_ALLOWED),
    "str.format deep attribute": ('"{0.grad_fn.__class__.__mro__}".format(y)',
                                  "AttributeError", NOT_ALLOWED),
    "str.format engine internals": ('"{0.grad_fn.op}".format(y)', "AttributeError",
                                    NOT_AVAILABLE),
    "str.format function globals": ('"{0.__globals__}".format(f)', "AttributeError",
                                    NOT_ALLOWED),
    "format_map": ('"{a.__class__}".format_map({"a": x})', "AttributeError", NOT_ALLOWED),
    "unbound str.format_map": ('str.format_map("{a.__class__}", {"a": x})', "AttributeError",
                               NOT_ALLOWED),
    "unbound str.format": ('str.format("{0.__class__}", x)', "AttributeError", NOT_ALLOWED),
    "format() builtin width": ("format(1, '>1000000000')", "ValueError",
                               "format width or precision too large"),
    "percent width": ('"%999999999d" % 1', "ValueError", "format width or precision too large"),
    "percent star width": ('"%*d" % (10 ** 9, 1)', "ValueError",
                           "format width or precision too large"),
    "bytes percent width": ('"%999999999d".encode() % 1', "ValueError",
                            "format width or precision too large"),
    # ------------------------------------------------------------ NumPy
    **{f"ndarray.{name}": (f"x.detach().numpy().{name}", "AttributeError", NOT_AVAILABLE)
       for name in ("ctypes", "tofile", "dump", "dumps", "base", "data", "view", "flags",
                    "setflags", "tobytes", "resize", "byteswap")},
    "ndarray dunder": ("a.__array_interface__", "AttributeError", NOT_ALLOWED),
    "numpy scalar tofile": ("np.float64(1).tofile('x')", "AttributeError", NOT_AVAILABLE),
    "numpy dtype type": ("np.dtype('f8').type", "AttributeError", NOT_AVAILABLE),
    "numpy class attribute": ("np.ndarray.tofile", "AttributeError", NOT_AVAILABLE),
    **{f"np.{name}": (f"np.{name}", "AttributeError",
                      f"module 'numpy' has no attribute '{name}'")
       for name in ("load", "save", "fromfile", "lib", "ctypeslib", "core", "frombuffer",
                    "memmap", "loadtxt", "savetxt", "genfromtxt", "fromregex", "testing")},
    "ufunc outer": ("np.add.outer", "AttributeError", "has no attribute 'outer'"),
    "numpy random internals": ("np.random.seed.func_globals", "AttributeError",
                               "'function' object has no attribute 'func_globals'"),
    "numpy random state": ("np.random.rand.__self__", "AttributeError", NOT_ALLOWED),
    # ------------------------------------------------------------ grad_fn and hooks
    "grad_fn class": ("y.grad_fn.__class__", "AttributeError", NOT_ALLOWED),
    "grad_fn op": ("y.grad_fn.op", "AttributeError", NOT_AVAILABLE),
    "grad_fn apply": ("y.grad_fn.apply", "AttributeError", NOT_AVAILABLE),
    "grad_fn saved values": ("y.grad_fn.saved_values", "AttributeError", NOT_AVAILABLE),
    "grad_fn release": ("y.grad_fn.release()", "AttributeError", NOT_AVAILABLE),
    "grad_fn chain internals": ("y.grad_fn.next_functions[0][0].op.forward", "AttributeError",
                                NOT_AVAILABLE),
    "grad_fn missing attribute": ("y.grad_fn.saved_tensors", "AttributeError",
                                  "'SumBackward0' object has no attribute 'saved_tensors'"),
    "register_hook internals": ("y.grad_fn.register_hook.__self__", "AttributeError",
                                NOT_ALLOWED),
    "metadata class": ("y.grad_fn.metadata.__class__", "AttributeError", NOT_ALLOWED),
    "storing into a node": ("y.grad_fn.metadata = 1", "AttributeError",
                            "cannot set attribute 'metadata'"),
    "hook handle dict": ("h.__dict__", "AttributeError", NOT_ALLOWED),
    "hook handle internals": ("h._hooks", "AttributeError", NOT_ALLOWED),
    "hook function globals": ("x.register_hook.__func__", "AttributeError", NOT_ALLOWED),
    "method attributes": ("x.backward.func", "AttributeError",
                          "'method' object has no attribute 'func'"),
    # ------------------------------------------------------------ exceptions and statements
    "traceback of a caught exception": ("try:\n    1 / 0\nexcept Exception as e:\n"
                                        "    e.__traceback__", "AttributeError", NOT_ALLOWED),
    "context of a caught exception": ("try:\n    1 / 0\nexcept Exception as e:\n"
                                      "    e.__context__", "AttributeError", NOT_ALLOWED),
    "the object of an AttributeError": ("try:\n    x.nothing\nexcept AttributeError as e:\n"
                                        "    e.obj", "AttributeError", NOT_AVAILABLE),
    "with_traceback": ("ValueError().with_traceback", "AttributeError", NOT_AVAILABLE),
    "raise a BaseException": ("raise ValueError.mro()[-2]", "AttributeError",
                              "attribute 'mro' is not available"),
    "raise a non-exception": ("raise 3", "TypeError", "exceptions must derive from"),
    "catch a non-exception": ("try:\n    1 / 0\nexcept int:\n    pass", "TypeError",
                              "catching classes that do not inherit from BaseException"),
    "a generator's frame": ("def k():\n    yield 1\nk().gi_frame", "AttributeError",
                            NOT_AVAILABLE),
    "await": ("x = await", "SyntaxError", "`await` is not supported"),
    "continue in finally": ("for i in range(3):\n    try:\n        pass\n    finally:\n"
                            "        continue", "SyntaxError",
                            "`continue` in a `finally` block is not supported"),
    # ------------------------------------------------------------ classes
    "class dunder body": ("class A:\n    __slots__ = ()", "NameError", NAMES_NOT_ALLOWED),
    "__init__ outside a class": ("def __init__(self):\n    pass", "NameError",
                                 NAMES_NOT_ALLOWED),
    "__init__ read from an instance": ("class A:\n    def __init__(self):\n        pass\n"
                                       "A().__init__", "AttributeError", NOT_ALLOWED),
    "class dunder method": ("class A:\n    def __getattr__(self, n):\n        return n",
                            "NameError", NAMES_NOT_ALLOWED),
    "class from a builtin": ("class D(dict):\n    pass", "TypeError",
                             "a class may only derive from engine classes"),
    "class from object": ("class D(torch.autograd.Function.mro()[-1]):\n    pass",
                          "AttributeError", "attribute 'mro' is not available in gradcli "
                          "programs"),
    "metaclass": ("class M(torch.autograd.Function, metaclass=abs):\n    pass", "TypeError",
                  "class keywords such as metaclass= are not supported"),
    "ctx internals": ("class F(torch.autograd.Function):\n"
                      "    @staticmethod\n"
                      "    def forward(ctx, t):\n"
                      "        return ctx.__dict__\n"
                      "F.apply(x)", "AttributeError", NOT_ALLOWED),
    "self class in a method": ("class A:\n    def m(self):\n        return self.__class__\n"
                               "A().m()", "AttributeError", NOT_ALLOWED),
    # ------------------------------------------------------------ functions and lambdas
    "lambda default": ("(lambda q=__builtins__: q)()", "NameError", NAMES_NOT_ALLOWED),
    "function defaults": ("f.__defaults__", "AttributeError", NOT_ALLOWED),
    "function code": ("f.__code__", "AttributeError", NOT_ALLOWED),
    "function globals": ("f.__globals__", "AttributeError", NOT_ALLOWED),
    "lambda closure": ("(lambda: x).__closure__", "AttributeError", NOT_ALLOWED),
    "engine function globals": ("torch.Tensor.backward.__globals__", "AttributeError",
                                NOT_ALLOWED),
    "engine function attribute": ("torch.autograd.grad.func_globals", "AttributeError",
                                  "'function' object has no attribute 'func_globals'"),
    "print's session": ("print.__self__", "AttributeError", NOT_ALLOWED),
    "partial internals": ('"{}".format.func', "AttributeError", NOT_AVAILABLE),
    # ------------------------------------------------------------ generators and frames
    "generator frame": ("g.gi_frame", "AttributeError", NOT_AVAILABLE),
    "generator code": ("g.gi_code", "AttributeError", NOT_AVAILABLE),
    "frame globals": ("g.gi_frame.f_globals", "AttributeError", NOT_AVAILABLE),
    "engine generator send": ("torch.nn.Linear(1, 1).parameters().send", "AttributeError",
                              NOT_AVAILABLE),
    "engine generator throw": ("torch.nn.Linear(1, 1).parameters().throw", "AttributeError",
                               NOT_AVAILABLE),
    "program generator throw": ("g.throw(ValueError('thrown'))", "ValueError", "thrown"),
    # ------------------------------------------------------------ torch internals
    "torch dict": ("torch.__dict__", "AttributeError", NOT_ALLOWED),
    "torch private module": ("torch._C", "AttributeError", NOT_ALLOWED),
    "engine package": ("torch.engine", "AttributeError",
                       "module 'torch' has no attribute 'engine'"),
    "lifting the element limit": ("torch.set_element_limit(10 ** 12)", "AttributeError",
                                  "module 'torch' has no attribute 'set_element_limit'"),
    "facade members": ("torch._members", "AttributeError", NOT_ALLOWED),
    "facade members through format": ('"{0._members}".format(torch)', "AttributeError",
                                      NOT_ALLOWED),
    "Function subclasses": ("torch.autograd.Function.__subclasses__()", "AttributeError",
                            NOT_ALLOWED),
    "Function apply internals": ("torch.autograd.Function.apply.__func__", "AttributeError",
                                 NOT_ALLOWED),
    "op forward": ("torch.exp.forward", "AttributeError", NOT_AVAILABLE),
    "op node class": ("torch.add.node_cls", "AttributeError", NOT_AVAILABLE),
    "bare op internals": ("exp.op", "AttributeError", NOT_AVAILABLE),
    "functional internals": ("torch.nn.functional.relu.__globals__", "AttributeError",
                             NOT_ALLOWED),
    "patching an op": ("torch.exp.forward = None", "AttributeError",
                       "cannot set attribute 'forward'"),
    "patching a module": ("torch.tensor = None", "AttributeError",
                          "cannot set attribute 'tensor' of module"),
    "patching numpy": ("np.array = None", "AttributeError",
                       "cannot set attribute 'array' of module"),
    "patching math": ("math.pi = 3", "AttributeError", "cannot set attribute 'pi' of module"),
    "deleting from a module": ("del torch.tensor", "AttributeError",
                               "cannot set attribute 'tensor' of module"),
    "patching str": ("str.format = None", "AttributeError", "cannot set attribute 'format'"),
    "math module internals": ("math.sys", "AttributeError",
                              "module 'math' has no attribute 'sys'"),
}


@pytest.mark.parametrize("source, kind, fragment", ATTACKS.values(), ids=ATTACKS.keys())
def test_attack_ends_in_a_one_line_error(attack, source, kind, fragment):
    error = attack.error(source)
    assert error.type_name == kind, error.headline()
    assert fragment in error.message, error.headline()
    assert attack.survives()


def test_the_session_survives_a_run_of_attacks(attack):
    for source, _, _ in ATTACKS.values():
        attack.error(source)
    assert attack.session.run("x.grad is None and y.item() == 6.0") is True


def test_compiled_programs_never_import_through_python():
    """Program imports go through the `_import` guard; the `__import__` in the program's
    builtins (for NumPy's lazy imports from C) is never reached from program code."""
    from gradcli.lang.syntax import parse_module
    from gradcli.lang.compiler import compile_program
    program = compile_program(parse_module("import torch\nfrom math import *\n"
                                           "import numpy.random as r\n"))
    codes = [program.code]
    while codes:
        code = codes.pop()
        assert not {"IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR"} & _opcodes(code)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))


def _opcodes(code):
    import dis
    return {i.opname for i in dis.get_instructions(code)}


# ---------------------------------------------------------------------- reachability

WALK_SOURCE = """\
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        ctx.note = 'n'
        return t * 2
    @staticmethod
    def backward(ctx, grad):
        return grad * 2
z = F.apply(x).sum()
w = torch.randn(2, 2, requires_grad=True)
v = (w @ x).tanh().sum()
m = map(abs, [1])
s = "{}".format
"""
PROGRAM_MADE = (types.GeneratorType,)     # the prelude's own generator `g`
ALLOWED_MODULES = ("builtins", "functools", "_collections", "numpy", "gradcli", "_cython_")
OBJECT = object                            # classes' mro() ends with it: callable, denied
PER_TYPE = 200                             # instances of one type explored (fresh values)


def reachable(session):
    """Everything a program can reach from its names by attribute (through the guard), item
    and element: (path, object) pairs."""
    roots = [(k, v) for k, v in session.namespace.items() if k != "__builtins__"]
    roots += [(k, v) for k, v in session.namespace["__builtins__"].items() if k[0] != "_"]
    queue, seen, per_type = collections.deque(roots), set(), collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while queue:
            path, obj = queue.popleft()
            if id(obj) in seen or (per_type[type(obj)] >= PER_TYPE and
                                   not isinstance(obj, type)):
                continue
            seen.add(id(obj))
            per_type[type(obj)] += 1
            yield path, obj
            for name in _public_names(obj):
                try:
                    value = attributes.guarded_getattr(obj, name)
                except Exception:
                    continue
                queue.append((f"{path}.{name}", value))
            if isinstance(obj, type) and "mro" in _public_names(obj):
                try:
                    queue.append((f"{path}.mro()", attributes.guarded_getattr(obj, "mro")()))
                except Exception:
                    pass
            if isinstance(obj, (list, tuple, set, frozenset)) and len(obj) < 1000:
                queue.extend((f"{path}[{i}]", v) for i, v in enumerate(obj))
            if isinstance(obj, dict) and len(obj) < 1000:
                queue.extend((f"{path}[{k!r}]", v) for k, v in obj.items())


def _module(cls):
    """The module a class says it is from.  Cython 3.1's function type (NumPy 2.2's, which
    Python 3.10 gets) has a member descriptor as __module__; its repr names the module."""
    module = cls.__module__
    return module if isinstance(module, str) else repr(cls)[len("<class '"):].rpartition(".")[0]


# namedtuple's field getter: collections._tuplegetter, whose __module__ is `_collections`
# up to 3.11 and `collections` from 3.12 on
TUPLEGETTER = type(collections.namedtuple("Pair", "a b").a)


def _public_names(obj):
    try:
        return [n for n in dir(obj) if not n.startswith("_")]
    except Exception:
        return []


def test_everything_a_program_reaches_is_engine_numpy_or_plain_python(attack):
    attack.session.run(WALK_SOURCE)
    count = 0
    for path, obj in reachable(attack.session):
        count += 1
        if isinstance(obj, PROGRAM_MADE) and "." not in path:
            continue
        assert not isinstance(obj, allowed.UNSAFE_TYPES), path
        assert id(obj) not in allowed.DENIED_IDS or obj is OBJECT, path
        assert type(obj) is TUPLEGETTER or _module(type(obj)).startswith(ALLOWED_MODULES), (
            path, type(obj))
        if isinstance(obj, dict):
            assert "__builtins__" not in obj and "__loader__" not in obj, path
    assert count > 1000


def test_the_torch_namespace_holds_only_the_engine():
    """Every member of the torch facade is defined by gradcli (or is a number, a string or a
    facade): a module that imported, say, pathlib.Path without __all__ would hand programs the
    file system.  (Engine classes may carry PyTorch's module names, `torch.autograd...`, for
    their repr; gradcli never imports torch.)"""
    from gradcli.lang.namespace import Facade, modules
    pending = [("torch", modules()["torch"])]
    while pending:
        prefix, facade = pending.pop()
        for name, value in facade._members.items():
            if isinstance(value, Facade):
                pending.append((f"{prefix}.{name}", value))
                continue
            if isinstance(value, (int, float, str)):
                continue
            module = getattr(value, "__module__", None) or type(value).__module__
            assert module.startswith(("gradcli", "torch")), f"{prefix}.{name}"


def test_a_program_function_attribute_does_not_open_the_same_name_elsewhere(attack):
    attack.session.run("def k():\n    pass\nk.op = 1\nk.op")
    error = attack.error("torch.Tensor.backward.op")
    assert error.message == "'function' object has no attribute 'op'"
    attack.session.run("k.func_globals = 2\nk.func_globals")
    assert attack.error("np.random.seed.func_globals").message == (
        "'function' object has no attribute 'func_globals'")
