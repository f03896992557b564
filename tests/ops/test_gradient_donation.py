"""A gradient the backward pass owns (see test_gradient_ownership) is offered to the node it
reaches: a node whose one formula that runs reads the gradient once, as an operand of
+ - * / (`grad * self.cos()`), or passes it on (`grad`), computes into its array, as
hand-written NumPy's `g *= ...` does (engine.backward.Donation).  Big gradients only
(DONATE_MIN_SIZE elements and more); test_gradient_ownership's table-wide check also runs
with the threshold at 0, so that every op's formulas meet an offered gradient on its small
samples.  Offered or not, every gradient is the same to the bit, and nothing the program, a
hook or the graph holds changes."""

import tracemalloc

import numpy as np

import gradcli
from gradcli.autograd import forward_ad as fwAD
from gradcli.engine import backward
from gradcli.ops.nodes import passthrough, takes_gradient

BIG = 1 << 15  # elements: past DONATE_MIN_SIZE
assert BIG >= backward.DONATE_MIN_SIZE


# ------------------------------------------------------------------ which formulas take it

def _formula(op_name, i=0):
    op = gradcli.ops.OPS[op_name].prepare()
    return op.vjps[i][0]


def test_formulas_that_read_the_gradient_once_by_an_operator_take_it():
    assert takes_gradient(_formula("sin"))          # grad * self.cos()
    assert takes_gradient(_formula("exp"))          # grad * result
    assert takes_gradient(_formula("mul", 1))       # grad * self
    assert takes_gradient(passthrough)              # add's self: grad
    assert not takes_gradient(_formula("add", 1))   # grad if alpha == 1 else _mul_s(grad, alpha)
    assert not takes_gradient(lambda g: g * 2.0)    # written by hand: no declaration


# ------------------------------------------------------------------ big gradients

def _big(lo=0.5, hi=1.5, requires_grad=True):
    return gradcli.linspace(lo, hi, BIG, dtype=gradcli.float64, requires_grad=requires_grad)


def test_a_chain_computes_into_one_gradient():
    # 12 products by a constant save nothing; out of place, each node's formula held its
    # gradient and its result at once (two arrays), in place one
    x = _big()
    y = x
    for _ in range(12):
        y = y * 1.25
    loss = y.sum()
    nbytes = BIG * 8
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * nbytes, peak
    np.testing.assert_array_equal(x.grad._data, np.full(BIG, 1.25 ** 12))


def test_the_elementwise_chain_is_exact():
    x = _big()
    y = x
    for _ in range(3):
        y = gradcli.exp(gradcli.sin(y * 0.5 + 0.1) * 0.5)
    y.sum().backward()
    a = x._data
    g = np.ones(BIG)
    saved = []
    for _ in range(3):
        u = a * 0.5 + 0.1
        e = np.exp(np.sin(u) * 0.5)
        saved.append((u, e))
        a = e
    for u, e in reversed(saved):
        g = g * e * 0.5 * np.cos(u) * 0.5
    np.testing.assert_array_equal(x.grad._data, g)


def test_a_gradient_the_program_gave_is_not_written():
    x = _big()
    y = (x * 3.0) * 2.0
    v = _big(requires_grad=False)
    given = v._data.copy()
    y.backward(v)
    np.testing.assert_array_equal(v._data, given)
    np.testing.assert_array_equal(x.grad._data, given * 2.0 * 3.0)


def test_retained_and_hooked_gradients_keep_their_values():
    x = _big()
    y = x * 2.0
    y.retain_grad()
    seen = []
    z = y * 3.0
    z.register_hook(lambda g: seen.append(g))
    ((z * 4.0) * 5.0).sum().backward()
    np.testing.assert_array_equal(seen[0]._data, np.full(BIG, 20.0))
    np.testing.assert_array_equal(y.grad._data, np.full(BIG, 60.0))
    np.testing.assert_array_equal(x.grad._data, np.full(BIG, 120.0))


def test_a_gradient_handed_to_two_nodes_is_taken_by_neither():
    x = _big()
    a = x * 1.5
    ((a.exp() + a.sin()) * 2.0).sum().backward()  # add hands one gradient to exp and sin
    a_ = x._data * 1.5
    np.testing.assert_array_equal(x.grad._data, (2.0 * np.exp(a_) + 2.0 * np.cos(a_)) * 1.5)


def test_two_inputs_with_gradients_both_read_it():
    x = _big()
    w = _big(2.0, 3.0)
    ((x * w) * 2.0).sum().backward()  # mul's g * w and g * x: neither takes g
    np.testing.assert_array_equal(x.grad._data, 2.0 * w._data)
    np.testing.assert_array_equal(w.grad._data, 2.0 * x._data)


def test_graphs_kept_for_another_pass_give_the_same_gradients():
    x = _big()
    loss = (gradcli.sin(x * 2.0) * 3.0).sum()
    loss.backward(retain_graph=True)
    first = x.grad._data.copy()
    loss.backward()
    np.testing.assert_array_equal(x.grad._data, 2 * first)
    (g,) = gradcli.autograd.grad((gradcli.sin(x * 2.0) * 3.0).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g._data, first)


def test_a_captured_input_and_forward_ad_see_the_right_values():
    x = _big()
    y = x * 2.0
    z = (y * 3.0) * 4.0
    (gy,) = gradcli.autograd.grad(z.sum(), y, retain_graph=True)
    np.testing.assert_array_equal(gy._data, np.full(BIG, 12.0))
    with fwAD.dual_level():
        fwAD.make_dual(_big(), _big())  # a level is open during the pass: nothing offered
        z.sum().backward()
    np.testing.assert_array_equal(x.grad._data, np.full(BIG, 24.0))
