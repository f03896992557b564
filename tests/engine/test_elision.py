"""Forward temporary elision (gradcli.ops.elision): an operator whose operand is a big
temporary that only the evaluation stack holds computes into that operand's array; anything
else that could ever read the operand again keeps it intact."""

import itertools
import threading
import tracemalloc

import numpy as np
import pytest

import gradcli as torch
from gradcli.ops import elision

pytestmark = pytest.mark.skipif(elision.EXPECTED_REFS is None,
                                reason="reference counts of this interpreter prove nothing")

N = 1 << 16  # float64: 512 KiB, above ELIDE_BYTES
MB = N * 8


@pytest.fixture(autouse=True, scope="module")
def made_operators():
    """Tensor's operators are made at their first use, which goes through a bound method (an
    extra reference: that one call is not elided), and an op takes its fast path once
    prepared (torch.exp: at its first recorded use); make them first."""
    t = torch.ones(2, requires_grad=True)
    t + 1, 1 + t, t - 1, t * 2, 2 * t, -t, torch.exp(t), t.exp(), t.add(1), t.neg(), torch.neg(t)


def big(seed=0, requires_grad=False):
    values = np.random.default_rng(seed).uniform(0.5, 1.5, N)
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad), values


def peak_of(fn):
    """The peak of NumPy's traced allocations while fn runs, and fn's result."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        return tracemalloc.get_traced_memory()[1] - base, result
    finally:
        tracemalloc.stop()


def test_threshold_is_numpys():
    assert elision.ELIDE_BYTES == 256 * 1024
    assert MB >= elision.ELIDE_BYTES


@pytest.mark.parametrize("grad", [False, True])
def test_chain_of_operators_allocates_one_array(grad):
    x, a = big(requires_grad=grad)
    peak, y = peak_of(lambda: -(x * 0.5 + 0.1) * 2 - 3)
    assert peak < 1.5 * MB  # one array, written four more times (NumPy: the same)
    np.testing.assert_array_equal(y.detach().numpy(), -(a * 0.5 + 0.1) * 2 - 3)
    assert x.detach().numpy().tolist() == a.tolist()
    if grad:
        assert type(y.grad_fn).__name__ == "SubBackward0"
        y.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full(N, -1.0))


def test_named_operand_is_not_written():
    x, a = big()
    p = x * 0.5
    peak, y = peak_of(lambda: p + 0.1)
    assert peak >= MB
    np.testing.assert_array_equal(p.numpy(), a * 0.5)
    np.testing.assert_array_equal(y.numpy(), a * 0.5 + 0.1)


def test_either_operand_and_reflected_operators():
    x, a = big(1)
    w, b = big(2)
    for fn, expected in [(lambda: w + x * 2, b + a * 2), (lambda: x * 2 + w, a * 2 + b),
                         (lambda: 3 * (x * 2), 3 * (a * 2)), (lambda: 1 + x * 2, 1 + a * 2),
                         (lambda: (x * 2) * (w * 3), (a * 2) * (b * 3))]:
        peak, y = peak_of(fn)
        np.testing.assert_array_equal(y.numpy(), expected)
        assert peak < 2.5 * MB
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(w.numpy(), b)


def test_operand_the_next_op_saves_is_not_written():
    # mul saves self for other's gradient; exp saves its output for its own
    x, a = big(3, requires_grad=True)
    w, b = big(4, requires_grad=True)
    y = (x * 2) * w
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), a * 2)
    np.testing.assert_array_equal(x.grad.numpy(), b * 2)
    x.grad = None
    z = torch.exp(x * 1) + 1
    np.testing.assert_array_equal(z.grad_fn.next_functions[0][0]._saved_result.detach().numpy(),
                                  np.exp(a))
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(a), rtol=1e-15)


def test_leaf_view_and_alias_are_not_written():
    x, a = big(5)
    leaf = torch.tensor(a, requires_grad=True)
    y = leaf * 1 + 0  # leaf is held by its variable; the product is not a leaf
    assert y.grad_fn is not None
    view = (x * 2)[::1]
    np.testing.assert_array_equal((view + 1).numpy(), a * 2 + 1)
    np.testing.assert_array_equal(view.numpy(), a * 2)
    alias = (x * 2).numpy()
    np.testing.assert_array_equal(alias, a * 2)
    t = torch.from_numpy(alias)
    np.testing.assert_array_equal((t + 1).numpy(), a * 2 + 1)
    np.testing.assert_array_equal(alias, a * 2)
    held = [x * 2]
    np.testing.assert_array_equal((held[0] + 1).numpy(), a * 2 + 1)
    np.testing.assert_array_equal(held[0].numpy(), a * 2)


def test_object_array_elements_are_not_written():
    x, a = big(6)
    objects = np.empty(1, dtype=object)
    objects[0] = x * 2
    result = objects + 1  # NumPy's loop holds the only other reference, then reads it again
    np.testing.assert_array_equal(result[0].numpy(), a * 2 + 1)
    np.testing.assert_array_equal(objects[0].numpy(), a * 2)
    # made by the instruction before and never stored: only the temporary array sees it
    objects[0] = x
    again = np.multiply(objects, 2) + 1
    np.testing.assert_array_equal(again[0].numpy(), a * 2 + 1)
    np.testing.assert_array_equal(x.numpy(), a)


def test_result_a_c_iterator_keeps_is_not_written():
    # accumulate's C code makes each running total, keeps it and hands it out: made by the
    # instruction before, with only loads since, but held twice
    x, a = big(11)
    totals = itertools.accumulate([x, x, x])
    next(totals)
    second = next(totals) + 1
    third = next(totals)
    np.testing.assert_array_equal(second.numpy(), a + a + 1)
    np.testing.assert_array_equal(third.numpy(), a + a + a)


def test_functions_and_methods_of_the_op_table():
    # torch.exp(t), t.exp(), torch.add(t, 1), t.add(1): each path's own count (EXPECTED_REFS)
    x, a = big(7, requires_grad=True)
    for fn, expected in [(lambda: torch.add(x * 2, 1), a * 2 + 1),
                         (lambda: (x * 2).add(1), a * 2 + 1),
                         (lambda: (x * 2).neg(), -(a * 2)), (lambda: torch.neg(x * 2), -(a * 2)),
                         (lambda: torch.exp(x * 2), np.exp(a * 2)),
                         (lambda: (x * 2).exp(), np.exp(a * 2)),
                         (lambda: torch.Tensor.exp(x * 2), np.exp(a * 2)),
                         (lambda: torch.add(x, x * 2), a + a * 2)]:
        peak, y = peak_of(fn)
        assert peak < 1.5 * MB, fn
        np.testing.assert_array_equal(y.detach().numpy(), expected)
    y = torch.exp(x * 2).sum() + (x * 3).exp().sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(a * 2) + 3 * np.exp(a * 3),
                               rtol=1e-14)
    np.testing.assert_array_equal(x.detach().numpy(), a)


def test_other_calling_paths_take_the_ordinary_path():
    import functools
    x, a = big(15)

    def exp(t):
        return torch.exp(t)
    w = x.detach().requires_grad_()
    for fn in (lambda: torch.add(x * 2, 1, alpha=3), lambda: (x * 2).add(1, alpha=3),
               lambda: functools.partial(torch.add, x * 2)(1),  # (the partial holds it)
               lambda: exp(x * 2),  # (made in another frame than the one calling exp)
               lambda: torch.sin(w * 2),  # (sin saves its input for its gradient)
               lambda: torch.mul(w, w * 2)):  # (mul saves other for self's gradient)
        peak, y = peak_of(fn)
        assert peak >= 2 * MB, fn
    np.testing.assert_array_equal(torch.add(x * 2, 1, alpha=3).numpy(), a * 2 + 3)
    np.testing.assert_array_equal(x.numpy(), a)


def test_stored_or_returned_temporaries_are_not_written():
    x, a = big(8)
    box = {}

    def keep(t):
        box["t"] = t
        return t

    np.testing.assert_array_equal((keep(x * 2) + 1).numpy(), a * 2 + 1)
    np.testing.assert_array_equal(box["t"].numpy(), a * 2)

    def made_elsewhere():
        return x * 2
    peak, y = peak_of(lambda: made_elsewhere() + 1)  # another frame made it: not elided
    assert peak >= 2 * MB
    np.testing.assert_array_equal(y.numpy(), a * 2 + 1)


def test_modes_that_observe_operations_turn_it_off():
    x, a = big(9, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = (x * 2 + 1) * x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * a + 1, rtol=1e-15)
    x.grad = None
    with torch.autograd.detect_anomaly():
        y = (x * 2 + 1).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 2.0))
    import gradcli.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(x.detach(), torch.ones(N, dtype=torch.float64))
        out = (d * 3) * d
        primal, tangent = fwAD.unpack_dual(out)
    np.testing.assert_allclose(primal.numpy(), 3 * a * a, rtol=1e-15)
    np.testing.assert_allclose(tangent.numpy(), 6 * a, rtol=1e-15)


def test_forward_ad_reads_the_operands_after_the_forward():
    # mul's tangent reads the primal of an operand without a tangent of its own
    import gradcli.autograd.forward_ad as fwAD
    x, a = big(12)
    b = np.random.default_rng(13).uniform(0.5, 1.5, N)
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(b, dtype=torch.float64),
                           torch.ones(N, dtype=torch.float64))
        primal, tangent = fwAD.unpack_dual((x * 3) * d)
    np.testing.assert_allclose(primal.numpy(), 3 * a * b, rtol=1e-15)
    np.testing.assert_allclose(tangent.numpy(), 3 * a, rtol=1e-15)


def test_a_recording_keeps_the_inputs_it_saw():
    # graph --values, explain and why show each node's inputs after the program has run
    from gradcli.analysis.record import Recording
    x, a = big(14, requires_grad=True)
    with Recording() as recording:
        y = x * 2 + 1
    record = recording.records[y.grad_fn]
    np.testing.assert_array_equal(record.inputs[0].detach().numpy(), a * 2)
    np.testing.assert_array_equal(y.detach().numpy(), a * 2 + 1)


def test_float32_and_small_tensors():
    x = torch.tensor(np.linspace(0, 1, N), dtype=torch.float32)
    peak, y = peak_of(lambda: x * 0.5 + 0.25)
    assert y.dtype == torch.float32 and peak < 1.5 * (N * 4)
    np.testing.assert_array_equal(y.numpy(), (x.numpy() * np.float32(0.5)) + np.float32(0.25))
    small = torch.tensor([1.0, 2.0])
    assert (small * 2 + 1).tolist() == [3.0, 5.0]
    assert (torch.tensor(2.0) * 3 + 1).item() == 7.0


def test_passive_window():
    def f(x):
        y = x * 2
        return y + 1, x * 2 + 1
    import dis
    ins = [i for i in dis.get_instructions(f) if i.opname.startswith("BINARY_")]  # (3.10's too)
    code = f.__code__
    # `y = x * 2` stores the product before `y + 1` reads it
    assert not elision._passive_between(code, ins[0].offset, ins[1].offset)
    assert elision._passive_between(code, ins[2].offset, ins[3].offset)
    assert not elision._passive_between(code, ins[3].offset, ins[2].offset)
    # the answers do not keep code alive (a REPL line's, a finished program's)
    import gc
    import weakref
    scratch = compile("y = x * 2 + 1", "<line>", "exec")
    elision._passive_between(scratch, 0, 2)
    ref = weakref.ref(scratch)
    del scratch
    gc.collect()
    assert ref() is None


def test_threads_see_their_own_temporaries():
    x, a = big(10)
    errors = []

    def work(k):
        for _ in range(20):
            y = (x * k + 1) * 2
            if not np.array_equal(y.numpy(), (a * k + 1) * 2):
                errors.append(k)
    threads = [threading.Thread(target=work, args=(k,)) for k in (2.0, 3.0, 5.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    np.testing.assert_array_equal(x.numpy(), a)
