"""Red team, round 7: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator).  The numpy
facade sized the results of its functions from the shapes of their arguments, and took those
shapes with np.shape, which makes an array of a list first: a list of arrays (`[a] * 1000`,
1,000 references) is stacked, concatenated or made an array before any check, and the
functions whose result is not a broadcast of their arguments (a `*_like` given `shape=`, the
random draws whose parameters broadcast) made theirs unchecked.  A program could set on a
tensor, or on a custom Function's ctx, the attributes the engine's classes define: a tensor's
methods (the engine's own metering calls `t.numel()`), and ctx's graph edges, output count and
`apply`, which the backward pass reads (PyTorch's are read-only there); what a program put in
`ctx.to_save` reached the engine unchecked."""


import pytest
from processes import (assert_refused_before_made as _refused_before_made,
                       program_error as _error, program_output)



pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- the numpy facade

# each makes 10 ** 6 elements (8 MB) from inputs of a few thousand, under an element limit of
# 10 ** 5
MADE_FIRST = {
    "np.stack of a list": "np.stack([np.ones(1000)] * 1000)",
    "np.concatenate of a list": "np.concatenate([np.ones(1000)] * 1000)",
    "np.array of a list": "np.array([np.ones(1000)] * 1000)",
    "np.asarray of a list": "np.asarray([np.ones(1000)] * 1000)",
    "np.add of a list": "np.add([np.ones(1000)] * 1000, 1.0)",
    "np.zeros_like shape=": "np.zeros_like(1.0, shape=(1000, 1000))",
    "np.ones_like shape=": "np.ones_like(np.ones(3), shape=(1000, 1000))",
    "np.full_like shape=": "np.full_like(1.0, 2.0, shape=(1000, 1000))",
    "np.full_like shape at its place": "np.full_like(1.0, 2.0, None, 'K', True, (1000, 1000))",
    "np.random.normal broadcast": "np.random.normal(np.zeros(1000), np.ones((1000, 1)))",
    "np.random.uniform broadcast": "np.random.uniform(np.zeros(1000), np.ones((1000, 1)))",
    "np.random.randint broadcast": "np.random.randint(np.zeros(1000, np.int64), "
                                   "np.ones((1000, 1), np.int64))",
    "ndarray + a list": "np.ones(1000) + [np.ones(1000)] * 1000",
    "a list - ndarray": "[np.ones(1000)] * 1000 - np.ones(1000)",
    "ndarray @ a list": "np.ones((1000, 1)) @ [[1.0] * 1000]",
}


@pytest.mark.parametrize("source", MADE_FIRST.values(), ids=MADE_FIRST.keys())
def test_the_numpy_facade_refuses_a_result_before_it_is_made(source):
    """`np.stack([a] * 10 ** 4)` of an array of 10 ** 7 elements is 10 ** 11 floats (800 GB)
    from a list of 10,000 references: the facade's size check took the arguments' shapes with
    np.shape, which makes the whole array of a list first; `np.zeros_like(1.0, shape=...)`
    and `np.random.normal(loc, scale)` with parameters that broadcast were never sized at all
    (only their arguments' shapes, or `size=`); the operators' checks of an ndarray and a list
    took the list's shape with np.shape too.  Expected: refused before NumPy allocates (the
    peak of traced memory stays under the result's size)."""
    _refused_before_made(source)


SMALL_ENOUGH = {
    "np.stack": ("np.stack([np.ones(3)] * 2).shape", "(2, 3)"),
    "np.concatenate": ("np.concatenate([np.ones(3), [1, 2]]).shape", "(5,)"),
    "np.array nested": ("np.array([[1, 2], [3, 4]]).sum()", "10"),
    "np.array of a scalar": ("np.array(2.5).ndim", "0"),
    "np.zeros_like shape=": ("np.zeros_like(np.ones(3), shape=(2, 2)).shape", "(2, 2)"),
    "np.full_like": ("np.full_like(np.ones(3), 7).sum()", "21.0"),
    "np.random.normal": ("np.random.normal(np.zeros(3), np.ones((2, 1))).shape", "(2, 3)"),
    "np.random.normal size": ("np.random.normal(0, 1, size=(4, 5)).shape", "(4, 5)"),
    "np.random.randint": ("np.random.randint(0, 5, 7).shape", "(7,)"),
    "np.add broadcast": ("np.add([[1], [2]], [1, 2, 3]).shape", "(2, 3)"),
}


@pytest.mark.parametrize("source, shown", SMALL_ENOUGH.values(), ids=SMALL_ENOUGH.keys())
def test_the_numpy_facade_still_makes_what_is_under_the_limit(source, shown):
    assert program_output(f"import numpy as np\nprint({source})\n") == shown + "\n"


# a tensor meets an ndarray: the tensor's operator declines it, and NumPy computes the
# broadcast (1,000 by 1,000 from 2,000 elements)
TENSOR_AND_NDARRAY = {symbol: f"torch.ones(1000) {symbol} np.ones((1000, 1))"
                      for symbol in ("*", "+", "-", "/", "//", "%", "**")}
TENSOR_AND_NDARRAY.update({
    "@": "torch.ones(1000, 1) @ np.ones((1, 1000))",
    "&": "torch.ones(1000, dtype=torch.bool) & np.ones((1000, 1), bool)",
    "|": "torch.ones(1000, dtype=torch.bool) | np.ones((1000, 1), bool)",
    "Parameter": "torch.nn.Parameter(torch.ones(1000), requires_grad=False) * "
                 "np.ones((1000, 1))"})


@pytest.mark.parametrize("source", TENSOR_AND_NDARRAY.values(), ids=TENSOR_AND_NDARRAY.keys())
def test_a_tensor_and_an_ndarray_are_checked_before_numpy_computes(source):
    """`torch.ones(10 ** 5) * np.ones((10 ** 5, 1))`: the operator's guard let a tensor
    operand through unchecked (the engine limits tensors itself), but Tensor's operator returns
    NotImplemented for an ndarray, and NumPy's reflected operator computed the broadcast, 10 **
    10 floats (80 GB) that no check saw (a Parameter's went to a check that passed tensors
    over).  Expected: refused before NumPy allocates."""
    _refused_before_made(source)


def test_a_tensor_and_an_ndarray_still_compute():
    assert program_output("import torch\nimport numpy as np\nr = torch.ones(3) * np.ones((2, 1))\n"
                "print(r.shape, (torch.ones(2, 3) @ np.ones((3, 1))).shape, "
                "(np.ones(3) * 2.0).sum(), (torch.ones(3) % np.ones(3)).sum())\n") == \
        "torch.Size([2, 3]) torch.Size([2, 1]) 6.0 tensor(0., dtype=torch.float64)\n"


# ---------------------------------------------------------------------- the engine's attributes

def test_a_tensor_method_cannot_be_replaced_on_the_tensor(small_limits):
    """`t.numel = lambda: 1` put a function in the tensor's __dict__ in front of Tensor's
    method; the engine's own code calls `t.numel()` (tolist's metering: a tensor of 10 ** 8
    elements became a list of 10 ** 8 floats, 3 GB, past GRADCLI_MAX_ITEMS).  Expected: a
    tensor's attributes that its engine class defines are set only through the engine's own
    setters (data, grad, requires_grad); names of the program's own stay settable."""
    line, _ = _error("import torch\nt = torch.zeros(1500)\nt.numel = lambda: 1\n"
                     "r = t.tolist()\n")
    assert line == "AttributeError: attribute 'numel' of 'torch._C.TensorBase' objects is " \
                   "not writable", line
    assert program_output("import torch\nt = torch.ones(2)\nt.note = 'mine'\nt.data = torch.zeros(2)\n"
                "t.requires_grad = True\nprint(t.note, t.tolist())\n") == "mine [0.0, 0.0]\n"


def test_a_subclass_method_of_the_program_stays_settable():
    """What the program's own subclass of Tensor defines is the program's to replace."""
    assert program_output("import torch\nclass T(torch.Tensor):\n    def f(self):\n        return 1\n"
                "t = T(torch.ones(2))\nt.f = lambda: 2\nprint(t.f())\n") == "2\n"


FUNCTION = ("import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n"
            "    def forward(ctx, x):\n{forward}        return x * 2\n    @staticmethod\n"
            "    def backward(ctx, g):\n        return g\n"
            "x = torch.ones(3, requires_grad=True)\ny = F.apply(x)\n")

ENGINE_STATE = {
    "next_functions": "z = torch.ones(50, requires_grad=True)\n"
                      "y.grad_fn.next_functions = ((z.sum().grad_fn.next_functions[0][0], 0),)\n"
                      "y.sum().backward()\nprint(z.grad.shape)",
    "num_outputs": "y.grad_fn.num_outputs = 10 ** 9\n(y * 3).sum().backward()",
    "apply": "y.grad_fn.apply = lambda grads: [5]\n(y * 3).sum().backward()",
    "name": "y.grad_fn.name = lambda: 'forged'\nprint(y.grad_fn.name())",
    "delete": "del y.grad_fn.release",
}


@pytest.mark.parametrize("source", ENGINE_STATE.values(), ids=ENGINE_STATE.keys())
def test_a_function_ctx_keeps_the_engines_attributes(source):
    """A custom Function's ctx is its graph node, and a program could set on it what the engine
    reads in the backward pass: `next_functions` sent x's gradient to another tensor's
    AccumulateGrad (a gradient of 3 elements became the `.grad` of a tensor of 50),
    `num_outputs = 10 ** 9` made the engine build a list of a billion entries (8 GB, past
    every limit but the memory rlimit), `apply` handed the engine the program's objects as
    gradients.  PyTorch's are read-only (C getters, or never looked up in the instance).
    Expected: PyTorch's error."""
    line, _ = _error(FUNCTION.format(forward="") + source + "\n")
    assert line.startswith("AttributeError: attribute '") and \
        line.endswith("' of 'torch._C._FunctionBase' objects is not writable"), line


def test_a_function_ctx_takes_what_pytorch_lets_a_program_set():
    """ctx's own attributes (ctx.k), and those PyTorch's ctx lets a program set (to_save,
    needs_input_grad, ...), stay settable."""
    out = program_output(FUNCTION.format(forward="        ctx.k = 3\n        ctx.to_save = (x,)\n"
                                       "        ctx.needs_input_grad = (True,)\n"
                                       "        ctx.set_materialize_grads(False)\n") +
               "print(y.grad_fn.k, len(y.grad_fn.saved_tensors))\n")
    assert out == "3 1\n"


def test_ctx_to_save_holds_tensors_only():
    """`ctx.to_save` set directly skipped save_for_backward's check: the engine packed a list
    as a tensor (`AttributeError: 'list' object has no attribute '_counter'`, the engine's
    internals).  Expected: PyTorch's error, when forward ends."""
    line, _ = _error(FUNCTION.format(forward="        ctx.to_save = ([1, 2],)\n"))
    assert line == "TypeError: save_for_backward can only save variables, but argument 0 is " \
                   "of type list", line


JACOBIANS = {
    "reverse": "jacobian(lambda v: v.repeat(40), {x})",
    "reverse, vectorize": "jacobian(lambda v: v.repeat(40), {x}, vectorize=True)",
    "forward": "jacobian(lambda v: v.repeat(40), {x}, vectorize=True, "
               "strategy='forward-mode')",
    "hessian": "hessian(lambda v: (v ** 3).sum(), {x})",
}
FUNC_TRANSFORMS = {
    "jacrev": "torch.func.jacrev(lambda v: v.repeat(40))(torch.ones(500))",
    "jacfwd": "torch.func.jacfwd(lambda v: v.repeat(40))(torch.ones(500))",
    "hessian": "torch.func.hessian(lambda v: (v ** 3).sum())(torch.ones(500))",
    "vmap": "torch.func.vmap(lambda a: a.repeat(40))(torch.ones(500, 500 // 10))",
    "vmap of a product": "torch.func.vmap(lambda a: a * torch.ones(500))(torch.ones(2000))",
}


@pytest.mark.parametrize("source", JACOBIANS.values(), ids=JACOBIANS.keys())
def test_a_jacobian_over_the_element_limit_is_refused_before_its_rows(source):
    """torch.autograd.functional.jacobian (and `gradcli jacobian`, `hessian`) computes a block
    row by row (a gradient per element of the output) and stacks the rows at the end, where
    the element limit refused it: `gradcli jacobian "y = x.repeat(10)" --at
    "x=torch.ones(10000)"` kept 10 ** 5 gradients of 10 ** 4 elements (4 GB) for minutes
    first; the forward mode made its batch of one-hot tangents with NumPy unchecked.
    Expected: refused before the rows are computed (the peak of traced memory stays under
    the block's size, 20,000 by 500 here)."""
    _refused_before_made("torch.autograd.functional." +
                         source.format(x="torch.ones(500, requires_grad=True)"), most=800_000)


@pytest.mark.parametrize("source", FUNC_TRANSFORMS.values(), ids=FUNC_TRANSFORMS.keys())
def test_a_transform_over_the_element_limit_is_refused_before_its_samples(source):
    """torch.func's jacrev, jacfwd and hessian compute a row per element of the output, and
    vmap a result per sample, all kept until the stack at the end, where the element limit
    refused it (`jacrev(lambda v: v.repeat(40))(torch.ones(500))` ran ten seconds first, 10 **
    7 elements of rows).  Expected: refused once the first output is known."""
    _refused_before_made(source, most=800_000)
