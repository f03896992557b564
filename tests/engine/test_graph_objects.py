"""The backward graph's footprint for Python's cyclic garbage collector, and the two ways a node
of a one- or two-input op is made (the fast path keeps its edges and saved inputs in slots, the
general path writes tuples): both must look and behave the same."""

import gc

import numpy as np
import pytest

import gradcli as torch
from gradcli.engine import messages


def _chain(n):
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    w = torch.tensor(1.0001, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.001, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(n // 4):
        y = y * w
        y = y + b
        y = torch.sin(y)
        y = y * 1.0001
    return x, w, b, y


def test_a_chain_costs_the_collector_one_object_per_node_and_the_saved_tensors():
    _chain(40)[3].backward()  # every op prepared
    gc.collect()
    before = len(gc.get_objects())
    x, w, b, y = _chain(4000)
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / 4000
    # a node per op, and the tensors the nodes save (y * w and sin(y): every other op); the
    # tuples of child nodes and of saved inputs would make it 3
    assert per_op < 1.6, per_op


def test_a_chain_of_scalars_allocates_no_other_tracked_objects():
    """The collector's young generation fills (and a collection runs) per tracked allocation
    left alive: a chain of scalars leaves only its nodes and saved tensors (nodes of 0-d inputs
    share their shape-and-dtype tuples)."""
    _chain(40)[3].backward()
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        x, w, b, y = _chain(2000)
        per_op = (gc.get_count()[0] - before) / 2000
    finally:
        gc.enable()
    assert per_op < 1.6, per_op


def test_the_backward_pass_pauses_the_collector_and_restores_it():
    x, w, b, y = _chain(400)
    seen = []
    gc.callbacks.append(lambda phase, info: seen.append(phase))
    try:
        y.backward()
    finally:
        gc.callbacks.pop()
    assert gc.isenabled()
    assert seen == []
    gc.disable()
    try:
        _chain(40)[3].backward()
        assert not gc.isenabled()  # a collector the user disabled stays disabled
    finally:
        gc.enable()


def _nodes(fast):
    """y = a * b through the fast path (same dtypes) or the general one (dtypes promoted)."""
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([3.0, 4.0], dtype=torch.float64 if fast else torch.float32,
                     requires_grad=True)
    y = a * b
    return a, b, y, torch.sin(y)


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "general path"])
def test_nodes_of_both_paths_look_the_same(fast):
    a, b, y, s = _nodes(fast)
    fn = y.grad_fn
    assert type(fn).__name__ == "MulBackward0"
    assert [type(n).__name__ for n, _ in fn.next_functions] == ["AccumulateGrad"] * 2
    assert fn.next_functions[0][0].variable is a
    assert s.grad_fn.next_functions == ((fn, 0),)
    saved = fn.saved_values()
    assert saved["self"] is a and saved["other"] is b
    s.sum().backward()
    expected = np.cos(np.array([3.0, 8.0])) * np.array([3.0, 4.0])
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        s.sum().backward()
    with pytest.raises(RuntimeError) as e:
        fn.saved_values()
    assert str(e.value) == messages.BACKWARD_TWICE
    # the edges stay readable after the pass
    assert fn.next_functions[1][0].variable is b


def test_a_fast_path_node_retained_graph_runs_twice():
    a, b, y, s = _nodes(True)
    s.sum().backward(retain_graph=True)
    first = a.grad.clone()
    s.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * first.numpy())
