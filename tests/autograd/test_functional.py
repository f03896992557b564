"""autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp, with PyTorch's result nesting."""

import pytest

import gradcli as torch
from gradcli.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def f(t):
    return torch.stack([t[0] * t[1], t[0] ** 2, torch.sin(t[1])])


X = [1.0, 2.0]
J = [[2.0, 1.0], [2.0, 0.0], [0.0, -0.41614684]]


def close(t, expected):
    import numpy as np
    return np.allclose(t.detach().numpy(), expected, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"vectorize": True},
                                    {"vectorize": True, "strategy": "forward-mode"}])
def test_jacobian_single_input_single_output(kwargs):
    result = jacobian(f, torch.tensor(X), **kwargs)
    assert isinstance(result, torch.Tensor) and result.shape == (3, 2)
    assert close(result, J) and not result.requires_grad


def test_jacobian_nesting_for_tuples():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    both = jacobian(lambda a, b: (a * b, a.exp().sum()), (a, b))
    assert isinstance(both, tuple) and len(both) == 2 and len(both[0]) == 2
    assert both[1][0].shape == (2,) and close(both[0][0], [[3, 0], [0, 4]])
    one_output = jacobian(lambda a, b: a * b, (a, b))
    assert isinstance(one_output, tuple) and len(one_output) == 2
    one_input = jacobian(lambda a: (a * 2, a.sum()), a)
    assert isinstance(one_input, tuple) and close(one_input[1], [1, 1])
    forward = jacobian(lambda a, b: (a * b, a.sum()), (a, b), vectorize=True,
                       strategy="forward-mode")
    assert isinstance(forward, list) and isinstance(forward[0], list)


def test_jacobian_of_independent_output_is_zero_or_strict_error():
    a = torch.tensor([1.0, 2.0])
    assert close(jacobian(lambda a: torch.ones(2), a), [[0, 0], [0, 0]])
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not"):
        jacobian(lambda a: torch.ones(2), a, strict=True)


def test_jacobian_create_graph_and_argument_errors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    jac = jacobian(lambda t: t ** 3, x, create_graph=True)
    assert jac.grad_fn.name() == "ViewBackward0"
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(f, x, strategy="forward-mode")
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        jacobian(f, [x])


def test_hessian():
    h = lambda t: (t ** 3).sum() + t[0] * t[1]
    a = torch.tensor([1.0, 2.0])
    assert close(hessian(h, a), [[6, 1], [1, 12]])
    pair = hessian(lambda a, b: (a * b).sum() + (a ** 2).sum(), (a, torch.tensor([3.0, 4.0])))
    assert close(pair[0][1], [[1, 0], [0, 1]]) and close(pair[1][1], [[0, 0], [0, 0]])
    with pytest.raises(RuntimeError, match="should contain a single element"):
        hessian(f, a)


def test_vector_products():
    x = torch.tensor(X)
    out, v_j = vjp(f, x, torch.tensor([1.0, 0.5, 2.0]))
    assert close(v_j, [3.0, 0.16770633])
    out, j_v = jvp(f, x, torch.tensor([1.0, 0.0]))
    assert close(j_v, [2.0, 2.0, 0.0])
    h = lambda t: (t ** 3).sum() + t[0] * t[1]
    a = torch.tensor([1.0, 2.0])
    value, h_v = hvp(h, a, torch.tensor([1.0, 0.0]))
    assert value.item() == 11.0 and close(h_v, [6.0, 1.0])
    assert close(vhp(h, a, torch.tensor([1.0, 0.0]))[1], [6.0, 1.0])
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        vjp(f, x)
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be torch.Size\(\[2\]\)"):
        jvp(f, x, torch.ones(3))


def test_jacobian_rows_are_autograd_grad_passes_over_one_graph():
    # the rows' passes share one graph's dependency counts (run_backward's counts): each row
    # is still a pass of its own, as autograd.grad's, hooks and all
    import numpy as np
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    seen = []

    def func(t):
        u = t * t
        u.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
        return u.sin() + t[0] * t

    jac = jacobian(func, x)
    y = func(x)
    rows = [torch.autograd.grad(y, x, torch.eye(3, dtype=torch.float64)[k],
                                retain_graph=True)[0] for k in range(3)]
    assert np.array_equal(jac.numpy(), torch.stack(rows).numpy())
    # a hook's call per row, in each pass: the row's gradient of u, twice over
    assert len(seen) == 6 and all(np.array_equal(a, b) for a, b in zip(seen[:3], seen[3:]))
    assert [int(np.flatnonzero(s)[0]) for s in seen[:3]] == [0, 1, 2]


def test_jacobian_rows_start_at_the_output_itself():
    # a row's one-hot gradient enters the output's own node (no view node of the flattened
    # output in between): a hook on the output sees it in the output's shape, as PyTorch's
    # view node hands it on, and every shape of output gives autograd.grad's rows
    import numpy as np
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64,
                     requires_grad=True)
    seen = []

    def func(t):
        out = t.sin() * t
        out.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
        return out

    jac = jacobian(func, x)
    y = func(x)
    eye = torch.eye(6, dtype=torch.float64)
    rows = [torch.autograd.grad(y, x, eye[k].reshape(2, 3), retain_graph=True)[0]
            for k in range(6)]
    assert np.array_equal(jac.numpy(), torch.stack(rows).reshape(2, 3, 2, 3).numpy())
    assert len(seen) == 12 and all(s.shape == (2, 3) for s in seen)
    assert all(np.array_equal(a, b) for a, b in zip(seen[:6], seen[6:]))
    # the input itself as the output (no node of its own: its flattened view's rows)
    assert np.array_equal(jacobian(lambda t: t, x).numpy(), np.eye(6).reshape(2, 3, 2, 3))


def test_jacobian_rows_start_past_a_one_row_block_s_stack_and_view():
    # hessian's inner jacobian returns stack([row]).view(shape): the outer rows' passes start
    # at the row's own node with the one-hot row reshaped (the gradient those two nodes would
    # hand on), with autograd.grad's results; hooks on those nodes keep them in the pass
    import numpy as np
    x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
    seen = []

    def block(t, hook=None):
        out = torch.stack([(t * t).sin() * t.sum()]).view(1, 2, 2)
        if hook == "node":
            out.grad_fn.register_prehook(lambda g: seen.append(g[0].shape))
        elif hook == "stack":
            out.grad_fn.next_functions[0][0].register_hook(lambda gi, go: seen.append(
                go[0].shape))
        return out

    y = block(x)
    eye = torch.eye(4, dtype=torch.float64)
    rows = [torch.autograd.grad(y, x, eye[k].reshape(1, 2, 2), retain_graph=True)[0]
            for k in range(4)]
    expected = torch.stack(rows).reshape(1, 2, 2, 2, 2).numpy()
    assert np.array_equal(jacobian(block, x).numpy(), expected)
    for hook, shape in (("node", (1, 2, 2)), ("stack", (1, 2, 2))):
        seen.clear()
        assert np.array_equal(jacobian(lambda t: block(t, hook), x).numpy(), expected)
        assert seen == [shape] * 4, hook
    # the input itself stacked (a leaf: its AccumulateGrad), and a view of an input
    assert np.array_equal(jacobian(lambda t: torch.stack([t]).view(1, 2, 2), x).numpy(),
                          np.eye(4).reshape(1, 2, 2, 2, 2))
    v = torch.tensor([1.0, 2.0], dtype=torch.float64)
    h = hessian(lambda t: (t * t * t).sum(), v)
    assert np.array_equal(h.numpy(), np.diag(6 * v.numpy()))
