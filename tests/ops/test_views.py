"""In-place writes into views of tensors in a graph: the base's history is rebased (CopySlices)
and the view's is regenerated (AsStridedBackward0), so gradients are PyTorch's."""

import numpy as np
import pytest

import gradcli
from gradcli.ops.views import positions

PROGRAMS = {
    "mul_on_slice": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 2\nv = y[:2]\nv.mul_(3)\ny.sum().backward()\n"),
    "mul_by_tensor_on_slice": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\nw = T.tensor([5., 7.], requires_grad=True)\n"
        "y = x * 2\nv = y[:2]\nv.mul_(w)\n(y * y).sum().backward()\n"),
    "exp_on_whole_view": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 2\nv = y.view(3)\nv.exp_()\ny.sum().backward()\n"),
    "sin_on_tail": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 1\ny[1:].sin_()\ny.sum().backward()\n"),
    "add_on_unsqueezed": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 1\nc = y.unsqueeze(0)\nc.add_(x)\n(y * y).sum().backward()\n"),
    "column_of_a_matrix": (
        "x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
        "y = x ** 2\ny[:, 1].mul_(3)\ny[:, 0].add_(x[:, 1])\n(y * x).sum().backward()\n"),
    "setitem_into_a_view": (
        "x = T.tensor([1., 2., 3., 4.], requires_grad=True)\nw = T.tensor(5., requires_grad=True)\n"
        "y = x * 3\nv = y[1:3]\nv[0] = w * 2\n(y * x).sum().backward()\n"),
    "transpose_view": (
        "x = T.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
        "y = x * 1\nt = y.t()[0]\nt.mul_(10)\n(y ** 2).sum().backward()\n"),
    "view_of_a_base_without_grad": (
        "w = T.tensor([2., 3.], requires_grad=True)\nx = T.zeros(4)\n"
        "x[1:3].add_(w)\n(x * x).sum().backward()\n"),
    # a view written through another alias gets a fresh AsStridedBackward0 (regenerated)
    "sibling_of_a_written_view": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 1\ns = y[1:]\ny[:2].mul_(10)\n(s * s).sum().backward()\n"),
    "view_after_its_detached_alias_is_zeroed": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "y = x * 2\nv = y[1:]\nd = v.detach()\nd.zero_()\n(v * x[1:]).sum().backward()\n"),
    "view_after_the_base_is_written": (
        "x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
        "y = x + 0\nt = y.t()\ns = y[1]\ny.mul_(3)\n(t * s).sum().backward()\n"),
    "view_of_a_leaf_written_without_grad": (
        "x = T.tensor([1., 2., 3.], requires_grad=True)\n"
        "v = x[:2]\ns = x.unsqueeze(0)\nwith T.no_grad():\n    x[2:].mul_(2)\n"
        "(v * s[0, 1:]).sum().backward()\n"),
    "sibling_of_a_base_that_gains_grad": (
        "w = T.tensor([2., 3.], requires_grad=True)\nx = T.zeros(4)\ns = x[2:]\n"
        "x[:2].add_(w)\n(s + x[1]).sum().backward()\n"),
}


def run(lib, source):
    ns = {"T": lib}
    exec(source, ns)
    out = {}
    for name in ("x", "w"):
        t = ns.get(name)
        if t is not None and getattr(t, "grad", None) is not None:
            out[name + ".grad"] = np.asarray(t.grad.tolist())
    for name in ("y", "v", "c", "t", "x", "s"):
        t = ns.get(name)
        if t is not None and t.grad_fn is not None:
            out[name + ".grad_fn"] = type(t.grad_fn).__name__
            out[name + ".next"] = [None if f is None else type(f).__name__
                                   for f, _ in t.grad_fn.next_functions]
    return out


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    got, expected = run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name]))
    assert got.keys() == expected.keys()
    for key in expected:
        if key.endswith(".grad"):
            np.testing.assert_allclose(got[key], expected[key], rtol=1e-6)
        else:
            assert got[key] == expected[key], key


def test_gradients_of_a_write_into_a_slice():
    x = gradcli.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    v = y[:2]
    v.mul_(3)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is y.grad_fn
    y.sum().backward()
    assert x.grad.tolist() == [6., 6., 2.]


def test_second_order_through_copy_slices():
    x = gradcli.tensor([1., 2., 3.], dtype=gradcli.float64, requires_grad=True)
    y = x * 1
    y[:2].pow_(3)
    (g,) = gradcli.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [3., 12., 1.]
    (h,) = gradcli.autograd.grad(g.sum(), x)
    assert h.tolist() == [6., 12., 0.]


def test_backward_twice_through_copy_slices_fails_as_pytorch():
    x = gradcli.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y[:1].exp_()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_positions_of_strided_views():
    base = np.arange(12.).reshape(3, 4)
    assert positions(base[1:, ::2], base).tolist() == [[4, 6], [8, 10]]
    assert positions(base.T[1], base).tolist() == [1, 5, 9]
    assert positions(base[:, None, 2], base).tolist() == [[2], [6], [10]]
    flipped = base[::-1]  # a base that is itself read backwards
    assert positions(flipped[0], flipped).tolist() == [0, 1, 2, 3]
    assert positions(base[2:2], base).shape == (0, 4)


def test_sibling_views_are_regenerated():
    x = gradcli.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    sibling = y[1:]
    y[:2].mul_(10)
    assert sibling.grad_fn.name() == "AsStridedBackward0"
    assert sibling.grad_fn.next_functions[0][0] is y.grad_fn  # on the base's new history


def test_dead_views_leave_nothing_behind():
    import gc
    x = gradcli.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    for _ in range(100):
        y[0]
    gc.collect()
    assert len(y._counter[1]) == 0
    y[:1].mul_(2)  # (nothing to regenerate)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"


NO_GRAD_VIEW_STEPS = [  # (statement, expression whose repr or error is compared)
    ("v = y[1:]", "v"), ("q = x[1:]", "q"), ("d = y.detach()[1:]", "d"),
    ("i = T.arange(3)[1:]", "i"), (None, "v.is_leaf"), (None, "v.grad_fn"),
    ("v2 = v[0:1]", "v2"), (None, "v2.grad_fn.next_functions[0][0]"),
    ("(v2 * 2).sum().backward()", "v.grad"), (None, "x.grad"),
    (None, "v.mul_(2)"), (None, "v2.mul_(2)"), (None, "v[0].mul_(2)"),
    (None, "v.view(2).mul_(2)"), ("v2[0] = 5.", None), ("v[...] = 5.", None),
    ("v[0:1] = 5.", None),
]


def _no_grad_view_session(T):
    """Views made in no_grad mode: they require grad when the base does, lead gradients
    nowhere, and may not be written in place with grad mode on."""
    ns = {"T": T}
    exec("x = T.tensor([1., 2., 3.], requires_grad=True)\ny = x * 1\n", ns)
    out = []
    for i, (statement, expression) in enumerate(NO_GRAD_VIEW_STEPS):
        try:
            if statement is not None:
                if i < 4:  # the views themselves are made in no_grad mode
                    with T.no_grad():
                        exec(statement, ns)
                else:
                    exec(statement, ns)
            if expression is not None:
                value = eval(expression, ns)
                out.append(type(value).__name__ if "next_functions" in expression
                           else repr(value))
        except RuntimeError as e:
            out.append(f"RuntimeError: {e}")
    return out


def test_views_made_in_no_grad_mode_match_pytorch(oracle):
    assert _no_grad_view_session(gradcli) == oracle(_no_grad_view_session)


def test_writing_into_a_view_made_in_no_grad_mode_is_an_error():
    x = gradcli.tensor([1., 2., 3.], requires_grad=True)
    with gradcli.no_grad():
        w = x[1:]
        plain = (x * 1)[1:]
    assert w.requires_grad and w.is_leaf and w.grad_fn is None and not plain.requires_grad
    with pytest.raises(RuntimeError, match=r"^A view was created in no_grad mode and is being "
                                           r"modified inplace with grad mode enabled"):
        w.add_(1)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Select is a view of a view which was "
                                           r"created in no_grad mode"):
        w[0] = 2.
    with gradcli.no_grad():
        w.add_(1)  # inside no_grad it is allowed
    assert x.tolist() == [1., 3., 4.]


def test_copy_slices_copies_the_region_s_gradient_and_zero_formulas_are_zeros():
    """CopySlices writes the in-place op's gradient into the region (a -0. stays -0.), and
    formulas PyTorch writes as zeros_like(grad) give +0. (not g * 0: -0., or nan for inf)."""
    x = gradcli.tensor([1., 1.], requires_grad=True)
    y = x * 1
    y.unsqueeze(0).sin_()
    (y * gradcli.tensor([-0., 1.])).sum().backward()
    assert np.signbit(x.grad.numpy()).tolist() == [True, False]
    x = gradcli.tensor([-1.5, 2.5], requires_grad=True)
    (x.floor() * gradcli.tensor([-1., float("inf")])).sum().backward()
    assert x.grad.tolist() == [0., 0.] and not np.signbit(x.grad.numpy()).any()
