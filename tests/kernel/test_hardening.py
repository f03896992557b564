"""Round 6's leftovers, closed: regression tests of the language wall alone (programs run
in-process through a Session), with the helpers of tests/kernel/test_redteam_round6.py.

Every result is checked against GRADCLI_MAX_ELEMENTS before NumPy makes it (advanced indexing
of tensors, tensors mixed with arrays, comparisons of arrays, the facade's joins, solve and
random draws of array arguments, Jacobians); a tensor handed where an op takes a number is
refused as PyTorch refuses it; iterating an array or a tensor into Python objects is metered
as every list is; a module's `_` names stay in its registries; a tensor's text is metered."""


import pytest
from processes import (assert_refused_before_made as _refused_before_made,
                       program_error as _error, program_output)



pytestmark = pytest.mark.usefixtures("fresh_engine")


# Each makes 8 MB or more (2,000,000 elements of 4 bytes or more, 9,000,000 bools) from inputs
# of a few thousand elements, under an element limit of 100,000 (400 KB of floats).
MADE_BEFORE_CHECKED = {
    "tensor index tensors broadcast": "torch.ones(3, 3)[torch.zeros(2000, 1, dtype=torch.long), "
                                      "torch.zeros(1000, dtype=torch.long)]",
    "tensor index lists broadcast": "torch.ones(3, 3)[[[0]] * 2000, [0] * 1000]",
    "tensor index after a slice": "torch.ones(3, 3)[torch.zeros(2000, 1, dtype=torch.long), :]"
                                  "[..., torch.zeros(1000, dtype=torch.long)]",
    "index_put broadcast": "torch.ones(3, 3).index_put((torch.zeros(2000, 1, dtype=torch.long),"
                           " torch.zeros(1000, dtype=torch.long)), torch.tensor(1.))",
    "index_select": "torch.ones(2000, 1).index_select(1, torch.zeros(1000, dtype=torch.long))",
    "tensor + array": "torch.ones(2000, 1) + np.ones(1000)",
    "tensor * array": "torch.ones(2000, 1) * np.ones(1000)",
    "tensor % array": "torch.ones(2000, 1) % np.ones(1000)",
    "tensor ** array": "torch.ones(2000, 1) ** np.ones(1000)",
    "tensor @ array": "torch.ones(2000, 2) @ np.ones((2, 1000))",
    "facade ufunc of a tensor": "np.maximum(torch.ones(2000, 1), np.ones(1000))",
    "array == array": "np.arange(3000)[:, None] == np.arange(3000)",
    "array != array": "np.ones((3000, 1)) != np.ones(3000)",
    "array >= array": "np.ones((3000, 1)) >= np.ones(3000)",
    "chained comparison": "np.arange(3000)[:, None] < np.arange(3000) < 5",
    "array in array": "np.ones((3000, 1)) in np.ones(3000)",
    "np.stack": "np.stack([np.ones(1000)] * 2000)",
    "np.concatenate": "np.concatenate([np.ones(1000)] * 2000)",
    "np.array of arrays": "np.array([np.ones(1000)] * 2000)",
    "np.random.uniform of arrays": "np.random.uniform(np.zeros((2000, 1)), np.ones(1000))",
    "np.random.normal of arrays": "np.random.normal(np.zeros((2000, 1)), np.ones(1000))",
    "np.linalg.solve batches": "np.linalg.solve(np.ones((1000, 1, 2, 2)) + np.eye(2), "
                               "np.ones((1000, 2, 1)))",
    "torch.linalg.solve batches": "torch.linalg.solve(torch.ones(1000, 1, 2, 2) + torch.eye(2), "
                                  "torch.ones(1000, 2, 1))",
    "torch.linalg.cross broadcast": "torch.linalg.cross(torch.ones(2000, 1, 3), "
                                    "torch.ones(1, 1000, 3))",
    "jacobian": "torch.autograd.functional.jacobian(lambda v: v * 1, torch.ones(1500))",
    "jacobian forward": "torch.autograd.functional.jacobian(lambda v: v * 1, torch.ones(1500), "
                        "vectorize=True, strategy='forward-mode')",
    "hessian": "torch.autograd.functional.hessian(lambda v: (v * v).sum(), torch.ones(1500))",
    "jacrev": "torch.func.jacrev(lambda v: v * 1)(torch.ones(1500))",
    "jacfwd": "torch.func.jacfwd(lambda v: v * 1)(torch.ones(1500))",
}


@pytest.mark.parametrize("source", MADE_BEFORE_CHECKED.values(), ids=MADE_BEFORE_CHECKED.keys())
def test_a_result_over_the_element_limit_is_refused_before_it_is_made(source):
    """`x[i[:, None], j]` of index tensors that broadcast as large as a program likes, `t + a`
    (Tensor.__add__ leaves an array operand to NumPy, which broadcasts them), `a[:, None] ==
    b` (the comparison was checked once NumPy had made it), `np.stack([a] * n)`, a Jacobian's
    rows: refused before the result is made (the peak of traced memory stays under half its
    size), with the one-line element-limit error."""
    _refused_before_made(source)


@pytest.mark.parametrize("source, expected", [
    ("torch.ones(3, 3)[torch.zeros(2, 1, dtype=torch.long), torch.zeros(4, dtype=torch.long)]"
     ".shape", "torch.Size([2, 4])"),
    ("(torch.ones(2, 1) + np.ones(3)).shape", "torch.Size([2, 3])"),
    ("(np.arange(3)[:, None] == np.arange(3)).sum()", "3"),
    ("bool(np.arange(3)[1] < np.arange(3)[2] <= 2)", "True"),
    ("np.stack([np.ones(3)] * 2).shape", "(2, 3)"),
    ("len([*np.ones(5)])", "5"),
])
def test_results_within_the_limit_are_as_before(source, expected):
    assert program_output(f"import torch\nimport numpy as np\nprint({source})\n").strip() == expected


# PyTorch 2.13's answers (golden: torch.nn.functional.elu(torch.ones(3, 1), torch.ones(3)),
# torch.logit(torch.ones(3, 1), torch.ones(3)); a 0-d tensor is taken for the number)
NUMBER_ARGUMENTS = {
    "torch.nn.functional.elu(x, torch.ones(3))":
        "TypeError: elu(): argument 'alpha' (position 2) must be Number, not Tensor",
    "torch.nn.functional.leaky_relu(x, torch.ones(3))":
        "TypeError: leaky_relu(): argument 'negative_slope' (position 2) must be Number, "
        "not Tensor",
    "torch.logit(x, torch.ones(3))":
        "TypeError: logit(): argument 'eps' (position 2) must be Number, not Tensor",
}


@pytest.mark.parametrize("source", NUMBER_ARGUMENTS, ids=["elu", "leaky_relu", "logit"])
def test_a_tensor_where_an_op_takes_a_number_is_refused(source):
    """`elu(x, alpha=t)` broadcast t against x in the op's NumPy code (`alpha * expm1(x)`: the
    op's attributes were never checked to be numbers), to a result as large as the shapes
    make, made before the net in Tensor._make refused it.  PyTorch refuses a tensor of more
    than one dimension there (its message, but `logit`'s 'float', which says the same)."""
    line, _ = _error(f"import torch\nx = torch.ones(3, 1)\nr = {source}\n")
    assert line == NUMBER_ARGUMENTS[source]


def test_a_zero_dimensional_tensor_is_taken_for_a_number():
    out = program_output("import torch\nx = torch.tensor([-1., 0.5])\n"
               "print(torch.equal(torch.nn.functional.elu(x, torch.tensor(2.)), "
               "torch.nn.functional.elu(x, 2.)))\n"
               "print(torch.equal(torch.logit(x.abs(), torch.tensor(0.25)), "
               "torch.logit(x.abs(), 0.25)))\n")
    assert out.split() == ["True", "True"]


# ---------------------------------------------------------------------- one object an item

ITERATED = ["list(a)", "list(t)", "sorted(a)", "[*a]", "[*t]", "tuple(a)", "set(a)",
            "frozenset(t)", "dict.fromkeys(a)", "{}.fromkeys(t)", "list(zip(*a))",
            "list(zip(a))", "list(enumerate(a))", "list(iter(t))", "list(reversed(a))",
            "list(map(float, a))", "list(filter(None, a))", "[x for x in a]",
            "{x: 1 for x in t}", "print(*a)", "' '.join(a)", "sum(a, [])", "set().union(a)",
            "frozenset().union(t)", "set.update(set(), a)", "{1}.issubset(a)",
            "{}.update(zip(a, a))", "torch.Size(t.long())"]


@pytest.mark.parametrize("source", ITERATED)
def test_iterating_a_large_array_or_tensor_into_objects_is_metered(small_limits, source):
    """`list(a)` makes one Python object an element in one C call (a NumPy float, a tensor's
    row): an array of 10 ** 8 elements (under the element limit) would be a list of 10 ** 8
    objects, past GRADCLI_MAX_ITEMS, which `tolist()` and every other list keep to."""
    line, _ = _error("import torch\nimport numpy as np\na = np.zeros(1500)\n"
                     f"t = torch.zeros(1500)\nr = {source}\nfail = 1 / 0\n")
    assert line.startswith("MemoryError: sequence too long"), line


@pytest.mark.parametrize("source", ["x, *r = a", "for x in t:\n    pass", "r = []\nr += a"])
def test_unpacking_and_loops_are_metered(small_limits, source):
    line, _ = _error("import torch\nimport numpy as np\na = np.zeros(1500)\n"
                     f"t = torch.zeros(1500)\n{source}\nfail = 1 / 0\n")
    assert line.startswith("MemoryError: sequence too long"), line


def test_iterating_within_the_limit_is_as_before(small_limits):
    out = program_output("import torch\nimport numpy as np\na = np.arange(5.)\nt = torch.arange(5.)\n"
               "print(len(list(a)), len(sorted(t)), len([*a]), len(dict(zip(a, t))), "
               "len(list(enumerate(t))), len([x for x in a]), len(set(a)))\n"
               "x, *rest = a\nprint(len(rest), isinstance([], list), list(), tuple())\n")
    assert out.split("\n")[:2] == ["5 5 5 5 5 5 5", "4 True [] ()"]


# ---------------------------------------------------------------------- a module's `_` names

MODULE = """import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("_b", torch.ones(2))
        self.register_parameter("_p", torch.nn.Parameter(torch.zeros(1)))
        self.add_module("_x", torch.nn.Linear(1, 1))
        self.register_module("_y", torch.nn.ReLU())
m = M()
"""


def test_a_modules_underscore_members_stay_in_its_registries():
    """PyTorch lets `register_buffer('_mask', t)` (and parameters and modules of `_` names)
    be: state_dict() and named_*() list them, and its snippets keep working.  Here they live in
    the registries only, never as attributes: `add_module('_data', m)` no longer sets the
    attribute the engine reads a tensor's memory through (round 6's forged `shape`)."""
    out = program_output(MODULE + "print(sorted(m.state_dict()))\n"
               "print([n for n, _ in m.named_modules()])\n"
               "print([n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()])\n"
               "print(m.get_buffer('_b'), m.get_submodule('_y'))\n"
               "m.double()\nprint(m.get_buffer('_b').dtype, m.get_parameter('_p').dtype)\n")
    assert out.split("\n")[:5] == [
        "['_b', '_p', '_x.bias', '_x.weight', 'lin.bias', 'lin.weight']",
        "['', 'lin', '_x', '_y']",
        "['_b'] ['_p', 'lin.weight', 'lin.bias', '_x.weight', '_x.bias']",
        "tensor([1., 1.]) ReLU()",
        "torch.float64 torch.float64"]


def test_a_modules_underscore_name_is_no_attribute():
    from gradcli.nn.module import Module
    from gradcli.nn.modules import ReLU
    m = Module()
    m.add_module("_data", ReLU())
    m.register_buffer("_b", None)
    m.register_parameter("_p", None)
    assert not {"_data", "_b", "_p"} & set(vars(m))
    assert ("_data" in m._modules, "_b" in m._buffers, "_p" in m._parameters) == (True,) * 3


def test_the_engines_underscore_attributes_are_no_members():
    line, _ = _error(MODULE + "r = m.get_submodule('_forward_hooks')\n")
    assert line == "AttributeError: M has no attribute `_forward_hooks`"


# ---------------------------------------------------------------------- printing

@pytest.mark.parametrize("options", [
    "threshold=10 ** 12", "threshold=10 ** 12, edgeitems=10 ** 6, linewidth=10 ** 6",
    "profile='full'", "edgeitems=10 ** 6"])
def test_a_huge_print_threshold_is_metered(small_limits, options):
    """`torch.set_printoptions(threshold=huge)` printed a tensor of 10 ** 8 elements whole: a
    list of 10 ** 8 Python floats (`tolist()`) and a text of a gigabyte or more.  Its text
    is metered as every size-growing text: two characters an element shown at least."""
    line, _ = _error(f"import torch\ntorch.set_printoptions({options})\n"
                     "print(torch.zeros(3, 600))\n")
    assert line.startswith("MemoryError: tensor text too long"), line
    assert "GRADCLI_MAX_ITEMS" in line


def test_a_full_print_within_the_limit_is_as_before(small_limits):
    out = program_output("import torch\ntorch.set_printoptions(profile='full')\nprint(torch.zeros(400))\n"
               "torch.set_printoptions(profile='default')\n")
    assert out.count("0.") == 400
