"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu and disable_saved_tensors_hooks: what
is packed and unpacked, in which order, in which place of the graph, and the errors; the same
snippets against PyTorch when it is installed."""

import contextlib
import io

import numpy as np
import pytest

import gradcli
from gradcli.engine import messages
from gradcli.lang.console import run_piped

graph = gradcli.autograd.graph


def logging_hooks(log):
    def pack(t):
        log.append(("pack", t.tolist(), t.grad_fn.name() if t.grad_fn else None))
        return t

    def unpack(t):
        log.append(("unpack", t.tolist(), t.grad_fn.name() if t.grad_fn else None))
        return t
    return pack, unpack


def test_packs_in_the_order_the_formulas_name_what_they_save():
    log = []
    a = gradcli.ones(3, requires_grad=True)
    b = gradcli.ones(3, requires_grad=True) * 2
    with graph.saved_tensors_hooks(*logging_hooks(log)):
        y = a * b
    y.sum().backward()
    # mul's formulas: d/dself = g * other, d/dother = g * self (PyTorch saves `other` first)
    assert log == [("pack", [2.0] * 3, "MulBackward0"), ("pack", [1.0] * 3, None),
                   ("unpack", [2.0] * 3, "MulBackward0"), ("unpack", [1.0] * 3, None)]
    np.testing.assert_array_equal(a.grad._data, [2, 2, 2])
    np.testing.assert_array_equal(b.grad_fn.next_functions[0][0].variable.grad._data, [2, 2, 2])


def test_a_packed_value_of_any_kind_comes_back_in_the_saved_tensors_place():
    x = gradcli.ones(3, requires_grad=True)
    unpacked = []

    def unpack(p):
        unpacked.append(p[0])
        return gradcli.tensor(p[1])
    with graph.saved_tensors_hooks(lambda t: ("packed", t.tolist()), unpack):
        z = x.exp()
        w = z.sin()
    saved = z.grad_fn._saved_result
    assert saved.grad_fn is z.grad_fn and w.grad_fn._saved_self.grad_fn is z.grad_fn
    w.sum().backward()
    assert unpacked == ["packed"] * 4
    np.testing.assert_allclose(x.grad._data, np.cos(np.e) * np.e * np.ones(3), rtol=1e-6)


def test_create_graph_through_an_unpacked_leaf_reaches_the_leaf():
    x = gradcli.tensor([0.5, 1.0], dtype=gradcli.float64, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x * x * x).sum()
    (g,) = gradcli.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(g._data, 3 * x._data ** 2)
    np.testing.assert_allclose(x.grad._data, 6 * x._data)


def test_in_place_changes_are_not_checked_for_hooked_tensors():
    x = gradcli.ones(3, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        u = x * 1
        v = u.sin()
    u.add_(1)
    v.sum().backward()  # PyTorch does not check either: the hooks own the saved value
    np.testing.assert_allclose(x.grad._data, np.cos(2.0) * np.ones(3), rtol=1e-6)


def test_only_the_innermost_hooks_apply_and_only_inside_the_context():
    log = []
    x = gradcli.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
        with graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
            x.sin()
        x.cos()
    x.tan()
    with gradcli.no_grad(), graph.saved_tensors_hooks(lambda t: log.append("no grad") or t,
                                                      lambda t: t):
        x.sin()  # nothing is saved without a graph
    assert log == ["inner", "outer"]


def test_hooks_run_with_grad_mode_off_and_custom_functions_are_packed():
    log = []

    class Triple(gradcli.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a / a

    x = gradcli.ones(2, requires_grad=True)
    with graph.saved_tensors_hooks(
            lambda t: log.append(("pack", gradcli.is_grad_enabled())) or t,
            lambda t: log.append(("unpack", gradcli.is_grad_enabled())) or t):
        r = Triple.apply(x)
    r.sum().backward()
    assert log == [("pack", False), ("unpack", False)]
    np.testing.assert_array_equal(x.grad._data, [3, 3])


def test_save_on_cpu_gives_the_same_gradients():
    x = gradcli.tensor([0.1, 0.2], requires_grad=True)
    for pin_memory in (False, True):
        x.grad = None
        with graph.save_on_cpu(pin_memory=pin_memory):
            y = (x.sin() * x.exp()).sum()
        y.backward()
        expected = np.cos(x._data) * np.exp(x._data) + np.sin(x._data) * np.exp(x._data)
        np.testing.assert_allclose(x.grad._data, expected, rtol=1e-6)


def test_errors():
    x = gradcli.ones(3, requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
        v = (x * 1).sin()
    with pytest.raises(TypeError) as e:
        v.sum().backward()
    assert str(e.value) == messages.UNPACK_HOOK_NOT_TENSOR.format(type="int")

    def modifies(t):
        t.add_(1)
        return t
    with pytest.raises(RuntimeError) as e:
        with graph.saved_tensors_hooks(modifies, lambda t: t):
            (x * 1).sin()
    assert str(e.value) == messages.PACK_HOOK_INPLACE

    with graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again afterwards
        pass

    @graph.disable_saved_tensors_hooks("not in f")
    def f():
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    with pytest.raises(RuntimeError, match="not in f"):
        f()


def test_reprs():
    hooks = graph.saved_tensors_hooks(lambda t: t, lambda t: t)
    assert repr(graph.saved_tensors_hooks) == "<class 'torch.autograd.graph.saved_tensors_hooks'>"
    assert repr(hooks).startswith("<torch.autograd.graph.saved_tensors_hooks object at 0x")
    assert repr(graph.save_on_cpu()).startswith("<torch.autograd.graph.save_on_cpu object at 0x")


SNIPPET = """\
import torch
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
with torch.autograd.graph.saved_tensors_hooks(lambda t: ("packed", t.tolist()), lambda p: torch.tensor(p[1])):
    z = a.exp()
    w = z.sin()
print(z.grad_fn._saved_result)
print(w.grad_fn._saved_self)
w.sum().backward()
print(a.grad)
"""


def test_the_tutorial_snippet_in_a_program():
    out = io.StringIO()
    assert run_piped(io.StringIO(SNIPPET), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["Packing tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)",
                         "Packing tensor([1., 1., 1., 1., 1.], requires_grad=True)",
                         "Unpacking tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)",
                         "Unpacking tensor([1., 1., 1., 1., 1.], requires_grad=True)"]


def assert_prints_as_pytorch(snippet, oracle):
    """snippet, run as a program, prints what it prints under PyTorch (exec'd)."""
    def printed(torch):
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            exec(snippet, {"torch": torch, "__name__": "snippet"})
        return text.getvalue()
    out = io.StringIO()
    assert run_piped(io.StringIO(snippet), out) == 0
    assert out.getvalue() == oracle(printed)


def test_the_tutorial_snippet_matches_pytorch(oracle):
    assert_prints_as_pytorch(SNIPPET, oracle)


# ------------------------------------------------------------------ grad_fn._raw_saved_<name>

def test_hooks_of_one_saved_tensor():
    log = []
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    assert repr(raw).startswith("<torch._C._autograd.SavedTensor object at 0x")
    raw.register_hooks(lambda t: log.append(("pack", t.requires_grad)) or t * 1,
                       lambda t: log.append("unpack") or t)
    assert log == [("pack", False)]  # at once, with the saved tensor's data
    assert y.grad_fn._saved_self is not x and log[-1] == "unpack"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad._data, [2, 4])
    with pytest.raises(RuntimeError) as e:
        raw.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value) == messages.RAW_SAVED_FREED


def test_raw_saved_errors_and_outputs():
    x = gradcli.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError) as e:
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value) == messages.RAW_SAVED_NONE  # x * 2 saves no self
    packed = []
    y.grad_fn._raw_saved_other.register_hooks(lambda t: packed.append(repr(t)) or t, lambda t: t)
    assert packed == ["tensor(2)"]
    with pytest.raises(RuntimeError) as e:
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    assert str(e.value) == messages.RAW_SAVED_HOOKS_TWICE
    with pytest.raises(TypeError, match=r"register_hooks\(\): incompatible function arguments"):
        y.grad_fn._raw_saved_other.register_hooks(1, 2)
    z = x.exp()
    z.grad_fn._raw_saved_result.register_hooks(lambda t: None, lambda t: x.detach() * 0 + 5)
    result = z.grad_fn._saved_result
    assert result.grad_fn is z.grad_fn and result.tolist() == [5.0, 5.0]
    with pytest.raises(AttributeError):
        z.grad_fn._raw_saved_dim
    assert {"_raw_saved_result", "_saved_result"} <= set(dir(z.grad_fn))


def test_raw_saved_hooks_in_a_program():
    out = io.StringIO()
    source = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = x.pow(2)\n"
              "y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t * 10)\n"
              "y.sum().backward()\nprint(x.grad)\n")
    assert run_piped(io.StringIO(source), out) == 0
    assert out.getvalue() == "tensor([20., 40.])\n"



RAW_SNIPPET = """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
s = x.sin()
raw = s.grad_fn._raw_saved_self
print(raw.data is x, raw.unpack() is x, raw.unpack_hook)
h = x * 3
y = h.sin()
raw = y.grad_fn._raw_saved_self
def unpack(p):
    print("unpack", p[0])
    return p[1] / 10
raw.register_hooks(lambda t: ("packed", t * 10), unpack)
print(raw.data, raw.unpack_hook is unpack)
print(raw.unpack())
with torch.autograd.graph.saved_tensors_hooks(lambda t: ("ctx", t), lambda p: p[1]):
    q = h * h
print(q.grad_fn._raw_saved_self.data, q.grad_fn._raw_saved_self.unpack_hook is not None)
b = x * 2.5
print(b.grad_fn._raw_saved_other.data, b.grad_fn._raw_saved_other.unpack())
c = x * torch.tensor(3.)
print(c.grad_fn._raw_saved_self.data, c.grad_fn._raw_saved_self.unpack(), c.grad_fn._raw_saved_self.unpack_hook)
w = x.exp()
print(w.grad_fn._raw_saved_result.data)
g = x * 1
v = g.cos()
with torch.no_grad():
    g = g.add_(1)
print(v.grad_fn._raw_saved_self.data)
y.sum().backward()
print(raw.data, raw.unpack_hook)
"""


def test_raw_saved_data_unpack_and_hook():
    out = io.StringIO()
    assert run_piped(io.StringIO(RAW_SNIPPET), out) == 0
    assert out.getvalue().splitlines() == [
        "True True None",
        "('packed', tensor([30., 60.])) True",
        "unpack packed", "tensor([3., 6.], grad_fn=<MulBackward0>)",
        "('ctx', tensor([3., 6.], grad_fn=<MulBackward0>)) True",  # (the tensor itself)
        "tensor(2.5000, dtype=torch.float64) tensor(2.5000, dtype=torch.float64)",
        "None None None",
        "tensor([2.7183, 7.3891])",
        "tensor([2., 3.], grad_fn=<MulBackward0>)",  # modified in place: data does not check
        "unpack packed",  # (the backward pass)
        "None None"]  # freed by it


def test_raw_saved_data_unpack_and_hook_match_pytorch(oracle):
    assert_prints_as_pytorch(RAW_SNIPPET, oracle)


def raw_unpack_errors(torch):
    """The errors of SavedTensor.unpack(): a saved output, an input modified in place, a saved
    tensor the backward pass freed."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    g = x * 1
    v = g.cos()
    with torch.no_grad():
        g.add_(1)
    w = x.exp()
    y = (x * 3).sin()
    raw = y.grad_fn._raw_saved_self
    y.sum().backward()
    errors = []
    for unpack in (w.grad_fn._raw_saved_result.unpack, v.grad_fn._raw_saved_self.unpack,
                   raw.unpack):
        with pytest.raises(RuntimeError) as e:
            unpack()
        errors.append(str(e.value))
    return errors


def test_raw_saved_unpack_errors():
    errors = raw_unpack_errors(gradcli)
    assert errors[0] == messages.RAW_SAVED_OUTPUT_UNPACK
    assert errors[1].startswith("one of the variables needed for gradient computation has been "
                                "modified by an inplace operation: [torch.FloatTensor [2]], "
                                "which is output 0 of Mul, is at version 1; expected version 0 instead")
    assert errors[2] == messages.BACKWARD_TWICE


def test_raw_saved_unpack_errors_match_pytorch(oracle):
    assert raw_unpack_errors(gradcli) == oracle(raw_unpack_errors)
