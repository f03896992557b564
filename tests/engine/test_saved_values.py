"""`grad_fn._saved_<name>`: what an op's node saved for its derivative, as PyTorch's nodes show
it (the autograd mechanics page's `y.grad_fn._saved_self`): saved inputs and outputs by the
formula's parameter names, attributes, input shapes; numbers wrapped as PyTorch wraps them;
freed by a backward pass; readable (only) from programs too."""

import io

import numpy as np
import pytest

import gradcli as torch
from gradcli.engine import messages
from gradcli.lang.console import run_piped


def test_a_saved_input_is_the_tensor_itself():
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self) and x is y.grad_fn._saved_self
    assert y.grad_fn._saved_exponent == 2  # a Scalar argument stays a number


def test_a_saved_output_is_a_new_tensor_with_the_node_as_grad_fn():
    x = torch.randn(5, requires_grad=True)
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert y.equal(saved) and y is not saved and saved.grad_fn is y.grad_fn


def test_what_a_node_did_not_save_is_none_and_numbers_are_wrapped():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    assert y.grad_fn._saved_self is None  # other needs no gradient: self is not saved
    assert repr(y.grad_fn._saved_other) == "tensor(2)"
    assert repr((x * 2.5).grad_fn._saved_other) == "tensor(2.5000, dtype=torch.float64)"
    w = torch.ones(3)
    assert (x * w).grad_fn._saved_other is w


def test_attributes_and_shapes():
    x = torch.randn(3, 2, requires_grad=True)
    s = x.sum(0, keepdim=True).grad_fn
    assert s._saved_dim == (0,) and s._saved_keepdim is True and s._saved_self_sym_sizes == (3, 2)
    assert x.softmax(0).grad_fn._saved_dim == 0  # an int in PyTorch's schema: not a tuple
    assert (x + 1).grad_fn._saved_alpha == 1
    assert torch.nn.functional.leaky_relu(x, 0.2).grad_fn._saved_negative_slope == 0.2


def test_saved_tensors_are_freed_by_backward_and_attributes_stay():
    x = torch.randn(3, requires_grad=True)
    y = x.sum(0)
    z = x.sin()
    (y + z.sum()).backward()
    with pytest.raises(RuntimeError) as e:
        z.grad_fn._saved_self
    assert str(e.value) == messages.BACKWARD_TWICE
    assert y.grad_fn._saved_dim == (0,)


def test_a_name_the_node_does_not_have():
    x = torch.randn(3, requires_grad=True)
    with pytest.raises(AttributeError, match="'SinBackward0' object has no attribute "
                                             "'_saved_foo'"):
        x.sin().grad_fn._saved_foo
    assert not hasattr(x.sin().grad_fn, "_saved_other")


def test_a_modified_saved_tensor_is_reported_when_read():
    x = torch.randn(3, requires_grad=True)
    a = x * 1
    y = a.sin()
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.grad_fn._saved_self


def test_programs_read_saved_values():
    out = io.StringIO()
    source = ("import torch\nx = torch.randn(5, requires_grad=True)\ny = x.pow(2)\n"
              "print(x.equal(y.grad_fn._saved_self))\nprint(x is y.grad_fn._saved_self)\n"
              "y = x.exp()\nprint(y.equal(y.grad_fn._saved_result))\n"
              "print(y is y.grad_fn._saved_result)\n")
    assert run_piped(io.StringIO(source), out) == 0
    assert out.getvalue() == "True\nTrue\nTrue\nFalse\n"


CASES = [
    ("x * w", ["_saved_self", "_saved_other"]),
    ("x * 3", ["_saved_other", "_saved_self"]),
    ("x / w", ["_saved_self", "_saved_other"]),
    ("x.pow(3)", ["_saved_self", "_saved_exponent"]),
    ("x ** w", ["_saved_self", "_saved_exponent", "_saved_result"]),
    ("x.exp()", ["_saved_result"]),
    ("x.tanh()", ["_saved_result"]),
    ("x.sin()", ["_saved_self"]),
    ("x.sum(0)", ["_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes"]),
    ("x.amax(1, keepdim=True)", ["_saved_dim", "_saved_keepdim", "_saved_self", "_saved_result"]),
    ("x.softmax(1)", ["_saved_dim", "_saved_result"]),
    ("x.mm(w.t())", ["_saved_self", "_saved_mat2"]),
]


@pytest.mark.parametrize("expr, names", CASES, ids=[c[0] for c in CASES])
def test_saved_values_match_pytorch(expr, names, oracle):
    values = np.random.default_rng(0).uniform(0.5, 2, (2, 3, 3))

    def saved(lib):
        x = lib.tensor(values[0], requires_grad=True)
        w = lib.tensor(values[1], requires_grad=True)
        node = eval(expr, {"x": x, "w": w}).grad_fn
        return [{"tensor": repr(v)} if isinstance(v, lib.Tensor) else v
                for v in (getattr(node, n) for n in names)]
    for n, a, b in zip(names, saved(torch), oracle(saved), strict=True):
        assert a == b, n
