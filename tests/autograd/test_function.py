"""Custom autograd Functions: ctx, saved tensors, node names and PyTorch's errors."""

import pathlib

import pytest

import gradcli as torch
from gradcli.autograd.function import once_differentiable
from gradcli.engine import messages

TRANSCRIPT = (pathlib.Path(__file__).resolve().parents[1] / "transcripts"
              / "seed001_custom_function.txt")


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 2 * x


def test_transcript_custom_square_reproduces():
    x = torch.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    printed = [repr(y)]
    y.backward()
    printed.append(str(x.grad))
    text = TRANSCRIPT.read_text()
    for line in printed:
        assert line in text.splitlines()
    assert printed == ["tensor([9.], grad_fn=<SquareBackward>)", "tensor([6.])"]


def test_ctx_is_the_node_named_after_the_class():
    x = torch.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    assert y.grad_fn.name() == "SquareBackward"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.SquareBackward object at 0x")
    assert y.grad_fn.next_functions[0][0].variable is x
    assert y.grad_fn.saved_tensors[0] is x
    assert y.grad_fn.needs_input_grad == (True,)


def test_saved_tensors_are_freed_after_backward():
    x = torch.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_retain_graph_keeps_saved_tensors():
    x = torch.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [12.0]


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_non_tensor_arguments_get_no_gradient_and_no_edge():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert Scale.apply(x, k=2.0).tolist() == [2.0, 4.0]


def test_wrong_number_of_gradients():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as err:
        Bad.apply(x, 2).backward()
    assert str(err.value) == messages.FUNCTION_WRONG_GRAD_COUNT.format(
        node="BadBackward", expected=2, got=1)


def test_gradient_for_non_tensor_input_is_an_error():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="returned a gradient different than None at position 2"):
        Bad.apply(torch.tensor([1.0], requires_grad=True), 2).backward()


def test_forward_runs_without_grad_and_output_may_be_an_input():
    seen = []

    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(torch.is_grad_enabled())
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Id.apply(x)
    assert seen == [False] and y is not x and y.grad_fn.name() == "IdBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_multiple_outputs_materialized_and_not():
    got = []

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append((g1, g2))
            return g1 * 2 + (0 if g2 is None else g2 * 3)

    x = torch.tensor([1.0], requires_grad=True)
    a, b = Two.apply(x)
    assert (a.output_nr, b.output_nr) == (0, 1) and a.grad_fn is b.grad_fn
    a.sum().backward()
    assert got[-1][1].tolist() == [0.0]

    class Lazy(Two):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

    a, b = Lazy.apply(x)
    a.sum().backward()
    assert got[-1][1] is None


def test_mark_dirty_and_non_differentiable():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class WithCount(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = x.sum()
            ctx.mark_non_differentiable(s)
            return x * 2, s

        @staticmethod
        def backward(ctx, g, gs):
            return g * 2

    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used"):
        Double.apply(leaf)
    b = leaf * 1
    assert Double.apply(b) is b and b.grad_fn.name() == "DoubleBackward"
    y, s = WithCount.apply(leaf)
    assert y.requires_grad and not s.requires_grad


def test_setup_context_style():
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    Mul.apply(x, 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_missing_backward_and_legacy_call():
    class NoBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="must implement either the backward or vjp"):
        NoBackward.apply(x).backward()
    with pytest.warns(DeprecationWarning):
        instance = NoBackward()
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        instance(x)


def test_saved_input_modified_in_place_names_its_current_node():
    class Keep(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = Keep.apply(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"which is output 0 of Add, is at version 1; expected"):
        y.sum().backward()


def test_create_graph_through_custom_backward_and_once_differentiable():
    x = torch.tensor([3.0], requires_grad=True)
    g, = torch.autograd.grad(Square.apply(x), x, create_graph=True)
    g2, = torch.autograd.grad(g, x)
    assert (g.item(), g2.item()) == (6.0, 2.0)

    class Once(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    g, = torch.autograd.grad(Once.apply(x), x, create_graph=True)
    assert g.item() == 6.0 and not g.requires_grad
