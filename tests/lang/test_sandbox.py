"""A program reaches the engine and nothing else: every escape attempt and runaway input ends in
a one-line `Type: message`, never a traceback, never a hang."""

import io

import pytest

from gradcli.lang.console import run_piped
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session
from tests.interrupts import interrupting_loop

INT_TOO_LARGE = ("OverflowError: integer too large (the limit is 1,000,000 bits; set "
                 "GRADCLI_MAX_INT_BITS to raise it)")
SEQUENCE_TOO_LONG = ("MemoryError: sequence too long (the limit is 10,000,000 items; set "
                     "GRADCLI_MAX_ITEMS to raise it)")
WIDTH_TOO_LARGE = ("ValueError: format width or precision too large (the limit is 1,000,000; "
                   "set GRADCLI_MAX_WIDTH to raise it)")
DTYPE_REFUSED = ("TypeError: NumPy dtype '<U100000000' is not available in gradcli programs "
                 "(numeric and bool arrays only)")
SETUP = "import torch\nimport numpy as np\nx = torch.tensor([1., 2.])\na = np.array([1., 2.])\n"

ESCAPES = {
    "dunder attribute": ("().__class__.__bases__",
                         "AttributeError: attributes starting with '_' are not allowed: "
                         "'__class__'"),
    "instance dict": ("x.__dict__",
                      "AttributeError: attributes starting with '_' are not allowed: '__dict__'"),
    "function globals": ("def f():\n    pass\nf.__globals__",
                         "AttributeError: attributes starting with '_' are not allowed: "
                         "'__globals__'"),
    "underscore name": ("__builtins__",
                        "NameError: names starting with '__' are not allowed: '__builtins__'"),
    "__import__": ("__import__('os')",
                   "NameError: names starting with '__' are not allowed: '__import__'"),
    "getattr": ("getattr(x, 'grad')", "NameError: name 'getattr' is not defined"),
    "eval": ("eval('1')", "NameError: name 'eval' is not defined"),
    "exec": ("exec('1')", "NameError: name 'exec' is not defined"),
    "open": ("open('/etc/passwd')", "NameError: name 'open' is not defined"),
    "type with 3 arguments": ("type('A', (), {})", "TypeError: type() with 3 arguments is not "
                                                   "available in gradcli programs (use a class "
                                                   "statement)"),
    "vars": ("vars()", "NameError: name 'vars' is not defined"),
    "import os": ("import os", "ImportError: `import os` is not supported in gradcli programs (programs may import "
                               "torch, numpy, math, random, functools (partial, reduce), copy and io (its BytesIO))"),
    "from os import": ("from os import system", "ImportError: `import os` is not supported in gradcli programs "
                                                "(programs may import torch, numpy, math, random, functools (partial, reduce), copy and io (its BytesIO))"),
    "import a submodule that is not there": ("import torch.multiprocessing",
                                             "ModuleNotFoundError: No module named "
                                             "'torch.multiprocessing'"),
    "private torch name": ("from torch import _C",
                           "ImportError: cannot import name '_C' from 'torch'"),
    "engine internals": ("torch.engine", "AttributeError: module 'torch' has no attribute "
                                         "'engine'"),
    "lifting the element limit": ("torch.set_element_limit(10 ** 12)",
                                  "AttributeError: module 'torch' has no attribute "
                                  "'set_element_limit'"),
    "np.load": ("np.load('x.npy')", "AttributeError: module 'numpy' has no attribute 'load'"),
    "np.save": ("np.save('x.npy', a)", "AttributeError: module 'numpy' has no attribute 'save'"),
    "np.fromfile": ("np.fromfile('x')",
                    "AttributeError: module 'numpy' has no attribute 'fromfile'"),
    "np.lib": ("np.lib", "AttributeError: module 'numpy' has no attribute 'lib'"),
    "np.ctypeslib": ("np.ctypeslib", "AttributeError: module 'numpy' has no attribute "
                                     "'ctypeslib'"),
    "arr.tofile": ("a.tofile('x')", "AttributeError: 'ndarray' object attribute 'tofile' is not "
                                    "available in gradcli programs"),
    "arr.ctypes": ("a.ctypes", "AttributeError: 'ndarray' object attribute 'ctypes' is not "
                               "available in gradcli programs"),
    "arr.base": ("a.base", "AttributeError: 'ndarray' object attribute 'base' is not available "
                           "in gradcli programs"),
    "numpy scalar tofile": ("np.float64(1).tofile('x')",
                            "AttributeError: 'float64' object attribute 'tofile' is not "
                            "available in gradcli programs"),
    "tensor.numpy().dump": ("x.numpy().dump('x')",
                            "AttributeError: 'ndarray' object attribute 'dump' is not "
                            "available in gradcli programs"),
    "str.format attribute field": ("'{0.__class__}'.format(1)",
                                   "AttributeError: attributes starting with '_' are not "
                                   "allowed: '__class__'"),
    "unbound str.format": ("str.format('{0.__class__}', 1)",
                           "AttributeError: attributes starting with '_' are not allowed: "
                           "'__class__'"),
    "format_map": ("'{a.__class__}'.format_map({'a': 1})",
                   "AttributeError: attributes starting with '_' are not allowed: '__class__'"),
    "f-string dunder": ('f"{x.__class__}"',
                        "AttributeError: attributes starting with '_' are not allowed: "
                        "'__class__'"),
    "generator frame": ("g = (i for i in range(3))\ng.gi_frame",
                        "AttributeError: 'generator' object attribute 'gi_frame' is not "
                        "available in gradcli programs"),
    "class from a builtin": ("class D(dict):\n    pass",
                             "TypeError: a class may only derive from engine classes such as "
                             "torch.autograd.Function, torch.nn.Module or Exception, not "
                             "<class 'dict'>"),
    "metaclass": ("class M(torch.autograd.Function, metaclass=abs):\n    pass",
                  "TypeError: class keywords such as metaclass= are not supported in gradcli "
                  "programs"),
    "patching the engine": ("torch.exp.forward = None",
                            "AttributeError: cannot set attribute 'forward' of 'Op' object in "
                            "gradcli programs"),
    "patching a module": ("torch.tensor = None",
                          "AttributeError: cannot set attribute 'tensor' of module in gradcli "
                          "programs"),
    "a saved value's name on a tensor": ("x._saved_self",
                                         "AttributeError: attributes starting with '_' are "
                                         "not allowed: '_saved_self'"),
    "a node's internal saved state": ("w = x.requires_grad_()\n(w * 2).grad_fn._saved_in",
                                      "AttributeError: 'MulBackward0' object has no attribute "
                                      "'_saved_in'"),
    "writing a saved value": ("y = x.requires_grad_().exp()\ny.grad_fn._saved_result = x",
                              "AttributeError: attributes starting with '_' are not allowed: "
                              "'_saved_result'"),
    "a saved value's name in str.format": ("'{0._saved_self}'.format(x)",
                                           "AttributeError: attributes starting with '_' are "
                                           "not allowed: '_saved_self'"),
    "huge power": ("2 ** 10 ** 10",
                   INT_TOO_LARGE),
    "huge pow()": ("pow(10, 10 ** 9)", INT_TOO_LARGE),
    "huge repetition": ("[0] * 10 ** 12", SEQUENCE_TOO_LONG),
    "huge string": ("'ab' * 10 ** 10", SEQUENCE_TOO_LONG),
    "huge range": ("list(range(10 ** 12))", SEQUENCE_TOO_LONG),
    "huge factorial": ("import math\nmath.factorial(10 ** 7)",
                       "OverflowError: factorial() argument too large (the limit is 100,000; "
                       "set GRADCLI_MAX_INT_ARGUMENT to raise it)"),
    "huge format width": ("f'{1:>10000000000}'", WIDTH_TOO_LARGE),
    "huge padding": ("'x'.ljust(10 ** 10)", WIDTH_TOO_LARGE),
    "huge numpy array": ("np.zeros((10 ** 6, 10 ** 6))",
                         "MemoryError: array of 1000000000000 elements exceeds the limit of "
                         "100000000 elements (set GRADCLI_MAX_ELEMENTS to raise it)"),
    "huge numpy broadcast": ("np.ones((10 ** 5, 1)) + np.ones(10 ** 5)",
                             "MemoryError: array of 10000000000 elements exceeds the limit of "
                             "100000000 elements (set GRADCLI_MAX_ELEMENTS to raise it)"),
    "huge numpy dtype": ("np.ones(10, dtype='U100000000')", DTYPE_REFUSED),
    "huge astype": ("a.astype('U100000000')", DTYPE_REFUSED),
    "deep recursion": ("def r(n):\n    return r(n + 1)\nr(0)",
                       "RecursionError: maximum recursion depth exceeded (the limit is 1,000 "
                       "calls; set GRADCLI_MAX_RECURSION to raise it)"),
    "deeply nested parentheses": ("x = " + "(" * 1000 + ")" * 1000,
                                  "SyntaxError: too many nested parentheses (the limit is 200; "
                                  "set GRADCLI_MAX_NESTING to raise it) (line 1, column 205)"),
}


def piped(source):
    out = io.StringIO()
    assert run_piped(io.StringIO(SETUP + source + "\n\n"), out) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize("source, expected", ESCAPES.values(), ids=ESCAPES.keys())
def test_escape_is_a_one_line_error(source, expected):
    lines = piped(source)
    assert lines[0] == expected
    assert len(lines) == (3 if expected.startswith("SyntaxError") else 1)


def test_endless_loop_stops_at_the_timeout(run):
    error = run.error("while True:\n    pass", timeout=0.2)
    assert error.format() == ["TimeoutError: program ran longer than 0.2 s (raise the limit "
                              "with --timeout)"]


def test_ctrl_c_stops_a_program_and_keeps_the_session(run):
    with interrupting_loop(lambda: run.session.namespace.get("n", 0)):
        with pytest.raises(KeyboardInterrupt):
            run.session.run("n = 0\nwhile True:\n    n += 1", timeout=30)
    assert run.session.run("n > 0") is True


def test_ctrl_c_in_piped_mode_reports_keyboard_interrupt():
    out = io.StringIO()
    session = Session(out=out)
    with interrupting_loop(lambda: session.namespace.get("n", 0)):
        run_piped(io.StringIO("n = 0\nwhile True:\n    n += 1\n\nn > 0\n"), out, session)
    assert out.getvalue() == "KeyboardInterrupt\nTrue\n"


def test_attribute_stores_reach_tensors_contexts_and_program_objects(run):
    assert run("import torch\nx = torch.tensor(1.)\nx.requires_grad = True\nx.note = 'n'\n"
               "class C:\n    pass\nC.k = 1\ndef f():\n    pass\nf.calls = 0\n"
               "print(x.requires_grad, x.note, C.k, f.calls)") == "True n 1 0\n"


def test_safe_numpy_attributes_work(run):
    assert run("import numpy as np\na = np.array([[1., 2.]])\n"
               "print(a.shape, a.dtype, a.T.tolist(), a.sum(), a.astype(np.float32).dtype)") == (
        "(1, 2) float64 [[1.0], [2.0]] 3.0 float32\n")


def test_format_reaches_public_attributes_only(run):
    assert run("print('{0.real} {k[0]}'.format(3, k=[7]))") == "3 7\n"


def test_errors_are_program_errors_with_a_position(run):
    error = run.error("x = 1\ny = x +\\\n  undefined")
    assert isinstance(error, ProgramError)
    assert (error.type_name, error.message, error.line) == ("NameError",
                                                            "name 'undefined' is not defined", 3)


def test_the_throwaway_name_underscore_is_allowed_and_reaches_nothing():
    import io

    from gradcli.lang.console import run_piped
    out = io.StringIO()
    source = ("for _ in range(2):\n    print(_)\n\n_ = 5\n_ + 1\n_.__class__\n_x = 1\n"
              "_x + 1\n__x = 1\n")
    assert run_piped(io.StringIO(source), out) == 0
    assert out.getvalue().splitlines() == [
        "0", "1", "6", "AttributeError: attributes starting with '_' are not allowed: '__class__'",
        "2", "NameError: names starting with '__' are not allowed: '__x'"]


def test_every_guard_is_a_name_programs_may_not_use():
    """A program that could assign a guard's name would replace the guard in its namespace."""
    from gradcli.lang.sandbox import GUARD_NAMES, static_builtins
    guards = {n for n in static_builtins() if n.startswith("_") and not n.startswith("__")}
    assert guards <= GUARD_NAMES, guards - GUARD_NAMES


@pytest.mark.parametrize("body, message", [
    ("class S(torch.Tensor):\n    _data = property(lambda self: 1)",
     "class S cannot redefine '_data' of torch.Tensor in gradcli programs"),
    ("class S(torch.Tensor):\n    shape = (64, 64)",
     "class S cannot redefine 'shape' of torch.Tensor in gradcli programs"),
    ("class P(torch.Tensor):\n    pass\nclass S(P):\n    def stride(self):\n        return 1",
     "class S cannot redefine 'stride' of torch.Tensor in gradcli programs"),
    ("class M(torch.nn.Module):\n    def _convert(self, x):\n        return x",
     "class M cannot redefine '_convert' of Module in gradcli programs"),
])
def test_a_class_cannot_redefine_what_the_engine_reads(run, body, message):
    # the engine reads a tensor's memory through its attributes, and its classes' internals
    # through `_` names: a program's subclass may add to them, never replace them
    error = run.error("import torch\n" + body)
    assert error.format()[0] == "TypeError: " + message + error.format()[0].split(message)[1]


def test_subclasses_add_methods_and_override_what_they_are_for(run):
    assert run("import torch\n"
               "class S(torch.Tensor):\n"
               "    def twice(self):\n"
               "        return self * 2\n"
               "class M(torch.nn.Module):\n"
               "    def __init__(self):\n"
               "        super().__init__()\n"
               "        self.lin = torch.nn.Linear(2, 1)\n"
               "    def forward(self, x):\n"
               "        return self.lin(x).shape\n"
               "class F(torch.autograd.Function):\n"
               "    @staticmethod\n"
               "    def forward(ctx, x):\n"
               "        return x * 2\n"
               "    @staticmethod\n"
               "    def backward(ctx, g):\n"
               "        return g * 2\n"
               "print(S([1.]).twice(), M()(torch.ones(2)), F.apply(torch.ones(1)))\n") == \
        "tensor([2.]) torch.Size([1]) tensor([2.])\n"


def test_the_read_only_tensor_attributes_are_what_getattr_static_finds():
    """static_builtins finds Tensor's read-only attributes by walking its MRO's dictionaries
    (asking inspect.getattr_static for each name was ~3 ms of every first session): the same
    answer as getattr_static for every public name that dir() lists."""
    import inspect
    import types
    import gradcli
    from gradcli.lang import allowed, attributes, sandbox
    sandbox.static_builtins()
    tensor = gradcli.Tensor
    expected = set()
    for name in dir(tensor):
        attribute = inspect.getattr_static(tensor, name, None)
        if name[0] != "_" and (isinstance(attribute, types.MemberDescriptorType) or
                               isinstance(attribute, property) and attribute.fset is None):
            expected.add(name)
    listed = {"T", "mT", "H", "mH", "device", "dtype", "grad_fn", "is_cuda", "is_leaf",
              "itemsize", "layout", "nbytes", "ndim", "output_nr", "retains_grad", "shape",
              "requires_grad_flag", "is_sparse", "is_quantized", "is_meta"}  # (sandbox's own)
    assert allowed.TENSOR_READ_ONLY == (listed | expected) - {"data", "grad", "requires_grad",
                                                              "name"}
    assert attributes._read_only_tensor_attributes(tensor) == allowed.TENSOR_READ_ONLY
