"""autograd.grad of one root whose inputs are leaves runs first in sequence order, without the
walk that counts dependencies and finds the nodes leading to an input
(gradcli.engine.grad_sequence), and carries on after that walk where it stops (a leaf that is
not an input, a node it does not handle, an error).  Each program must see what PyTorch's
engine shows: the gradients to the bit, the graphs create_graph makes, which nodes ran (and were
freed) and which did not, errors, hooks."""

import pytest

import gradcli
from gradcli.engine import backward


def _scalars(torch, *values):
    return [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]


def _error(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e).split(".")[0]
    return None


def second_derivative_of_a_chain(torch):
    """create_graph, then the gradient of the gradient; the first one's graph as PyTorch's."""
    x, = _scalars(torch, 0.3)
    w, b = torch.tensor(1.1, dtype=torch.float64), torch.tensor(0.1, dtype=torch.float64)
    y = x
    for _ in range(6):
        y = (y * w + b).sin() * 0.9
    g, = torch.autograd.grad(y, x, create_graph=True)
    g2, = torch.autograd.grad(g, x)
    return [g.item(), g.grad_fn.name(), g2.item(), g2.requires_grad]


def leaf_that_is_no_input(torch):
    """w's branch leads to no input: it neither runs nor is freed (w's own backward works
    after), and x's gradient is the same bits."""
    x, w = _scalars(torch, 0.5, 1.5)
    h = (w * 2.0).exp()
    y = (x * x).sin() * 3.0 + h.cos()
    gx, = torch.autograd.grad(y, x)
    h.backward()
    return [gx.item(), w.grad.item()]


def leaf_deep_below(torch):
    """The leaf that is no input is met last, under a long chain that leads to x too."""
    x, w = _scalars(torch, 0.25, -0.75)
    y = x * w
    for _ in range(5):
        y = y.sin() * 1.5 + x
    gx, = torch.autograd.grad(y, x, retain_graph=True)
    gx2, gw = torch.autograd.grad(y * 2.0, (x, w))
    return [gx.item(), gx2.item(), gw.item(), _error(lambda: y.backward())]


def error_where_no_input_is(torch):
    """A node that would fail (its saved input changed in place) on a branch that leads to no
    input: PyTorch never runs it."""
    x, w = _scalars(torch, 0.5, 2.0)
    t = w * 1.0
    u = t.sin()
    t.add_(1.0)
    y = x.exp() * 2.0 + u
    gx, = torch.autograd.grad(y, x)
    return [gx.item(), _error(lambda: torch.autograd.grad(u, w))]


def error_on_the_way(torch):
    """A failing node that leads to the input: PyTorch's error; the nodes run before it are
    freed, the others not."""
    x, = _scalars(torch, 0.5)
    t = x * 1.0
    u = t.sin()
    t.add_(1.0)
    y = u * 3.0 + x.exp()
    first = _error(lambda: torch.autograd.grad(y, x))
    return [first, _error(lambda: torch.autograd.grad(y, x))]


def freed_and_retained(torch):
    """retain_graph keeps the nodes for a second pass; without it the next one fails."""
    x, = _scalars(torch, 0.5)
    y = (x * x).sin() * x
    a, = torch.autograd.grad(y, x, retain_graph=True)
    b, = torch.autograd.grad(y, x)
    return [a.item(), b.item(), _error(lambda: torch.autograd.grad(y, x))]


def several_outputs_custom_function_and_hooks(torch):
    """unbind's node, a custom function and hooks on the way: where the sequence pass stops,
    the engine loop carries on in PyTorch's order."""
    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return 0.75 * a * a

        @staticmethod
        def backward(ctx, g):
            seen.append("custom")
            return 1.5 * ctx.saved_tensors[0] * g
    seen = []
    x, w = _scalars(torch, 1.5, 0.5)
    p, q = torch.stack([x * x, x + 2.0]).unbind()
    r = Scaled.apply(p.sin()) * q
    r.register_hook(lambda g: seen.append(["r", g.item()]))
    y = (r * 2.0).cos() + p
    g1, = torch.autograd.grad(y, x, retain_graph=True)
    g2, g3 = torch.autograd.grad(y * w, [x, w], create_graph=True)
    h, = torch.autograd.grad(g2, x)
    return [seen, g1.item(), g2.item(), g3.item(), h.item()]


def inputs_unused_and_repeated(torch):
    """An input the pass never reaches (allow_unused), one given twice, a vector input."""
    x, v = _scalars(torch, 0.5, 2.0)
    z = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = (x * 3.0).exp() + (z * z).sum()
    gx, gv, gx2, gz = torch.autograd.grad(y, (x, v, x, z), allow_unused=True)
    vec, = torch.autograd.grad((z.sin() * x).sum(), z, create_graph=True)
    return [gx.item(), gv, gx2.item(), gz.tolist(), vec.tolist(), vec.grad_fn.name()]


PROGRAMS = [second_derivative_of_a_chain, leaf_that_is_no_input, leaf_deep_below,
            error_where_no_input_is, error_on_the_way, freed_and_retained,
            several_outputs_custom_function_and_hooks, inputs_unused_and_repeated]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_grad_shows_what_pytorch_shows(program, oracle):
    assert program(gradcli) == oracle(program)


def test_second_derivative_without_the_walk(monkeypatch):
    """Both passes of a second derivative run without backward._collect; a leaf that is no
    input makes the pass walk the graph after all."""
    walks = []
    real = backward._collect
    monkeypatch.setattr(backward, "_collect",
                        lambda roots, targets: walks.append(1) or real(roots, targets))
    x, w = _scalars(gradcli, 0.5, 1.5)
    y = (x * x).sin() * x
    g, = gradcli.autograd.grad(y, x, create_graph=True)
    gradcli.autograd.grad(g, x, retain_graph=True)
    assert walks == []
    gradcli.autograd.grad(y * w, x)
    assert walks == [1]
