"""A backward pass of one root without targets runs first in sequence order without counting
dependencies (gradcli.engine.backward._run_by_sequence), keeping the leaves' float gradients
until it ends, and counts them after all where that could show (a hook, a custom function, a
node of several outputs, a tensor gradient, an error).  Each program here runs on scalar
graphs, where the float gradients travel, and must see what PyTorch's engine shows: the order
of hooks, the leaves' gradients a hook sees while the pass runs, what an error leaves behind,
and the same bits."""

import pytest

import gradcli
from gradcli.engine import backward


def _scalars(torch, *values):
    return [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]


def _value(t):
    return None if t is None else t.item()


def hook_sees_a_leaf_stored_earlier(torch):
    """v's AccumulateGrad is ready (and runs) right after the last node; w's only after a's
    node: a's tensor hook sees v.grad set and w.grad unset."""
    x, w, v = _scalars(torch, 0.5, 1.5, 2.0)
    a = x * w
    b = a.sin()
    c = b * w
    d = c * 3.0 + v
    seen = []
    a.register_hook(lambda g: seen.append(("a", g.item(), _value(v.grad), _value(w.grad),
                                           _value(x.grad))))
    d.backward()
    return seen, [x.grad.item(), w.grad.item(), v.grad.item()]


def error_leaves_the_leaves_stored_before_it(torch):
    """sin's node fails (its saved input was changed in place) after v's AccumulateGrad ran:
    v keeps its gradient, x has none."""
    x, v = _scalars(torch, 0.5, 2.0)
    t = x * 1.0
    u = t.sin()
    t.add_(1.0)
    y = u * 3.0 + v
    try:
        y.backward()
        error = None
    except RuntimeError as e:
        error = type(e).__name__
    return error, _value(x.grad), _value(v.grad)


def leaf_hooks_in_order(torch):
    """Hooks on leaves (tensor and post-accumulate hooks) and on a node, interleaved with the
    nodes as PyTorch's ready queue orders them."""
    x, w, v = _scalars(torch, 0.25, -1.25, 3.0)
    seen = []
    for name, t in (("x", x), ("w", w), ("v", v)):
        t.register_hook(lambda g, n=name: seen.append(("hook", n, g.item())))
        t.register_post_accumulate_grad_hook(lambda t, n=name: seen.append(("post", n)))
    a = x * w
    b = (a * v).exp() + a.cos() * w + v * v
    b.grad_fn.register_prehook(lambda gs: seen.append(("pre", b.grad_fn.name())))
    b.backward()
    return seen, [x.grad.item(), w.grad.item(), v.grad.item()]


def shared_nodes_same_bits(torch):
    """A graph of shared subexpressions, run twice into the same leaves: the same gradients
    to the last bit (summed in the same order)."""
    x, w = _scalars(torch, 0.7, -0.3)
    for _ in range(2):
        y = x * w
        z = y.sin() * y + y.exp() * x - (w * y).tanh() / (x * x + 1.0)
        z.backward()
    return [x.grad.item(), w.grad.item()]


def several_outputs_and_custom_functions(torch):
    """unbind's node (several outputs) and a custom function in a scalar graph."""
    class Scaled(torch.autograd.Function):  # k * a**2, its gradient for a only
        @staticmethod
        def forward(ctx, a, k):
            ctx.k = k
            ctx.save_for_backward(a)
            return k * a * a

        @staticmethod
        def backward(ctx, g):
            return 2.0 * ctx.k * ctx.saved_tensors[0] * g, None
    x, w = _scalars(torch, 1.5, 0.5)
    p, q = torch.stack([x * w, x + w]).unbind()
    y = Scaled.apply(p.sin(), 0.75) * q + p
    y.backward()
    return [x.grad.item(), w.grad.item()]


def retained_and_freed_graph(torch):
    """retain_graph keeps the nodes for a second pass; the third finds them freed, and its
    error leaves the leaves as they were."""
    x, w = _scalars(torch, 0.5, 2.0)
    y = (x * w).sin() * w + x
    y.backward(retain_graph=True)
    y.backward()
    grads = [x.grad.item(), w.grad.item()]
    try:
        y.backward()
        error = None
    except RuntimeError as e:
        error = str(e).split(".")[0]
    return grads, error, [x.grad.item(), w.grad.item()]


def leaf_root_and_retained_gradient(torch):
    """A leaf as the root; a retained intermediate gradient."""
    x, w = _scalars(torch, 0.5, 2.0)
    x.backward()
    y = x * w
    y.retain_grad()
    (y.sin() * 2.0).backward()
    return [x.grad.item(), w.grad.item(), y.grad.item()]


PROGRAMS = [hook_sees_a_leaf_stored_earlier, error_leaves_the_leaves_stored_before_it,
            leaf_hooks_in_order, shared_nodes_same_bits, several_outputs_and_custom_functions,
            retained_and_freed_graph, leaf_root_and_retained_gradient]


def _plain(value):
    """Tuples as lists (the golden file's JSON keeps lists)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_the_pass_shows_what_pytorch_shows(program, oracle):
    assert _plain(program(gradcli)) == oracle(lambda torch: _plain(program(torch)))


def test_a_scalar_chain_runs_without_counting(monkeypatch):
    """The chain of floats never counts its dependencies; a hook in it makes the pass count
    them from there on, and every count is back to 0 afterwards."""
    walks = []
    real = backward._count_dependencies
    monkeypatch.setattr(backward, "_count_dependencies",
                        lambda roots, counted: walks.append(1) or real(roots, counted))
    x, w = _scalars(gradcli, 0.5, 1.5)
    y = x
    nodes = []
    for _ in range(5):
        y = (y * w).sin()
        nodes.append(y.grad_fn)
    y.backward(retain_graph=True)
    assert walks == []
    nodes[2].register_prehook(lambda gs: None)
    y.backward()
    assert walks == [1]
    assert all(n._deps == 0 for n in nodes)
