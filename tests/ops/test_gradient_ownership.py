"""Which gradients the backward pass may write into: only those it made itself (the sum of two
gradients meeting at a node, a tensor an op's VJP formula made and returned), which later ones
are added into and which a leaf then keeps as its `.grad` uncopied, decided without asking the
interpreter who else refers to them.  Nothing the program, a hook or the graph holds may
change (a formula that returns its gradient, a saved value or a view gives none of them
away), and every gradient is exact."""

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


@pytest.mark.parametrize("offered", [False, True], ids=["kept", "offered"])
@pytest.mark.parametrize("op, sample", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_backward_writes_no_output_and_repeats_exactly(op, sample, offered, monkeypatch):
    # offered: the second pass offers every gradient the engine owns to the formulas that may
    # compute into it (test_gradient_donation), the samples being below DONATE_MIN_SIZE
    for dtype in (gradcli.float64, gradcli.float32):
        first = _gradients(op, sample, dtype)
        if first is None:
            return
        if offered:
            monkeypatch.setattr(_backward, "DONATE_MIN_SIZE", 0)
        grads, before, outs = _gradients(op, sample, dtype)
        monkeypatch.undo()
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


# ------------------------------------------------- what a formula returns: whose is it?
# The engine owns a gradient a node's VJP formula returned when the formula made it: a tensor
# of a new array, not one the formula was given (its gradient, a saved input or output, an
# attribute), no view, outside any graph.  It may then add into it and a leaf keeps it uncopied.
# The probes below are ops of the table's kind (one formula per input) whose formulas return
# what the engine must not own; none is registered in the op table.

from gradcli.engine import backward as _backward, graph as _graph, hook_calls as _hook_calls
from gradcli.ops.registry import Op


def _probe(vjp, inputs=("self",)):
    """A one- or two-input op computing 2 * self (+ other) whose VJPs are `vjp` (a function or
    a tuple, one per input), outside the op table."""
    if len(inputs) == 1:
        forward = lambda a: a * 2.0  # noqa: E731
    else:
        forward = lambda a, b: a * 2.0 + b  # noqa: E731
    return Op("ownership_probe", forward, vjp, inputs=inputs, jvp=None, public=False,
              method=False, function=False)


def _leaf(n=8, lo=-1.0, hi=1.0):
    return gradcli.linspace(lo, hi, n, dtype=gradcli.float64, requires_grad=True)


def _given(n=8):
    v = gradcli.linspace(0.5, 2.0, n, dtype=gradcli.float64)
    return v, v._data.copy()


def test_a_probe_node_is_one_the_engine_may_own_results_of():
    # the probes run through the engine's formula path (apply_f), as the table's ops do
    x = _leaf()
    y = _probe(lambda g: g * 2.0)(x)
    assert type(y.grad_fn).apply_f is not None
    y.backward(gradcli.ones(8, dtype=gradcli.float64))
    np.testing.assert_allclose(x.grad._data, np.full(8, 2.0))


@pytest.mark.parametrize("first", ["probe", "product"])
def test_a_formula_that_returns_its_gradient_does_not_give_it_away(first):
    probe = _probe(lambda g: g)  # the gradient itself: the program's v reaches the leaf
    x = _leaf()
    v, given = _given()
    probe(x).backward(v)
    assert not np.shares_memory(x.grad._data, v._data)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(v._data, given)
    # x reached twice (add hands v on): the product's fresh gradient and v meet at x, in
    # either order; v is added into neither
    x = _leaf()
    y = probe(x) + x * 3.0 if first == "probe" else x * 3.0 + probe(x)
    y.backward(v)
    np.testing.assert_array_equal(v._data, given)
    np.testing.assert_allclose(x.grad._data, 4.0 * given)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(v._data, given)


@pytest.mark.parametrize("first", ["probe", "product"])
def test_a_formula_that_returns_a_saved_input_does_not_give_it_away(first):
    probe = _probe((lambda g, other: other, lambda g: g), inputs=("self", "other"))
    x = _leaf()
    w = gradcli.linspace(3.0, 4.0, 8, dtype=gradcli.float64)  # saved, held by the program
    kept = w._data.copy()
    loss = probe(x, w) + x * 5.0 if first == "probe" else x * 5.0 + probe(x, w)
    loss.backward(gradcli.ones(8, dtype=gradcli.float64))
    np.testing.assert_array_equal(w._data, kept)
    np.testing.assert_allclose(x.grad._data, kept + 5.0)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(w._data, kept)
    x = _leaf()
    probe(x, w).backward(gradcli.ones(8, dtype=gradcli.float64))  # alone: the leaf copies
    x.grad.add_(1.0)
    np.testing.assert_array_equal(w._data, kept)


@pytest.mark.parametrize("first", ["probe", "product"])
def test_a_formula_that_returns_its_saved_output_does_not_give_it_away(first):
    # the node made last runs first: its gradient reaches x first
    probe = _probe(lambda g, result: result)
    x = _leaf()
    if first == "probe":
        other = x * 5.0
        y = probe(x)
    else:
        y = probe(x)
        other = x * 5.0
    kept = y._data.copy()
    (y + other).backward(gradcli.ones(8, dtype=gradcli.float64), retain_graph=True)
    np.testing.assert_array_equal(y._data, kept)
    np.testing.assert_allclose(x.grad._data, kept + 5.0)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(y._data, kept)


@pytest.mark.parametrize("view", ["reshape", "slice", "transpose"])
def test_a_formula_that_returns_a_view_does_not_give_it_away(view):
    make = {"reshape": lambda g: g.reshape(2, 4).reshape(8),
            "slice": lambda g: g[::1],
            "transpose": lambda g: g.unsqueeze(0).t().squeeze(1)}[view]
    probe = _probe(make)
    x = _leaf()
    v, given = _given()
    (probe(x) + x * 3.0).backward(v)
    np.testing.assert_array_equal(v._data, given)
    np.testing.assert_allclose(x.grad._data, 4.0 * given)
    x = _leaf()
    probe(x).backward(v)
    x.grad.add_(1.0)
    np.testing.assert_array_equal(v._data, given)


def test_a_formula_returning_one_tensor_for_both_inputs_is_added_once_each():
    made = []

    def twice(g):  # one tensor for both inputs: the engine must not add into it
        if not made:
            made.append(g * 2.0)
        return made[-1]
    probe = _probe((twice, twice), inputs=("self", "other"))
    x = _leaf()
    probe(x, x).backward(gradcli.ones(8, dtype=gradcli.float64))
    np.testing.assert_allclose(x.grad._data, np.full(8, 4.0))
    np.testing.assert_allclose(made[0]._data, np.full(8, 2.0))
    made.clear()
    x, w = _leaf(), _leaf()
    probe(x, w).backward(gradcli.ones(8, dtype=gradcli.float64))
    (x * 1.0).backward(gradcli.ones(8, dtype=gradcli.float64))  # into x.grad, not w.grad
    np.testing.assert_allclose(x.grad._data, np.full(8, 3.0))
    np.testing.assert_allclose(w.grad._data, np.full(8, 2.0))


def test_a_fresh_formula_result_is_the_leaf_s_gradient_uncopied():
    # the rule's gain: the product's fresh gradient becomes x.grad as it is (PyTorch steals it)
    x = _leaf()
    seen = []
    probe = _probe(lambda g: seen.append(g * 2.0) or seen[-1])
    probe(x).backward(gradcli.ones(8, dtype=gradcli.float64))
    assert x.grad is seen[0]
    assert _graph._formula_made is not None


def test_a_hook_that_keeps_a_leaf_s_gradient_sees_it_unchanged_by_later_passes():
    x = _leaf()
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 2.0).sum().backward()
    snapshot = kept[0]._data.copy()
    (x * 3.0).sum().backward()  # adds into x.grad: not into what the hook kept
    np.testing.assert_array_equal(kept[0]._data, snapshot)
    np.testing.assert_allclose(x.grad._data, np.full(8, 5.0))
    assert not np.shares_memory(x.grad._data, kept[0]._data)


def test_a_hook_that_keeps_an_intermediate_gradient_then_another_accumulates():
    x = _leaf()
    y = x.exp()
    kept = []
    y.register_hook(lambda g: kept.append(g))  # y's gradient: one fresh product
    (y * 2.0).sum().backward(retain_graph=True)
    snapshot = kept[0]._data.copy()
    np.testing.assert_allclose(snapshot, np.full(8, 2.0))
    (y * 3.0 + x * 4.0).sum().backward()  # more gradients for x and for y
    np.testing.assert_array_equal(kept[0]._data, snapshot)
    ex = np.exp(x._data)
    np.testing.assert_allclose(x.grad._data, 2.0 * ex + 3.0 * ex + 4.0)


def test_retain_grad_on_an_intermediate_reached_twice(oracle):
    def run(lib, x0):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        y = x.exp()
        y.retain_grad()
        loss = (y * 2.0 + y.sin() * 3.0).sum()
        loss.backward(retain_graph=True)
        first = (y.grad.detach().numpy().copy(), x.grad.detach().numpy().copy())
        loss.backward()
        return first, (y.grad.detach().numpy(), x.grad.detach().numpy())
    x0 = np.linspace(-1.0, 1.0, 8)
    expected = oracle(lambda torch: run(torch, x0))
    got = run(gradcli, x0)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-15)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-15)
    assert not np.shares_memory(got[1][0], got[1][1])


def test_a_leaf_reached_twice_keeps_the_sum_and_holds_nothing_else(oracle):
    def run(lib, x0, v0):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        v = lib.tensor(v0, dtype=lib.float64)
        (x * x * 2.0 + x.exp()).backward(v)  # x: three fresh gradients
        first = x.grad.detach().numpy().copy()
        (x * 3.0).backward(v)  # into the kept sum
        return first, x.grad.detach().numpy(), v.numpy()
    x0, v0 = np.linspace(-1.0, 1.0, 8), np.linspace(0.5, 2.0, 8)
    expected = oracle(lambda torch: run(torch, x0, v0))
    got = run(gradcli, x0, v0)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-15)
    np.testing.assert_array_equal(got[2], v0)


def test_create_graph_gradients_stay_graph_tensors(oracle):
    def run(lib, x0):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        y = (x * x * 2.0 + x.exp() * 3.0).sum()  # x reached three times
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        assert g.requires_grad and g.grad_fn is not None
        (h,) = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        y2 = (x * x * 2.0 + x.exp() * 3.0).sum()
        y2.backward(create_graph=True)  # the leaf's .grad: a graph tensor too
        assert x.grad.requires_grad
        (gg,) = lib.autograd.grad(x.grad.sum(), x)
        return g.detach().numpy(), h.detach().numpy(), x.grad.detach().numpy(), gg.numpy()
    x0 = np.linspace(-1.0, 1.0, 8)
    expected = oracle(lambda torch: run(torch, x0))
    got = run(gradcli, x0)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_the_table_s_fresh_results_reach_leaves_uncopied(monkeypatch):
    # the gain the rule is for: the MLP's weight gradients (mm's self^T @ g), the elementwise
    # chain's input gradient (mul's g * other) and a leaf reached twice are kept as they are
    copies = []
    fresh = _graph._fresh
    for module in (_graph, _hook_calls):  # (AccumulateGrad; a retained tensor's .grad)
        monkeypatch.setattr(module, "_fresh", lambda g: copies.append(g) or fresh(g))
    rng = np.random.default_rng(0)
    h = gradcli.tensor(rng.standard_normal((4, 6)))
    w = gradcli.tensor(rng.standard_normal((6, 5)), requires_grad=True)
    x = gradcli.tensor(rng.standard_normal(6), requires_grad=True)
    ((h @ w).tanh().sum() + (x * 0.5).exp().sum() + (x * x).sum()).backward()
    assert copies == []
    np.testing.assert_allclose(
        w.grad._data, h._data.T @ (1 - np.tanh(h._data @ w._data) ** 2))
    np.testing.assert_allclose(x.grad._data, 0.5 * np.exp(0.5 * x._data) + 2 * x._data)
    x.backward(gradcli.ones(6, dtype=gradcli.float64))  # a gradient the program gave: copied
    assert len(copies) == 0  # (x.grad exists: added into)
    y = gradcli.tensor(rng.standard_normal(6), requires_grad=True)
    y.backward(gradcli.ones(6, dtype=gradcli.float64))
    assert len(copies) == 1
