"""Which gradients the backward pass may write into: only those it made itself (the sum of two
gradients meeting at a node, which later ones are added into, and which a leaf then keeps as
its `.grad`), decided without asking the interpreter who else refers to them.  Nothing the
program, a hook or the graph holds may change, and every gradient is exact."""

import numpy as np
import pytest

import gradcli
from checks import cases, ids, leaves, op_function, rng_for


DIFFERENTIABLE = cases(lambda op: op.differentiable)


def _gradients(op, sample, dtype):
    """The input gradients of sum(output * w) for fixed random w (so the op's node receives
    a gradient that the multiplication made: one only the engine holds), and the outputs'
    values before and after the pass."""
    fn, xs = op_function(op, sample)
    ts = [t.to(dtype).detach().requires_grad_() for t in leaves(xs)]
    outs = [o for o in fn(ts) if o.requires_grad]
    if not outs:
        return None
    rng = rng_for(op, sample, "donation")
    weights = [gradcli.tensor(rng.standard_normal(o._data.shape), dtype=o.dtype) for o in outs]
    before = [o._data.copy() for o in outs]
    loss = sum((o * w).sum() for o, w in zip(outs, weights))
    loss.backward()
    return [None if t.grad is None else t.grad._data for t in ts], before, outs


@pytest.mark.parametrize("op, sample", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_backward_writes_no_output_and_repeats_exactly(op, sample):
    for dtype in (gradcli.float64, gradcli.float32):
        first = _gradients(op, sample, dtype)
        if first is None:
            return
        grads, before, outs = _gradients(op, sample, dtype)
        for k, (a, b) in enumerate(zip(grads, first[0])):
            assert (a is None) == (b is None), k
            if a is not None:
                np.testing.assert_array_equal(a, b, err_msg=f"gradient of input {k}, {dtype}")
        for k, (o, b) in enumerate(zip(outs, before)):
            np.testing.assert_array_equal(o._data, b, err_msg=f"output {k} changed, {dtype}")


# ------------------------------------------------------------------ what must not be written

def test_a_gradient_the_program_gave_is_not_written():
    x = gradcli.linspace(-1, 1, 50, dtype=gradcli.float64, requires_grad=True)
    y = (x * 3.0).exp()
    v = gradcli.linspace(0, 2, 50, dtype=gradcli.float64)
    kept = v._data.copy()
    y.backward(v)
    np.testing.assert_array_equal(v._data, kept)
    np.testing.assert_allclose(x.grad._data, kept * 3 * np.exp(3 * x._data))


def test_a_gradient_passed_to_two_nodes_is_written_by_neither():
    x = gradcli.linspace(-1, 1, 40, dtype=gradcli.float64, requires_grad=True)
    a = x * 1.5
    loss = ((a.exp() + a.sin()) * 2.0).sum()  # add hands the same gradient to exp and sin
    loss.backward()
    a_ = 1.5 * x._data
    np.testing.assert_allclose(x.grad._data, 2 * 1.5 * (np.exp(a_) + np.cos(a_)))


def test_both_formulas_of_a_node_read_the_gradient():
    x = gradcli.linspace(-1, 1, 30, dtype=gradcli.float64, requires_grad=True)
    w = gradcli.linspace(2, 3, 30, dtype=gradcli.float64, requires_grad=True)
    ((x * w) * 2.0).sum().backward()  # mul's VJPs g * w and g * x: only the second may take g
    np.testing.assert_allclose(x.grad._data, 2 * w._data)
    np.testing.assert_allclose(w.grad._data, 2 * x._data)
    z = gradcli.linspace(-1, 1, 30, dtype=gradcli.float64, requires_grad=True)
    ((z * z) * 2.0).sum().backward()
    np.testing.assert_allclose(z.grad._data, 4 * z._data)


def test_retained_graphs_and_retained_gradients_see_the_right_values():
    x = gradcli.linspace(-1, 1, 30, dtype=gradcli.float64, requires_grad=True)
    y = x.exp()
    z = y * 0.5
    y.retain_grad()
    loss = (z.sin() * 3.0).sum()
    loss.backward(retain_graph=True)
    first = x.grad._data.copy()
    expected_y = 3.0 * np.cos(0.5 * np.exp(x._data)) * 0.5
    np.testing.assert_allclose(y.grad._data, expected_y)
    np.testing.assert_allclose(first, expected_y * np.exp(x._data))
    loss.backward()  # the saved tensors are intact: the same gradient again
    np.testing.assert_allclose(x.grad._data, 2 * first)


def test_hooks_get_the_gradient_the_node_was_given():
    x = gradcli.linspace(-1, 1, 20, dtype=gradcli.float64, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (grad_inputs[0]._data.copy(), grad_outputs[0]._data.copy())))
    (y * 4.0).sum().backward()
    np.testing.assert_allclose(seen[0][1], np.full(20, 4.0))
    np.testing.assert_allclose(seen[0][0], 4.0 * np.exp(x._data))


def test_create_graph_keeps_every_gradient():
    x = gradcli.linspace(-1, 1, 20, dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad((x.sin() * 2.0).sum(), x, create_graph=True)
    (h,) = gradcli.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g._data, 2 * np.cos(x._data))
    np.testing.assert_allclose(h._data, -2 * np.sin(x._data))


def test_a_gradient_handed_to_a_leaf_is_copied():
    x = gradcli.linspace(-1, 1, 10, dtype=gradcli.float64, requires_grad=True)
    v = gradcli.linspace(0, 1, 10, dtype=gradcli.float64)
    given = v._data.copy()
    x.backward(v)
    assert x.grad is not v and not np.shares_memory(x.grad._data, v._data)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(v._data, given)


def test_a_sum_the_engine_made_is_the_leaf_s_gradient_and_grows_in_place():
    x = gradcli.linspace(-1, 1, 10, dtype=gradcli.float64, requires_grad=True)
    v = gradcli.linspace(0, 1, 10, dtype=gradcli.float64)
    given = v._data.copy()
    (x + x + x).backward(v)  # three gradients meet at x's AccumulateGrad
    np.testing.assert_array_equal(v._data, given)
    np.testing.assert_allclose(x.grad._data, 3 * v._data)
    (x * 2.0).backward(v)  # a later pass adds into the leaf's gradient
    np.testing.assert_allclose(x.grad._data, 5 * v._data)


def test_a_sum_a_hook_kept_is_not_written_later():
    x = gradcli.linspace(-1, 1, 10, dtype=gradcli.float64, requires_grad=True)
    y = x * 1.0
    kept = []
    y.register_hook(lambda g: kept.append(g))  # y's gradient: the sum of two
    z = y + y
    (z + y).backward(gradcli.ones(10, dtype=gradcli.float64))
    snapshot = kept[0]._data.copy()
    np.testing.assert_allclose(snapshot, np.full(10, 3.0))
    np.testing.assert_allclose(x.grad._data, np.full(10, 3.0))
    (x * 1.0).backward(gradcli.ones(10, dtype=gradcli.float64))
    np.testing.assert_array_equal(kept[0]._data, snapshot)


def test_a_gradient_the_program_gave_is_not_added_into():
    # add hands v itself to y's node, where the product's gradient 2v meets it
    x = gradcli.linspace(-1, 1, 10, dtype=gradcli.float64, requires_grad=True)
    y = x * 1.0
    v = gradcli.linspace(0, 1, 10, dtype=gradcli.float64)
    given = v._data.copy()
    (y + y * 2.0).backward(v)
    np.testing.assert_array_equal(v._data, given)
    np.testing.assert_allclose(x.grad._data, 3 * given)
