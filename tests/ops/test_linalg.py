"""Linear algebra ops: matmul's decomposition (each case's grad_fn graph), mm/mv/bmm/dot and
their errors, outer, trace, diag, tril/triu, det, inverse, torch.linalg (solve, inv, det,
slogdet, norms, cross).  Programs run against gradcli and, when installed, PyTorch."""

import numpy as np
import pytest

import gradcli
from gradcli.autograd import grad, gradcheck, gradgradcheck

from op_oracle import assert_same, run

PROGRAMS = {
    # matmul: one case per branch of aten::matmul
    "matmul_1d_1d": "v @ v",
    "matmul_2d_1d": "x @ v",
    "matmul_1d_2d": "w @ x",
    "matmul_2d_2d": "x @ m",
    "matmul_3d_2d": "b @ m",
    "matmul_3d_3d": "b @ c",
    "matmul_3d_1d": "b @ v",
    "matmul_1d_3d": "w @ b",
    "matmul_2d_3d": "u.t() @ b",
    "matmul_4d_3d": "b.unsqueeze(0).expand(2, 2, 3, 4) @ c",
    "matmul_broadcast_batch_of_one": "b[:1] @ c",
    "matmul_no_grad_fold": "b @ m.detach()",
    "matmul_noncontiguous_batch": "b.transpose(0, 1).detach().requires_grad_() @ m.detach()",
    "matmul_function": "torch.matmul(x, m)",
    "matmul_double_backward": "y = ((x @ m) * (x @ m)).sum()\n"
                              "gx, = torch.autograd.grad(y, x, create_graph=True)\n"
                              "gx",
    "matmul_error_0d": "s @ x",
    "matmul_error_1d_1d": "v @ w",
    "matmul_error_2d_1d": "x @ w",
    "matmul_error_1d_2d": "v @ x",
    "matmul_error_2d_2d": "x @ x",
    "matmul_error_3d_2d": "b @ x",
    "matmul_error_3d_3d": "b @ b",
    "matmul_error_batch": "b @ torch.ones(3, 4, 2)",
    "matmul_error_dtype": "x @ m.double()",
    "matmul_int": "torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 3, dtype=torch.long)",
    "mm": "x.mm(m)",
    "mm_function": "torch.mm(x, m)",
    "mm_error_shape": "x.mm(x)",
    "mm_error_1d": "v.mm(x)",
    "mm_error_1d_other": "x.mm(v)",
    "mm_error_dtype": "x.mm(m.double())",
    "mv": "x.mv(v)",
    "mv_error_shape": "x.mv(w)",
    "mv_error_dims": "x.mv(x)",
    "bmm": "b.bmm(c)",
    "bmm_error_2d": "x.bmm(x)",
    "bmm_error_shape": "b.bmm(b)",
    "dot": "v.dot(v * 2)",
    "dot_function": "torch.dot(w, w)",
    "dot_error_2d": "x.dot(x)",
    "dot_error_size": "v.dot(w)",
    "dot_error_dtype": "v.dot(v.double())",
    "outer": "torch.outer(v, w)",
    "outer_method": "w.outer(v)",
    "ger": "w.ger(v)",
    "outer_error": "x.outer(v)",
    "trace": "x.trace()",
    "trace_error": "b.trace()",
    "diag_vector": "torch.diag(v)",
    "diag_vector_offset": "v.diag(1)",
    "diag_matrix": "x.diag()",
    "diag_matrix_offset": "x.diag(-1)",
    "diag_error": "b.diag()",
    "diag_embed": "torch.diag_embed(u)",
    "diagonal": "x.diagonal()",
    "diagonal_offset_dims": "b.diagonal(1, 1, 2)",
    "diagonal_is_view": "y = x.detach()\nd = y.diagonal()\nd.mul_(0)\ny",
    "tril": "x.tril()",
    "triu": "torch.triu(x, diagonal=1)",
    "tril_batch": "b.tril(-1)",
    "tril_error": "v.tril()",
    "det": "A.det()",
    "det_function": "torch.det(A)",
    "linalg_det": "torch.linalg.det(B)",
    "det_singular_grad": "S = torch.tensor([[1., 2.], [2., 4.]], requires_grad=True)\n"
                         "S.det().backward()\nS.grad + 0",
    "det_double_backward": "d = A.det()\n"
                           "g, = torch.autograd.grad(d, A, create_graph=True)\n"
                           "g",
    "det_error_shape": "x.det()",
    "det_error_1d": "v.det()",
    "det_error_int": "torch.ones(2, 2, dtype=torch.long).det()",
    "inverse": "A.inverse()",
    "linalg_inv": "torch.linalg.inv(B)",
    "inverse_double_backward": "y = A.inverse().sum()\n"
                               "g, = torch.autograd.grad(y, A, create_graph=True)\n"
                               "g",
    "inverse_singular": "torch.tensor([[1., 2.], [2., 4.]]).inverse()",
    "inverse_zero": "torch.zeros(2, 2).inverse()",
    "inverse_batch_singular": "torch.linalg.inv(torch.zeros(2, 2, 2))",
    "inverse_error_shape": "x.inverse()",
    "solve_vector": "torch.linalg.solve(A, w)",
    "solve_matrix": "torch.linalg.solve(A, u.t())",
    "solve_batch": "torch.linalg.solve(B, u)",
    "solve_right": "torch.linalg.solve(A, u, left=False)",
    "solve_singular": "torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))",
    "solve_shape_error": "torch.linalg.solve(A, torch.ones(2))",
    "solve_dtype_error": "torch.linalg.solve(A, w.double())",
    "slogdet": "torch.linalg.slogdet(A)",
    "vector_norm": "torch.linalg.vector_norm(x)",
    "vector_norm_dim": "torch.linalg.vector_norm(x, dim=1)",
    "vector_norm_keepdim": "torch.linalg.vector_norm(b, ord=3, dim=(0, 2), keepdim=True)",
    "vector_norm_1": "torch.linalg.vector_norm(v, ord=1)",
    "vector_norm_inf": "torch.linalg.vector_norm(x, ord=float('inf'), dim=0)",
    "vector_norm_neg_inf": "torch.linalg.vector_norm(v, ord=-float('inf'))",
    "vector_norm_0": "torch.linalg.vector_norm(v, ord=0)",
    "vector_norm_half": "torch.linalg.vector_norm(v, ord=0.5)",
    "vector_norm_zero_vector": "z = torch.zeros(3, requires_grad=True)\n"
                               "torch.linalg.vector_norm(z).backward()\nz.grad",
    "vector_norm_int_error": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.long))",
    "norm_default": "torch.linalg.norm(x)",
    "norm_vector_ord": "torch.linalg.norm(v, ord=1)",
    "norm_dim": "torch.linalg.norm(x, dim=1)",
    "norm_matrix_1": "torch.linalg.norm(x, ord=1)",
    "norm_matrix_inf_keepdim": "torch.linalg.norm(x, ord=float('inf'), dim=(0, 1), keepdim=True)",
    "norm_3d_error": "torch.linalg.norm(b, ord=2)",
    "norm_dims_error": "torch.linalg.norm(b, dim=(0, 1, 2))",
    "matrix_norm_fro": "torch.linalg.matrix_norm(x)",
    "matrix_norm_neg1": "torch.linalg.matrix_norm(b, ord=-1)",
    "matrix_norm_2": "torch.linalg.matrix_norm(x, ord=2)",
    "matrix_norm_nuc": "torch.linalg.matrix_norm(b, ord='nuc')",
    "matrix_norm_neg2": "torch.linalg.matrix_norm(x, ord=-2)",
    "matrix_norm_error_ord": "torch.linalg.matrix_norm(x, ord=3)",
    "matrix_norm_error_1d": "torch.linalg.matrix_norm(v)",
    "cross": "torch.linalg.cross(u, u.flip(1))",
    "cross_error": "torch.linalg.cross(v, v)",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    assert_same(run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name])))


# ---------------------------------------------------------------- plain specifications

def leaf(*shape, seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed)
    return gradcli.tensor(rng.uniform(low, high, size=shape), dtype=gradcli.float64,
                          requires_grad=True)


@pytest.mark.parametrize("shapes, names", [
    (((3,), (3,)), ("DotBackward0",)),
    (((2, 3), (3,)), ("MvBackward0",)),
    (((3,), (3, 2)), ("SqueezeBackward4", "MmBackward0")),
    (((2, 3), (3, 2)), ("MmBackward0",)),
    (((2, 2, 3), (3, 2)), ("UnsafeViewBackward0", "MmBackward0")),
    (((2, 2, 3), (2, 3, 2)), ("UnsafeViewBackward0", "BmmBackward0")),
])
def test_matmul_decomposes_like_aten(shapes, names):
    a, b = leaf(*shapes[0]), leaf(*shapes[1], seed=1)
    fn = (a @ b).grad_fn
    for name in names:
        assert fn.name() == name
        fn = fn.next_functions[0][0]


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (3, 2)), ((2, 2, 3), (2, 3, 2)), ((3,), (2, 3, 2)),
                                    ((1, 2, 3), (2, 3, 2)), ((2, 3), (2, 3, 2))])
def test_matmul_first_and_second_derivatives(shapes):
    a, b = leaf(*shapes[0]), leaf(*shapes[1], seed=1)
    assert gradcheck(gradcli.matmul, (a, b))
    assert gradgradcheck(gradcli.matmul, (a, b))


def test_matmul_error_messages():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        gradcli.ones(2, 3) @ gradcli.ones(2, 3)
    with pytest.raises(RuntimeError, match="expected tensor \\[3\\] and src \\[2\\]"):
        gradcli.ones(3) @ gradcli.ones(2)
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 2D tensors"):
        gradcli.ones(2, 2).dot(gradcli.ones(2, 2))


def test_det_inverse_solve_second_derivatives():
    A = gradcli.tensor([[3., 1., 0.5], [0.2, 2., 0.1], [0.3, -0.4, 4.]], dtype=gradcli.float64,
                       requires_grad=True)
    rhs = leaf(3, 2, seed=3)
    for fn, inputs in [(gradcli.det, (A,)), (gradcli.inverse, (A,)),
                       (gradcli.linalg.solve, (A, rhs)), (gradcli.linalg.inv, (A,))]:
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)


def test_det_gradient_of_a_singular_matrix_is_zero_but_its_graph_the_adjugate():
    S = gradcli.tensor([[1., 2.], [2., 4.]], requires_grad=True)
    S.det().backward()
    assert S.grad.tolist() == [[0., 0.], [0., 0.]]  # PyTorch's LU-based answer
    g, = grad(S.det(), S, create_graph=True)
    assert np.allclose(g.tolist(), [[4., -2.], [-2., 1.]])


def test_singular_inverse_raises_linalg_error():
    with pytest.raises(gradcli.linalg.LinAlgError, match="The diagonal element 2 is zero"):
        gradcli.tensor([[1., 2.], [2., 4.]]).inverse()
    assert issubclass(gradcli.linalg.LinAlgError, RuntimeError)


def test_vector_norm_gradient_is_zero_at_zero():
    z = gradcli.zeros(3, requires_grad=True)
    gradcli.linalg.vector_norm(z).backward()
    assert z.grad.tolist() == [0., 0., 0.]


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, float("inf"), -float("inf")])
def test_vector_norm_derivatives(ord):
    x = leaf(2, 3, seed=4, low=0.2, high=2.0)
    fn = lambda t: gradcli.linalg.vector_norm(t, ord=ord, dim=1)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_jvp_of_linear_algebra_ops():
    A = gradcli.tensor([[3., 1.], [0.5, 2.]], dtype=gradcli.float64, requires_grad=True)
    v = leaf(2, seed=5)
    for fn, inputs in [(gradcli.matmul, (A, v)), (gradcli.det, (A,)), (gradcli.inverse, (A,)),
                       (gradcli.linalg.solve, (A, v)), (gradcli.trace, (A,))]:
        assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False)


def test_matmul_saves_its_inputs_like_pytorch():
    a, b = leaf(2, 3), leaf(3, 2, seed=1)
    y = (a @ b).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
