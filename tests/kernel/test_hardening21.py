"""Issue #17's leftovers (hardening21), closed: regression tests of programs run in-process
(the language wall alone), against PyTorch's answers (golden/test_hardening21.json).

A tensor meeting a NumPy array: PyTorch's operators return NotImplemented for an array (all but
`==`, which compares with the array as a tensor, and the reflected `/`, which is
`reciprocal(t) * a`), so NumPy computes `t + a` (its dtypes, its errors, `requires_grad` refused
by `__array__`) and gives its result back through `Tensor.__array_wrap__` as a tensor (bool as
uint8); `a + t` NumPy defers to the tensor (`__array_priority__`), which refuses it; `t += a`
rebinds t to `t + a`.  Functions refuse an array with the argument parser's wording
(`numpy.ndarray`, the C name of its type).  The element limit still refuses such a result
before NumPy makes it."""

import pytest
from processes import assert_refused_before_made, gradcli_answer as _gradcli_answer
from processes import torch_answer as _torch_answer

pytestmark = pytest.mark.usefixtures("fresh_engine")

T, A = "torch.ones(2)", "np.ones(2)"
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|"]
COMPARISONS = ["==", "!=", "<", "<=", ">", ">="]


def _cases():
    cases = {}
    for op in OPERATORS + COMPARISONS:
        cases[f"t {op} a"] = f"r = {T} {op} {A}"
        cases[f"a {op} t"] = f"r = {A} {op} {T}"
        cases[f"long t {op} long a"] = (f"r = torch.tensor([5, 6]) {op} "
                                        f"np.array([2, 3], dtype=np.int64)")
        cases[f"long a {op} long t"] = (f"r = np.array([5, 6], dtype=np.int64) {op} "
                                        f"torch.tensor([2, 3])")
    for op in OPERATORS:
        cases[f"t {op}= a"] = f"t = {T}\nu = t\nt {op}= {A}\nr = (t, u)"
        cases[f"a {op}= t"] = f"a = {A}\nb = a\na {op}= {T}\nr = (a, b)"
        cases[f"t requiring grad {op} a"] = f"r = torch.ones(2, requires_grad=True) {op} {A}"
        cases[f"a {op} t requiring grad"] = f"r = {A} {op} torch.ones(2, requires_grad=True)"
    cases.update({
        "t @ a": "r = torch.ones(2, 3) @ np.ones((3, 4))",
        "t @ a, vectors": f"r = {T} @ {A}",
        "a @ t": "r = np.ones((2, 3)) @ torch.ones(3, 4)",
        "t @= a": "t = torch.ones(2, 2)\nt @= np.ones((2, 2))\nr = t",
        "t @ a, shapes that do not multiply": "r = torch.ones(2, 3) @ np.ones((4, 4))",
        "t + a, shapes that do not broadcast": f"r = {T} + np.ones(3)",
        "t + a broadcast": "r = torch.ones(2, 1) + np.arange(3.)",
        "t == a broadcast": "r = torch.ones(2, 1) == np.ones(3)",
        "t == a, shapes that do not broadcast": f"r = {T} == np.ones(3)",
        "t == a requiring grad": f"r = torch.ones(2, requires_grad=True) == {A}",
        "a == t requiring grad": f"r = {A} == torch.ones(2, requires_grad=True)",
        "t == a, float32 against float64": "r = torch.ones(2) == np.array([1.00000001, 2.])",
        "t == 0-d a, float32 against float64": "r = torch.ones(1) == np.array(1.00000001)",
        "0-d t == 0-d a": "r = torch.tensor(1.) == np.array(1.00000001)",
        "float t == long a": "r = torch.tensor([2. ** 40]) == np.array([2 ** 40 + 1])",
        "t == reversed a": f"r = {T} == np.arange(2.)[::-1]",
        "bool t + bool a": "r = torch.ones(2, dtype=torch.bool) + np.ones(2, dtype=bool)",
        "float32 t + float32 a": f"r = {T} + np.ones(2, dtype=np.float32)",
        "float32 t + 0-d float64 a": f"r = {T} + np.array(1.)",
        "0-d float32 t + float64 a": f"r = torch.tensor(1.) + {A}",
        "0-d t + 0-d a": "r = torch.tensor(1.) + np.array(2.)",
        "0-d a + t": f"r = np.array(1.) + {T}",
        "long t + float64 a": f"r = torch.ones(2, dtype=torch.long) + {A}",
        "float32 t + int64 a": f"r = {T} + np.ones(2, dtype=np.int64)",
        "half t + int8 a": "r = torch.ones(2, dtype=torch.half) + np.ones(2, dtype=np.int8)",
        "int t * int8 a": "r = torch.ones(2, dtype=torch.int) * np.ones(2, dtype=np.int8)",
        "complex64 t + float64 a": f"r = torch.ones(2, dtype=torch.cfloat) + {A}",
        "t + complex a": f"r = {T} + np.ones(2, dtype=complex)",
        "t + NumPy scalar": f"r = {T} + np.float64(1)",
        "NumPy scalar + t": f"r = np.float64(1) + {T}",
        "long t ** negative long a": "r = torch.tensor([2]) ** np.array([-1])",
        "t // zeros": f"r = {T} // np.zeros(2)",
        "t % a of negatives": "r = torch.tensor([-3.]) % np.array([2.])",
        "a / t rounds as reciprocal(t) * a": "r = np.array([1.]) / torch.tensor([3.])",
        "t + a leaves t": f"t = {T}\nr = (t + {A}, t)",
        "np.sin(t)": f"r = np.sin({T})",
        "np.sin(0-d t)": "r = np.sin(torch.tensor(1.))",
        "np.maximum(t, a)": f"r = np.maximum({T}, {A})",
        "np.sin(t requiring grad)": "r = np.sin(torch.ones(2, requires_grad=True))",
        "torch.add(t, a)": f"r = torch.add({T}, {A})",
        "torch.add(a, t)": f"r = torch.add({A}, {T})",
        "torch.add(t, 0-d a)": f"r = torch.add({T}, np.array(1.))",
        "torch.add(t, NumPy scalar)": f"r = torch.add({T}, np.float64(1))",
        "t.add(a)": f"r = {T}.add({A})",
        "t.add_(a)": f"r = {T}.add_({A})",
        "torch.mul(t, a)": f"r = torch.mul({T}, {A})",
        "torch.matmul(t, a)": f"r = torch.matmul({T}, {A})",
        "torch.maximum(t, a)": f"r = torch.maximum({T}, {A})",
        "torch.logaddexp(t, a)": f"r = torch.logaddexp({T}, {A})",
        "torch.sin(a)": f"r = torch.sin({A})",
        "torch.cat(a)": f"r = torch.cat({A})",
        "torch.einsum of a": f"r = torch.einsum('i,i', {T}, {A})",
        "torch.einsum of a first": f"r = torch.einsum('i,i', {A}, {T})",
        "torch.einsum of a list": f"r = torch.einsum('i,i', [{T}, {A}])",
        "torch.linalg.multi_dot of a": f"r = torch.linalg.multi_dot([{A}, {T}])",
        "torch.cat of a list": f"r = torch.cat([{T}, {A}])",
        "torch.stack of a list": f"r = torch.stack([{A}, {T}])",
        "t.mul_(a)": f"r = {T}.mul_({A})",
        "t.add_(str)": f"r = {T}.add_('a')",
        "torch.mm(a, t)": "r = torch.mm(np.ones((2, 2)), torch.ones(2, 2))",
        "t requiring grad * a, not in place": f"x = torch.ones(2, requires_grad=True)\n"
                                              f"t = x * 1\nt *= {A}\nr = t",
        "scatter_reduce of a": f"r = {T}.scatter_reduce(0, torch.zeros(2, dtype=torch.long), "
                               f"{A}, 'sum')",
        "index_put of a": f"r = {T}.index_put({A}, torch.ones(1))",
        "torch.tensor(a)": f"r = torch.tensor({A})",
        "torch.as_tensor(a)": f"r = torch.as_tensor({A})",
    })
    return cases


CASES = _cases()


@pytest.mark.parametrize("source", CASES.values(), ids=CASES.keys())
def test_a_tensor_meets_an_array_as_in_pytorch(oracle, source):
    """Each operator both ways round, in place, with requires_grad, 0-d operands and mixed
    dtypes, and functions handed an array: PyTorch's result (type, dtype, shape, values) or
    its one-line error."""
    assert _gradcli_answer(source) == oracle(lambda torch: _torch_answer(torch, source))


@pytest.mark.parametrize("source", [
    "torch.ones(2000, 1) + np.ones(1000)", "np.ones(1000) - torch.ones(2000, 1)",
    "torch.ones(2000, 1) == np.ones(1000)", "np.ones(1000) == torch.ones(2000, 1)",
    "np.ones(1000) / torch.ones(2000, 1)", "torch.ones(2000, 2) @ np.ones((2, 1000))",
    "np.maximum(torch.ones(2000, 1), np.ones(1000))",
])
def test_a_tensor_meeting_an_array_is_still_refused_before_it_is_made(source):
    """The element limit holds whoever makes the result (NumPy, then __array_wrap__; or the
    comparison of `t == a` as tensors)."""
    assert_refused_before_made(source)


# ------------------------------------------------------------------ the C++ dtype names

@pytest.mark.parametrize("source", [
    "torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.cfloat), 0.5)",
    "torch.ones(2).masked_fill(torch.ones(2, dtype=torch.cdouble), 1.)",
    "torch.ones(2).masked_fill(torch.ones(2, dtype=torch.short), 1.)",
    "torch.mm(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.half))",
    "torch.mm(torch.ones(2, 2, dtype=torch.cfloat), torch.ones(2, 2, dtype=torch.double))",
    "torch.mm(torch.ones(2, 2, dtype=torch.uint8), torch.ones(2, 2, dtype=torch.long))",
    "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.cfloat)",
    "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.bool)",
])
def test_messages_name_dtypes_as_cpp_does(oracle, source):
    """One table of PyTorch's C++ type names (`c10::complex<float>`, `bool`, `long int`) for
    every message that prints one."""
    source = "r = None\n" + source
    assert _gradcli_answer(source) == oracle(lambda torch: _torch_answer(torch, source))


# ------------------------------------------------------------------ GradientEdge's output_nr

EDGE_SETUP = ("x = torch.ones(2, requires_grad=True)\ny = x * 2\nxs = torch.ones(4, requires_grad=True)\n"
              "a, b = xs.split(2)\nfrom torch.autograd.graph import GradientEdge\n")
EDGE_NUMBERS = {"1": "1", "10**9": "10**9", "2**31": "2**31", "2**63": "2**63", "2**64": "2**64",
                "-2**64": "-2**64", "1.5": "1.5", "True": "True", "str": "'a'"}
EDGE_CASES = {}
for _label, _nr in EDGE_NUMBERS.items():
    EDGE_CASES.update({
        f"construct, output_nr {_label}": f"r = GradientEdge(y.grad_fn, {_nr}).output_nr",
        f"grad outputs=, output_nr {_label}":
            f"r = torch.autograd.grad(GradientEdge(y.grad_fn, {_nr}), x, torch.ones(2))",
        f"grad outputs= without grad_outputs, output_nr {_label}":
            f"r = torch.autograd.grad(GradientEdge(y.grad_fn, {_nr}), x)",
        f"backward tensors=, output_nr {_label}":
            f"r = torch.autograd.backward(GradientEdge(y.grad_fn, {_nr}), torch.ones(2), "
            f"inputs=[x])",
        f"backward inputs=, output_nr {_label}":
            f"r = y.sum().backward(inputs=GradientEdge(y.grad_fn, {_nr}))",
    })
EDGE_CASES.update({
    "grad inputs=, output_nr 2**63": "r = torch.autograd.grad(y.sum(), "
                                     "inputs=GradientEdge(y.grad_fn, 2**63))",
    "grad inputs=, output_nr 1.5": "r = torch.autograd.grad(y.sum(), "
                                   "inputs=GradientEdge(y.grad_fn, 1.5))",
    "grad inputs=, a node that is none": "r = torch.autograd.grad(y.sum(), "
                                         "inputs=GradientEdge(None, 0))",
    "grad outputs=, a node that is none": "r = torch.autograd.grad(GradientEdge(None, 0), x, "
                                          "torch.ones(2))",
    "grad inputs=, the second output of split": "r = torch.autograd.grad((a * b).sum(), "
                                                "inputs=GradientEdge(a.grad_fn, 1))",
    "grad inputs=, the last output": "r = torch.autograd.grad(y.sum(), "
                                     "inputs=GradientEdge(y.grad_fn, 0))",
    "grad outputs=, past split's outputs": "r = torch.autograd.grad(GradientEdge(a.grad_fn, 2), "
                                           "xs, torch.ones(2))",
    "get_gradient_edge": "r = torch.autograd.graph.get_gradient_edge(y).output_nr",
    "materialize_grads with an edge that gets a gradient":
        "r = torch.autograd.grad(y.sum(), inputs=GradientEdge(y.grad_fn, 0), "
        "materialize_grads=True)",
    "materialize_grads with an edge that gets none":
        "z = torch.ones(2, requires_grad=True) * 3\n"
        "r = torch.autograd.grad(y.sum(), inputs=[x, GradientEdge(z.grad_fn, 0)], "
        "materialize_grads=True)",
})


@pytest.mark.parametrize("source", EDGE_CASES.values(), ids=EDGE_CASES.keys())
def test_a_gradient_edge_of_any_output_nr_is_taken_as_in_pytorch(oracle, source):
    """GradientEdge(node, output_nr) is made of any number; PyTorch reads output_nr as an
    int64 where it is an input (TypeError, or ValueError past 64 bits), and as an index of
    `node._input_metadata` (a tuple) where it is an output: its one-line errors, no bare
    IndexError of gradcli's own lists."""
    source = EDGE_SETUP + source
    assert _gradcli_answer(source) == oracle(lambda torch: _torch_answer(torch, source))


@pytest.mark.parametrize("node, nr, expected", [
    ("y.grad_fn", "1", "1 is out of range for MulBackward0, which has 1 output"),
    ("y.grad_fn", "10**9", "1000000000 is out of range for MulBackward0, which has 1 output"),
    ("y.grad_fn", "-1", "-1 is out of range for MulBackward0, which has 1 output"),
    ("y.grad_fn", "True", "1 is out of range for MulBackward0, which has 1 output"),
    ("a.grad_fn", "2", "2 is out of range for SplitBackward0, which has 2 outputs"),
    ("torch.autograd.graph.get_gradient_edge(x).node", "1",
     "1 is out of range for torch::autograd::AccumulateGrad, which has 1 output"),
])
def test_an_input_edge_past_its_nodes_outputs_is_an_index_error(node, nr, expected):
    """autograd.grad(inputs=GradientEdge(node, n)) of an n outside the node's outputs:
    PyTorch 2.13 reads past its node's input metadata (a segmentation fault: no oracle);
    gradcli refuses it before the pass, in one line."""
    source = EDGE_SETUP + f"r = torch.autograd.grad((a * b).sum() + y.sum(), " \
                          f"inputs=GradientEdge({node}, {nr}))"
    assert _gradcli_answer(source) == f"IndexError: GradientEdge output_nr {expected}"


def test_a_gradient_edge_output_of_unknown_shape_says_what_gradcli_takes():
    """(PyTorch 2.13 differentiates from any GradientEdge; gradcli, which keeps no metadata
    of a one-output node's output, tells it for a pointwise op's or a reduction's node and says
    so in one line for another edge made by hand, a view's here.  Edges it knows:
    tests/engine/test_edge_outputs_oracle.py.)"""
    from gradcli.engine import messages
    assert _gradcli_answer(EDGE_SETUP + "v = x.unsqueeze(0)\nr = torch.autograd.grad("
                                        "GradientEdge(v.grad_fn, 0), x, torch.ones(1, 2))") == \
        f"NotImplementedError: {messages.EDGE_OUTPUT}"
