"""Red team, round 15: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session), on session 26's surface:
the special methods a program's class may define, called by Python itself rather than by the
program's checked call."""

import os
import subprocess
import sys

import pytest
from processes import ROOT, program_error, program_output
from test_redteam_round11 import _assert_pytorchs
from test_redteam_round14 import HEX   # int() of these: 4,000,000 bits, the limit 1,000,000


pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- special methods

RAW_SPECIAL_METHODS = [
    # a decorator's result bound as the method: Python calls it without the object
    f"class A:\n    @lambda f: int\n    def __call__(self): pass\nx = A()({HEX})",
    f"class A:\n    @lambda f: int\n    def __init__(self): pass\nx = A({HEX})",
    # a property's value is what Python calls
    f"class A:\n    @property\n    def __call__(self):\n        return int\nx = A()({HEX})",
    # a subclass inherits what its base bound
    f"class A:\n    @lambda f: int\n    def __call__(self): pass\nclass B(A): pass\n"
    f"x = B()({HEX})",
]


@pytest.mark.parametrize("source", RAW_SPECIAL_METHODS, ids=range(len(RAW_SPECIAL_METHODS)))
def test_a_special_method_is_held_to_the_callable_check(source):
    """`@lambda f: int` on `def __call__` bound Python's `int` itself as A.__call__, which
    Python calls as `int(*args)` for `A()(...)`: not the sandbox's metered int (the compiled
    call checks the object A(), not what Python calls for it), and `int("f" * 10 ** 6, 16)`
    made a 4,000,000-bit integer past GRADCLI_MAX_INT_BITS; a property's value likewise.
    Expected: what Python calls is what the program's own call would be (the OverflowError of
    the limit)."""
    error, _ = program_error(f"{source}\nprint(x.bit_length())\n")
    assert error.startswith("OverflowError: integer too large"), error


@pytest.mark.usefixtures("small_limits")
def test_a_special_method_list_is_metered():
    """`@lambda f: list` on __getitem__: `A()[a]` made a list of an array's 1,500 items under an
    item limit of 1,000 (list() of an array past the limit, that the program's own call
    refuses)."""
    error, _ = program_error("import numpy as np\nclass A:\n    @lambda f: list\n"
                             "    def __getitem__(self): pass\n"
                             "x = A()[np.zeros(1500)]\nprint(len(x))\n")
    assert error.startswith("MemoryError: sequence too long"), error


DECORATED_SPECIAL_METHODS = [
    # (what a program may do with them, as Python and PyTorch do it)
    "class A:\n    @staticmethod\n    def __call__(x): return x * 2\nprint(A()(3))",
    "class A:\n    @classmethod\n    def __call__(cls, x): return cls.__name__ * x\n"
    "print(A()(2))",
    "class A:\n    @property\n    def __call__(self): return lambda x: x + 1\nprint(A()(3))",
    "class A:\n    @torch.no_grad()\n    def __call__(self, x): return x * 2\n"
    "y = A()(torch.ones(2, requires_grad=True))\nprint(y, y.requires_grad)",
    "class A:\n    @lambda f: len\n    def __call__(self): pass\nprint(A()([1, 2, 3]))",
    "class A:\n    @lambda f: abs\n    def __getitem__(self): pass\nprint(A()[-4])",
    "class A:\n    @lambda f: int\n    def __call__(self): pass\nprint(A()('ff', 16))",
    "class A:\n    @lambda f: list\n    def __call__(self): pass\nprint(A()(range(3)))",
    "class A:\n    def __len__(self): return 2\n    def __getitem__(self, i):\n"
    "        if i > 1: raise IndexError(i)\n        return i\nprint(len(A()), list(A()))",
]


@pytest.mark.parametrize("source", DECORATED_SPECIAL_METHODS,
                         ids=range(len(DECORATED_SPECIAL_METHODS)))
def test_decorated_special_methods_work_as_pythons(oracle, source):
    _assert_pytorchs(oracle, source)


ENDLESS_IN_C = [
    "class A:\n    @lambda f: abs\n    def __getitem__(self): pass\nprint(sum(A()))",
    "class A:\n    def __iter__(self): return self\n    @lambda f: (0).bit_length\n"
    "    def __next__(self): pass\nprint(sum(A()))",
    "class A:\n    @staticmethod\n    @lambda f: abs\n    def __getitem__(self): pass\n"
    "print(sum(A()))",
]


@pytest.mark.parametrize("source", ENDLESS_IN_C, ids=range(len(ENDLESS_IN_C)))
def test_a_special_method_of_c_meets_the_timeout(source):
    """A special method that is a function of C (`abs` as __getitem__: Python iterates such an
    object by calling it with 0, 1, 2, ...) made `sum(A())` a loop in C that ran no Python
    code: the timeout's signal was never handled and the program ran on, for ever (`list(A())`
    filled the memory).  Expected: the timeout's error after its 1 s (the child is given 60)."""
    code = ("import io, sys\nfrom gradcli.lang.session import Session\n"
            "from gradcli.lang.errors import ProgramError\n"
            "try:\n    Session(out=io.StringIO()).run(sys.argv[1], timeout=1)\n"
            "except ProgramError as e:\n    print(e.format()[0])\n")
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        result = subprocess.run([sys.executable, "-c", code, source], capture_output=True,
                                text=True, env=environment, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the program ran on past its timeout")
    assert result.stdout.startswith("TimeoutError: program ran longer than 1 s"), result


# ---------------------------------------------------------------------- yield from an object

DELEGATE = """class A:
    def __init__(self):
        self.n = 0
    def __iter__(self):
        return self
    def __next__(self):
        self.n += 1
        if self.n > 3:
            raise StopIteration(self.n)
        return self.n
    def close(self):
        print("closed")
    def send(self, v):
        print("sent", v)
        return v * 10
def g():
    r = yield from A()
    print("returned", r)
    yield "after"
"""


def test_a_collected_generator_runs_no_close_of_its_delegate():
    """`yield from A()` of an object with a close method: the collector's close of the
    generator (here in a reference cycle, collected while the program makes a list later) called
    A.close, the program's code, wherever the collection happened (in the engine's machinery,
    after the program's time).  Expected: as a finally block there, it does not run."""
    out = program_output(DELEGATE + "x = g()\nnext(x)\ncycle = [x]\ncycle.append(cycle)\n"
                         "del x, cycle\nkept = [[k] for k in range(3000)]\nprint('end')\n")
    assert out == "end\n"


DELEGATIONS = [
    "x = g()\nprint(next(x), x.send(5), next(x))\nx.close()",
    "x = g()\nprint(next(x))\ntry:\n    x.throw(ValueError('v'))\nexcept ValueError as e:\n"
    "    print('raised', e)",
    "print(list(g()))",
    "class B(A):\n    def throw(self, *a):\n        print('throw', a)\n        return 7\n"
    "def h():\n    yield from B()\ndef gg():\n    yield from h()\n"
    "y = h()\nnext(y)\nprint(y.throw(KeyError('k')))\ny.close()\nz = gg()\nnext(z)\nz.close()",
]


@pytest.mark.parametrize("source", DELEGATIONS, ids=range(len(DELEGATIONS)))
def test_yield_from_an_object_works_as_pythons(oracle, source):
    """(send, throw and the program's close reach the object, as in Python)"""
    _assert_pytorchs(oracle, DELEGATE + source)


def test_an_engine_generator_behind_an_object_gets_no_throw():
    """`yield from A()` whose __iter__ gives an engine generator (model.parameters()): the
    program's throw reached that generator's code, which `yield from model.parameters()` keeps
    it from (an iterator of its own in between).  Expected: the same for both routes (the
    engine's generator goes on after the throw)."""
    out = program_output("import torch\nm = torch.nn.Linear(2, 2)\np = m.parameters()\n"
                         "class A:\n    def __iter__(self):\n        return p\n"
                         "def g(x):\n    yield from x\nfor source in [p, A()]:\n"
                         "    x = g(source)\n    print(next(x).shape)\n    try:\n"
                         "        x.throw(ValueError('v'))\n    except ValueError as e:\n"
                         "        print('raised', e)\n    print(next(p, 'finished').shape)\n"
                         "    p = m.parameters()\n")
    assert out == "torch.Size([2, 2])\nraised v\ntorch.Size([2])\n" * 2
