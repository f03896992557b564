"""Attacks on `import copy`: Python's copy.deepcopy would call each object's reduce and
setstate protocol (objects of the engine's made without their constructor), keep the original
of everything it copied in a memo that the program may hand in and read back (a module's
registries among them), and run as long as the copied object is large.  gradcli's copies only
what it knows (gradcli/lang/copying.py), refuses the rest with Python's TypeError, and its copies
meet the timeout and the recursion limit."""

import io

import pytest
from processes import program_error

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

PRELUDE = ("import torch, copy\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
           "m = torch.nn.Linear(2, 1)\n")


def test_a_memo_of_the_programs_is_refused():
    """(Python's deepcopy stores the originals it copied under id(memo): a module's _parameters
    dict, which the program could then change behind Module.__setattr__)"""
    line, _ = program_error(PRELUDE + "memo = {}\ncopy.deepcopy(m, memo)\nprint(memo)\n")
    assert line.startswith("TypeError: copy.deepcopy(x, memo) is not supported"), line


@pytest.mark.parametrize("thing, name", [
    ("y.grad_fn", "SumBackward0"), ("x.register_hook(lambda g: g)", "RemovableHandle"),
    ("torch", "module"), ("torch.nn", "module"), ("(i for i in [1])", "generator"),
    ("torch.Generator()", "Generator"), ("torch.autograd.graph.get_gradient_edge(y)", None),
    ("torch.no_grad()", "no_grad"),
])
@pytest.mark.parametrize("function", ["copy", "deepcopy"])
def test_what_is_not_known_is_refused_with_pythons_error(thing, name, function):
    line, _ = program_error(PRELUDE + f"copy.{function}({thing})\n")
    assert line.startswith("TypeError: cannot pickle '"), line
    if name is not None:
        assert line == f"TypeError: cannot pickle '{name}' object"


@pytest.mark.parametrize("source, name", [
    ("class G(torch.autograd.Function):\n    pass\nthing = G()\n", "G"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, t):\n"
     "        copy.deepcopy(ctx)\n        return t * 2\n    @staticmethod\n"
     "    def backward(ctx, g):\n        return g\nthing = F.apply(x)\n", "FBackward"),
    ("class A:\n    pass\nthing = A()\nthing.gen = (i for i in [1])\ncopy.deepcopy([thing])\n",
     "generator"),
    ("class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.t = torch\nthing = M()\n", "module"),
])
def test_objects_the_engine_makes_are_never_made_without_their_constructor(source, name):
    line, _ = program_error(PRELUDE + source + "copy.deepcopy(thing)\n")
    assert line == f"TypeError: cannot pickle '{name}' object"


def test_a_copy_of_a_modules_registries_is_no_way_into_them():
    source = (PRELUDE + "twin = copy.deepcopy(m)\nshallow = copy.copy(m)\n"
              "print(twin.weight is m.weight, shallow.weight is m.weight)\n"
              "print(sorted(k for k, _ in twin.named_parameters()))\n")
    out = io.StringIO()
    Session(out=out).run(source, timeout=10)
    assert out.getvalue() == "False True\n['bias', 'weight']\n"
    line, _ = program_error(PRELUDE + "copy.deepcopy(m)._parameters\n")
    assert line.startswith("AttributeError: attributes starting with '_' are not allowed")


@pytest.mark.parametrize("source, error", [
    ("items = list(range(10 ** 7))\ncopy.deepcopy([items, list(items)])\n", "TimeoutError"),
    ("nested = []\nfor i in range(5000):\n    nested = [nested]\ncopy.deepcopy(nested)\n",
     "RecursionError"),
    ("nested = []\nfor i in range(5000):\n    nested = {'k': nested}\ncopy.copy(nested)\n"
     "copy.deepcopy(nested)\n", "RecursionError"),
])
def test_a_copy_meets_the_timeout_and_the_recursion_limit(source, error):
    """(1 s for the copy that would run on, 30 s for the others: a loaded machine)"""
    with pytest.raises(ProgramError) as e:
        Session(out=io.StringIO()).run(PRELUDE + source,
                                       timeout=1 if error == "TimeoutError" else 30)
    assert e.value.type_name == error


def test_a_tensor_subclass_of_the_programs_is_refused_as_pytorch_refuses_it():
    line, _ = program_error(PRELUDE + "class T(torch.Tensor):\n    pass\nt = T([1., 2.])\n"
                                      "copy.deepcopy(t)\n")
    assert line.startswith("RuntimeError: The default implementation of __deepcopy__() for "
                           "non-wrapper subclasses only works"), line
