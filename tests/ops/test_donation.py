"""Gradient donation (gradcli.engine.graph._Donation): a node whose formulas read the incoming
gradient once, as an operand of an arithmetic operator, computes into that gradient's array when
nothing but the engine refers to it.  The gradients must be exactly those computed without it,
nothing the program or the graph holds may change, and a big pass must allocate less."""

import tracemalloc

import numpy as np
import pytest

import gradcli
from gradcli.engine import graph
from gradcli.ops.registry import _reads_g_once_by_operator
from checks import cases, float_outputs, ids, leaves, op_function, rng_for

NEVER = 1 << 62  # a DONATE_MIN_SIZE no gradient reaches


@pytest.fixture
def donate_all(monkeypatch):
    """Offer every gradient, however small (the tests' arrays are)."""
    monkeypatch.setattr(graph, "DONATE_MIN_SIZE", 1)


def f(x):
    return x * 2.0


@pytest.mark.parametrize("vjp, takes", [
    (lambda g, self: g * self.cos(), True),
    (lambda g, self, other: -g * other / (self * self), True),
    (lambda g, result: g * (1 + result * result), True),
    (lambda g, other: other * g, True),
    (lambda g, result: 2 * g / result, True),
    (lambda g, x: g * x + g, False),                      # read twice
    (lambda g: g, False),                                 # returned as it is
    (lambda g, x: g.sum(), False),                        # a method may keep it
    (lambda g, x: x.mul(g), False),
    (lambda g, x: f(g) * x, False),                       # so may a function
    (lambda g, x: g[0] * x, False),
    (lambda g, x: (g if x else 1.0) * 2, False),          # a jump: not followed
    (lambda g, x: [g * y for y in x], False),             # a closure over g
], ids=lambda v: "" if callable(v) else str(v))
def test_which_formulas_may_take_the_gradient(vjp, takes):
    assert _reads_g_once_by_operator(vjp) is takes


def test_the_table_offers_its_arithmetic_ops():
    ops = gradcli.ops.OPS
    assert ops["mul"].formulas_take_gradient() and ops["exp"].formulas_take_gradient()
    assert ops["sin"].formulas_take_gradient() and ops["neg"].formulas_take_gradient()
    assert not ops["add"].formulas_take_gradient()  # passes g on: both inputs get it
    assert not ops["sub"].formulas_take_gradient()


DIFFERENTIABLE = cases(lambda op: op.differentiable, declared=True)


def _gradients(op, sample, declared, dtype):
    """The input gradients of sum(output * w) for fixed random w (so the op's node receives
    a gradient that the multiplication made: one only the engine holds), and the outputs'
    values before and after the pass."""
    fn, xs = op_function(op, sample, declared)
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


@pytest.mark.parametrize("op, sample, declared", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_donated_gradients_are_the_allocated_ones(op, sample, declared, monkeypatch):
    for dtype in (gradcli.float64, gradcli.float32):
        monkeypatch.setattr(graph, "DONATE_MIN_SIZE", NEVER)
        plain = _gradients(op, sample, declared, dtype)
        if plain is None:
            return
        monkeypatch.setattr(graph, "DONATE_MIN_SIZE", 1)
        grads, before, outs = _gradients(op, sample, declared, dtype)
        for k, (a, b) in enumerate(zip(grads, plain[0])):
            assert (a is None) == (b is None), k
            if a is not None:
                np.testing.assert_array_equal(a, b, err_msg=f"gradient of input {k}, {dtype}")
        for k, (o, b) in enumerate(zip(outs, before)):
            np.testing.assert_array_equal(o._data, b, err_msg=f"output {k} changed, {dtype}")


# ------------------------------------------------------------------ what must not be written

def test_a_gradient_the_program_gave_is_not_written(donate_all):
    x = gradcli.linspace(-1, 1, 50, dtype=gradcli.float64, requires_grad=True)
    y = (x * 3.0).exp()
    v = gradcli.linspace(0, 2, 50, dtype=gradcli.float64)
    kept = v._data.copy()
    y.backward(v)
    np.testing.assert_array_equal(v._data, kept)
    np.testing.assert_allclose(x.grad._data, kept * 3 * np.exp(3 * x._data))


def test_a_gradient_passed_to_two_nodes_is_written_by_neither(donate_all):
    x = gradcli.linspace(-1, 1, 40, dtype=gradcli.float64, requires_grad=True)
    a = x * 1.5
    loss = ((a.exp() + a.sin()) * 2.0).sum()  # add hands the same gradient to exp and sin
    loss.backward()
    a_ = 1.5 * x._data
    np.testing.assert_allclose(x.grad._data, 2 * 1.5 * (np.exp(a_) + np.cos(a_)))


def test_both_formulas_of_a_node_read_the_gradient(donate_all):
    x = gradcli.linspace(-1, 1, 30, dtype=gradcli.float64, requires_grad=True)
    w = gradcli.linspace(2, 3, 30, dtype=gradcli.float64, requires_grad=True)
    ((x * w) * 2.0).sum().backward()  # mul's VJPs g * w and g * x: only the second may take g
    np.testing.assert_allclose(x.grad._data, 2 * w._data)
    np.testing.assert_allclose(w.grad._data, 2 * x._data)
    z = gradcli.linspace(-1, 1, 30, dtype=gradcli.float64, requires_grad=True)
    ((z * z) * 2.0).sum().backward()
    np.testing.assert_allclose(z.grad._data, 4 * z._data)


def test_retained_graphs_and_retained_gradients_see_the_right_values(donate_all):
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


def test_hooks_get_the_gradient_the_node_was_given(donate_all):
    x = gradcli.linspace(-1, 1, 20, dtype=gradcli.float64, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (grad_inputs[0]._data.copy(), grad_outputs[0]._data.copy())))
    (y * 4.0).sum().backward()
    np.testing.assert_allclose(seen[0][1], np.full(20, 4.0))
    np.testing.assert_allclose(seen[0][0], 4.0 * np.exp(x._data))


def test_create_graph_keeps_every_gradient(donate_all):
    x = gradcli.linspace(-1, 1, 20, dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad((x.sin() * 2.0).sum(), x, create_graph=True)
    (h,) = gradcli.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g._data, 2 * np.cos(x._data))
    np.testing.assert_allclose(h._data, -2 * np.sin(x._data))


# ------------------------------------------------------------------ what it buys

def _backward_peak(n):
    x = gradcli.tensor(np.linspace(-1, 1, n), requires_grad=True)
    y = x
    for _ in range(4):
        y = (y * 0.5).exp()
    loss = y.sum()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        loss.backward()
        return tracemalloc.get_traced_memory()[1] - start, x.grad._data.copy()
    finally:
        tracemalloc.stop()


def test_a_big_pass_allocates_one_gradient_at_a_time(monkeypatch):
    n = 1 << 17  # above DONATE_MIN_SIZE: the default setting
    nbytes = n * 8
    assert n >= graph.DONATE_MIN_SIZE
    peak, donated = _backward_peak(n)
    monkeypatch.setattr(graph, "DONATE_MIN_SIZE", NEVER)
    peak_plain, plain = _backward_peak(n)
    np.testing.assert_array_equal(donated, plain)
    # without donation each node's result is a new array while its gradient is alive
    assert peak < 1.5 * nbytes <= peak_plain
