"""Dependency counting of the backward pass (gradcli.engine.backward): a pass without targets that
no other pass encloses counts each node's dependencies in the node itself (`_deps`), and every
count is back to 0 when it ends, however it ends; a pass a hook starts inside another one, and a
pass with targets, count in a dict of their own."""

import pytest

import gradcli as torch
from gradcli.engine import backward


def _nodes(*roots):
    """Every node reachable from the roots' grad_fns."""
    seen, stack = [], [t.grad_fn for t in roots]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(fn for fn, _ in node.next_functions)
    return seen


def _graph():
    x = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    w = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x * w
    z = (y.sin() + y * y + w).sum()  # y reached three times, w twice, x through y only
    return x, w, y, z


def _expected(x, w):
    y = x.detach() * w.detach()
    g_y = y.cos() + 2 * y
    return g_y * w.detach(), (g_y * x.detach()).sum() + 2  # (w is added to both elements)


def test_counts_are_in_the_nodes_during_the_pass_and_zero_after_it():
    x, w, y, z = _graph()
    nodes = _nodes(z)
    seen = {}

    def hook(grad):  # y's tensor hook runs before y's node: its count has just reached 0
        seen["y"] = y.grad_fn._deps
        seen["w"] = [n._deps for n in nodes if getattr(n, "variable", None) is w]
        return grad
    y.register_hook(hook)
    assert all(n._deps == 0 for n in nodes)
    z.backward(retain_graph=True)
    assert seen == {"y": 0, "w": [1]}  # w's accumulator: its edge from y's node still to come
    assert all(n._deps == 0 for n in nodes)
    gx, gw = _expected(x, w)
    assert torch.allclose(x.grad, gx) and torch.allclose(w.grad, gw)


def test_a_pass_that_fails_leaves_every_count_at_zero():
    x, w, y, z = _graph()

    def fail(grad):
        raise ValueError("stop")
    handle = y.register_hook(fail)
    with pytest.raises(ValueError, match="stop"):
        z.backward(retain_graph=True)
    assert all(n._deps == 0 for n in _nodes(z))
    handle.remove()
    x.grad = w.grad = None
    z.backward()  # counted afresh: every node runs once, every gradient is whole
    gx, gw = _expected(x, w)
    assert torch.allclose(x.grad, gx) and torch.allclose(w.grad, gw)


def test_a_pass_inside_another_leaves_the_outer_counts_alone():
    x, w, y, z = _graph()
    inner = {}

    def hook(grad):  # a backward pass over part of the graph the outer pass is running
        with torch.enable_grad():  # (hooks run in no-grad mode without create_graph)
            v = (y * 3).sum()
        v.backward(retain_graph=True)
        inner["x"], inner["w"] = x.grad.clone(), w.grad.clone()
        x.grad = w.grad = None
        return grad
    z.register_hook(hook)
    z.backward(retain_graph=True)
    assert torch.allclose(inner["x"], 3 * w.detach().expand(2))
    assert torch.allclose(inner["w"], 3 * x.detach().sum())
    gx, gw = _expected(x, w)
    assert torch.allclose(x.grad, gx) and torch.allclose(w.grad, gw)
    assert all(n._deps == 0 for n in _nodes(z))


def test_passes_with_targets_count_in_a_dict():
    x, w, y, z = _graph()
    counts = []

    def hook(grad):
        counts.append([n._deps for n in _nodes(z)])
        return grad
    y.register_hook(hook)
    gx, gw = torch.autograd.grad(z, (x, w), retain_graph=True)
    assert counts == [[0] * len(_nodes(z))]
    ex, ew = _expected(x, w)
    assert torch.allclose(gx, ex) and torch.allclose(gw, ew)


def test_will_execute_sees_the_counted_nodes():
    x, w, y, z = _graph()
    other = (x * 5).sum()
    answers = []

    def hook(grad):
        answers.append((backward.will_execute(y.grad_fn), backward.will_execute(other.grad_fn)))
        return grad
    y.register_hook(hook)
    z.backward()
    assert answers == [(True, False)]
