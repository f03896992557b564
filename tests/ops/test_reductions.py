"""Reductions: dim (int or tuple) and keepdim, the node names of the reduction over everything
and over dim (SumBackward0/1, MaxBackward1/0), ties split evenly, prod with zeros, the
(values, indices) namedtuples of max/min, var/std corrections, norms, softmax with dtype=, and
nn.functional losses.  Programs run against gradcli and, when installed, PyTorch; the plain
specifications below need no torch."""

import numpy as np
import pytest

import gradcli
import gradcli.nn.functional as F

from op_oracle import assert_same, run

PROGRAMS = {
    "sum": "x.sum()", "sum_dim": "x.sum(1)", "sum_keepdim": "x.sum(0, keepdim=True)",
    "sum_tuple": "b.sum((0, 2))", "sum_dim_none": "x.sum(dim=None)", "sum_empty_dims": "x.sum(())",
    "sum_negative_dim": "b.sum(-1)", "sum_int": "torch.tensor([1, 2, 3]).sum()",
    "sum_bool": "torch.tensor([True, False, True]).sum()",
    "sum_dtype": "x.sum(dtype=torch.float64)", "sum_0d": "s.sum(0)",
    "sum_dim_error": "x.sum(2)", "sum_repeated_dim_error": "x.sum((0, 0))",
    "mean": "x.mean()", "mean_dim": "x.mean(1)", "mean_tuple_keepdim": "b.mean((0, 1), keepdim=True)",
    "mean_int_error": "torch.tensor([1, 2]).mean()",
    "mean_int_dtype": "torch.tensor([1, 2]).mean(dtype=torch.float32)",
    "prod": "x.prod()", "prod_dim": "x.prod(1)", "prod_keepdim": "x.prod(0, keepdim=True)",
    "prod_one_zero": "torch.tensor([2., 0., 3.], requires_grad=True).prod()",
    "prod_two_zeros": "torch.tensor([0., 0., 3.], requires_grad=True).prod()",
    "prod_dim_zeros": "torch.tensor([[2., 0., 3.], [1., 2., 0.], [0., 0., 1.]], requires_grad=True).prod(1)",
    "prod_int": "torch.tensor([1, 2, 3]).prod()",
    "max": "x.max()", "min": "x.min()",
    "max_ties": "torch.tensor([1., 3., 3.], requires_grad=True).max()",
    "min_ties": "torch.tensor([1., 1., 3.], requires_grad=True).min()",
    "max_nan": "torch.tensor([1., float('nan'), 3.], requires_grad=True).max()",
    "max_dim": "x.max(1)", "max_dim_keepdim": "x.max(0, keepdim=True)",
    "max_dim_keyword": "x.max(dim=1)", "min_dim": "x.min(1)",
    "max_dim_values": "x.max(1).values", "max_dim_indices": "x.max(1).indices",
    "max_dim_ties_first_index": "torch.tensor([1., 3., 3.], requires_grad=True).max(0)",
    "max_0d": "s.max(0)", "max_int": "torch.tensor([1, 5, 2]).max()",
    "max_empty_error": "torch.tensor([]).max()", "max_dim_error": "v.max(3)",
    "amax": "x.amax()", "amax_dim": "x.amax(1)", "amax_tuple": "b.amax((0, 2), keepdim=True)",
    "amax_ties": "torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True).amax(1)",
    "amin_ties": "torch.tensor([[1., 1., 3.], [2., 2., 2.]], requires_grad=True).amin()",
    "argmax": "x.argmax()", "argmax_dim": "x.argmax(1)", "argmin_keepdim": "x.argmin(0, keepdim=True)",
    "argmax_keepdim_all": "x.argmax(keepdim=True)",
    "argmax_ties": "torch.tensor([1., 3., 3.]).argmax()",
    "var": "x.var()", "var_dim": "x.var(1)", "var_unbiased_positional": "x.var(0, False)",
    "var_unbiased_only": "x.var(False)", "var_keepdim_positional": "x.var(1, True, True)",
    "var_correction": "x.var(1, correction=2)", "var_tuple": "b.var((0, 2))",
    "std": "x.std()", "std_dim": "x.std(0, keepdim=True)", "std_correction0": "x.std(correction=0)",
    "std_constant": "torch.ones(3, requires_grad=True).std()",
    "std_one_element_warns": "torch.tensor([1.], requires_grad=True).std()",
    "var_int_error": "torch.tensor([1, 2]).var()",
    "norm": "x.norm()", "norm_1": "x.norm(1)", "norm_inf": "x.norm(float('inf'))",
    "norm_fro": "x.norm('fro')", "norm_dim": "x.norm(dim=1)", "norm_p_dim_keepdim": "x.norm(1, 1, True)",
    "norm_3": "x.norm(3)", "norm_zero_vector": "torch.zeros(3, requires_grad=True).norm()",
    "norm_zero_entries_1": "torch.tensor([0., 2., -1.], requires_grad=True).norm(1)",
    "norm_int_error": "torch.tensor([1, 2]).norm()", "torch_norm": "torch.norm(x, dim=0)",
    "logsumexp": "x.logsumexp(1)", "logsumexp_keepdim": "x.logsumexp(0, keepdim=True)",
    "logsumexp_tuple": "b.logsumexp((0, 2))", "logsumexp_large": "(x * 1000).logsumexp(1)",
    "logsumexp_inf": "torch.tensor([-float('inf'), -float('inf')]).logsumexp(0)",
    "logsumexp_int": "torch.tensor([1, 2, 3]).logsumexp(0)",
    "cumsum": "x.cumsum(1)", "cumsum_negative": "b.cumsum(-2)", "cumsum_int": "torch.tensor([1, 2, 3]).cumsum(0)",
    "cumprod": "x.cumprod(1)", "cumprod_zeros": "torch.tensor([2., 0., 3., 0., 4.], requires_grad=True).cumprod(0)",
    "cumprod_zero_rows": "torch.tensor([[0., 2., 3.], [1., 2., 0.]], requires_grad=True).cumprod(1)",
    "softmax": "x.softmax(1)", "softmax_0": "x.softmax(0)", "softmax_large": "(x * 1000).softmax(1)",
    "softmax_dtype": "x.softmax(1, dtype=torch.float64)", "softmax_0d": "s.softmax(0)",
    "softmax_int_error": "torch.tensor([1, 2]).softmax(0)",
    "log_softmax": "x.log_softmax(1)", "log_softmax_dtype": "torch.log_softmax(x, 0, dtype=torch.float64)",
    "F_softmax_implicit_dim": "torch.nn.functional.softmax(x)",
    "F_log_softmax_implicit_dim": "torch.nn.functional.log_softmax(b)",
    # nn.functional losses
    "mse": "torch.nn.functional.mse_loss(x, x.detach().flip(0))",
    "mse_sum": "torch.nn.functional.mse_loss(x, u.sum() + x.detach(), reduction='sum')",
    "mse_none": "torch.nn.functional.mse_loss(x, torch.ones(3, 4), reduction='none')",
    "mse_broadcast_warns": "torch.nn.functional.mse_loss(x, v)",
    "mse_bad_reduction": "torch.nn.functional.mse_loss(x, x, reduction='avg')",
    "l1": "torch.nn.functional.l1_loss(x, torch.zeros(3, 4))",
    "l1_none": "torch.nn.functional.l1_loss(x, torch.ones(3, 4), reduction='none')",
    "smooth_l1": "torch.nn.functional.smooth_l1_loss(x, torch.zeros(3, 4), beta=0.5)",
    "huber": "torch.nn.functional.huber_loss(x, torch.zeros(3, 4), delta=0.7)",
    "bce": "torch.nn.functional.binary_cross_entropy(x.sigmoid(), (x.detach() > 0).float())",
    "bce_weight_none": "torch.nn.functional.binary_cross_entropy(x.sigmoid(), torch.full((3, 4), 0.3), "
                       "weight=torch.full((3, 4), 2.), reduction='none')",
    "bce_target_grad": "torch.nn.functional.binary_cross_entropy(w.sigmoid(), w.cos().abs())",
    "bce_range_error": "torch.nn.functional.binary_cross_entropy(x, torch.zeros(3, 4))",
    "bce_size_error": "torch.nn.functional.binary_cross_entropy(v.sigmoid(), torch.zeros(3))",
    "bce_logits": "torch.nn.functional.binary_cross_entropy_with_logits(x * 10, torch.full((3, 4), 0.3))",
    "bce_logits_pos_weight": "torch.nn.functional.binary_cross_entropy_with_logits("
                             "x, torch.full((3, 4), 0.6), pos_weight=torch.tensor([1., 2., 3., .5]))",
    "bce_logits_target_grad": "torch.nn.functional.binary_cross_entropy_with_logits(x, u.sum() * torch.ones(3, 4) / 10)",
    "cross_entropy": "torch.nn.functional.cross_entropy(x, torch.tensor([0, 3, 1]))",
    "cross_entropy_none": "torch.nn.functional.cross_entropy(x, torch.tensor([0, 3, 1]), reduction='none')",
    "cross_entropy_weight": "torch.nn.functional.cross_entropy(x, torch.tensor([0, 3, 1]), "
                            "weight=torch.tensor([1., 2., 3., .5]))",
    "cross_entropy_ignore": "torch.nn.functional.cross_entropy(x, torch.tensor([0, -100, 1]))",
    "cross_entropy_smoothing": "torch.nn.functional.cross_entropy(x, torch.tensor([0, 3, 1]), label_smoothing=0.1)",
    "cross_entropy_probabilities": "torch.nn.functional.cross_entropy(x, x.detach().softmax(1))",
    "cross_entropy_probabilities_sum": "torch.nn.functional.cross_entropy(x, x.detach().softmax(1), reduction='sum')",
    "cross_entropy_1d": "torch.nn.functional.cross_entropy(v, torch.tensor(2))",
    "cross_entropy_spatial": "torch.nn.functional.cross_entropy(b.permute(0, 2, 1), torch.tensor([[0, 1, 2], [3, 2, 1]]))",
    "cross_entropy_spatial_error": "torch.nn.functional.cross_entropy(b.permute(0, 2, 1), torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]]))",
    "cross_entropy_spatial_none": "torch.nn.functional.cross_entropy(b.permute(0, 2, 1), torch.tensor([[0, 1, 2], [3, 2, 1]]), reduction='none')",
    "cross_entropy_4d": "torch.nn.functional.cross_entropy(b.reshape(2, 3, 2, 2), torch.tensor([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]))",
    "nll_batch_error": "torch.nn.functional.nll_loss(x, torch.tensor([0, 1]))",
    "nll": "torch.nn.functional.nll_loss(x.log_softmax(1), torch.tensor([0, 3, 1]))",
    "nll_sum_weight": "torch.nn.functional.nll_loss(x, torch.tensor([0, 3, 1]), weight=torch.tensor([1., 2., 3., .5]), reduction='sum')",
    "nll_out_of_bounds": "torch.nn.functional.nll_loss(x, torch.tensor([0, 4, 1]))",
    "nll_float_target": "torch.nn.functional.nll_loss(x, torch.tensor([0., 3., 1.]))",
    "nll_all_ignored": "torch.nn.functional.nll_loss(x, torch.tensor([-100, -100, -100]))",
    "nll_0d_input_error": "torch.nn.functional.nll_loss(s, torch.tensor(0))",
    "nll_1d_target_of_one": "torch.nn.functional.nll_loss(v.detach(), torch.tensor([2]), reduction='none')",
    "nll_1d_target_of_one_backward_error":
        "torch.nn.functional.nll_loss(v, torch.tensor([2])).backward()",
    "nll_1d_target_of_two_error": "torch.nn.functional.nll_loss(v, torch.tensor([2, 1]))",
    "nll_0d_target_batch_error": "torch.nn.functional.nll_loss(x, torch.tensor(0))",
    "nll_float_target_batch_error": "torch.nn.functional.nll_loss(x, torch.tensor([0., 1.]))",
    "nll_3d_batch_error": "torch.nn.functional.nll_loss(b, torch.tensor([0, 1, 2]))",
    "nll_4d_target_dims_error": "torch.nn.functional.nll_loss(b.reshape(2, 3, 2, 2), torch.zeros(2, 2).long())",
    "nll_4d_size_error": "torch.nn.functional.nll_loss(b.reshape(2, 3, 2, 2), torch.zeros(2, 2, 3).long())",
    "cross_entropy_float_class_target_error": "torch.nn.functional.cross_entropy(x, torch.tensor([0., 1., 3.]))",
    "cross_entropy_long_probabilities_error": "torch.nn.functional.cross_entropy(x, torch.zeros(3, 4).long())",
    "cross_entropy_probabilities_batch_error": "torch.nn.functional.cross_entropy(x, torch.ones(1, 4) / 4)",
    "cross_entropy_1d_probabilities": "torch.nn.functional.cross_entropy(v, v.detach().softmax(0))",
    "cross_entropy_1d_target_of_one": "torch.nn.functional.cross_entropy(v.detach(), torch.tensor([1]))",
    "cross_entropy_probabilities_ignore_index_error":
        "torch.nn.functional.cross_entropy(x, x.detach().softmax(1), ignore_index=1)",
    "cross_entropy_smoothing_range_error":
        "torch.nn.functional.cross_entropy(x, torch.tensor([0, 3, 1]), label_smoothing=1.5)",
    "cross_entropy_0d_probabilities_error": "torch.nn.functional.cross_entropy(s, s.detach())",
    "mse_shapes_error": "torch.nn.functional.mse_loss(v, torch.ones(3))",
    "l1_shapes_error": "torch.nn.functional.l1_loss(v, torch.ones(3))",
    "mse_number_target_error": "torch.nn.functional.mse_loss(v, 1.0)",
    "normalize": "torch.nn.functional.normalize(x)",
    "normalize_dim0_p1": "torch.nn.functional.normalize(x, p=1, dim=0)",
    "normalize_zero_row": "torch.nn.functional.normalize(torch.zeros(2, 3, requires_grad=True))",
    # the double backward of reductions that unsqueeze the gradient back (unsqueeze_multiple):
    # SqueezeBackward1 in the graph, as autograd.functional.jvp(create_graph=True) shows it
    "jvp_graph_prod_dim": "torch.autograd.functional.jvp(lambda t: t.prod(1), x, x.detach() * 0 + 1, "
                          "create_graph=True)[1]",
    "jvp_graph_norm_dim": "torch.autograd.functional.jvp(lambda t: t.norm(dim=1), x, x.detach(), "
                          "create_graph=True)[1]",
    "jvp_graph_logsumexp": "torch.autograd.functional.jvp(lambda t: t.logsumexp((0, 2)), b, "
                           "b.detach(), create_graph=True)[1]",
    "jvp_graph_var_dim": "torch.autograd.functional.jvp(lambda t: t.var(1), x, x.detach(), "
                         "create_graph=True)[1]",
    "jvp_graph_pow": "torch.autograd.functional.jvp(lambda t: t ** 3, v, v.detach(), "
                     "create_graph=True)[1]",
    "double_backward_max_dim": "g, = torch.autograd.grad((x.max(1).values ** 2).sum(), x, "
                               "create_graph=True)\ng",
    "double_backward_sum_tuple": "g, = torch.autograd.grad((b.sum((0, 2)) ** 2).sum(), b, "
                                 "create_graph=True)\ng",
    "double_backward_mean_dim": "g, = torch.autograd.grad((x.mean(1) ** 2).sum(), x, "
                                "create_graph=True)\ng",
    "double_backward_min_dim_keepdim": "g, = torch.autograd.grad((x.min(0, keepdim=True)[0] ** 2)"
                                       ".sum(), x, create_graph=True)\ng",
    "double_backward_max_0d": "g, = torch.autograd.grad(s.max(0).values ** 2, s, "
                              "create_graph=True)\ng",
    "double_backward_mean": "g, = torch.autograd.grad(x.mean() ** 2, x, create_graph=True)\ng",
    "double_backward_amax_dim": "g, = torch.autograd.grad((x.amax(1) ** 2).sum(), x, "
                                "create_graph=True)\ng",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    assert_same(run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name])))


# ---------------------------------------------------------------- plain specifications

def leaf(*values):
    return gradcli.tensor(list(values), requires_grad=True)


@pytest.mark.parametrize("expr, name", [
    ("x.sum()", "SumBackward0"), ("x.sum(0)", "SumBackward1"), ("x.mean()", "MeanBackward0"),
    ("x.mean(0)", "MeanBackward1"), ("x.prod()", "ProdBackward0"), ("x.prod(0)", "ProdBackward1"),
    ("x.max()", "MaxBackward1"), ("x.max(0).values", "MaxBackward0"), ("x.min()", "MinBackward1"),
    ("x.min(0)[0]", "MinBackward0"), ("x.amax()", "AmaxBackward0"), ("x.amin(0)", "AminBackward0"),
    ("x.std()", "StdBackward0"), ("x.var(0)", "VarBackward0"),
    ("x.norm()", "LinalgVectorNormBackward0"), ("x.logsumexp(0)", "LogsumexpBackward0"),
    ("x.cumsum(0)", "CumsumBackward0"), ("x.cumprod(0)", "CumprodBackward0"),
    ("x.softmax(0)", "SoftmaxBackward0"), ("x.log_softmax(0)", "LogSoftmaxBackward0"),
    ("F.mse_loss(x, x.detach())", "MseLossBackward0"), ("F.l1_loss(x, x.detach())", "MeanBackward0"),
    ("F.smooth_l1_loss(x, x.detach())", "SmoothL1LossBackward0"),
    ("F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid())", "BinaryCrossEntropyBackward0"),
    ("F.binary_cross_entropy_with_logits(x, x.detach())", "BinaryCrossEntropyWithLogitsBackward0"),
    ("F.cross_entropy(x.reshape(1, 3), gradcli.tensor([1]))", "NllLossBackward0"),
    ("F.normalize(x.reshape(1, 3))", "DivBackward0"),
])
def test_grad_fn_names(expr, name):
    x = leaf(0.5, 1.5, 2.0)
    assert eval(expr).grad_fn.name() == name


def test_max_with_dim_prints_a_namedtuple_like_pytorch():
    x = gradcli.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    result = x.max(1)
    assert repr(result) == ("torch.return_types.max(\n"
                            "values=tensor([5., 3.], grad_fn=<MaxBackward0>),\n"
                            "indices=tensor([1, 0]))")
    values, indices = result
    assert indices.dtype == gradcli.int64 and not indices.requires_grad
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_max_without_dim_splits_ties_evenly():
    x = leaf(1.0, 3.0, 3.0)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_prod_gradient_is_right_with_zeros():
    x = leaf(2.0, 0.0, 3.0)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    y = leaf(0.0, 0.0, 3.0)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]


def test_prod_second_derivative_with_a_zero():
    x = gradcli.tensor([2.0, 0.0, 3.0], dtype=gradcli.float64, requires_grad=True)
    (g,) = gradcli.autograd.grad(x.prod(), x, create_graph=True)
    (h,) = gradcli.autograd.grad(g[1], x)
    assert h.tolist() == [3.0, 0.0, 2.0]


def test_cumprod_gradient_with_zeros_matches_finite_differences():
    from gradcli.autograd import gradcheck, gradgradcheck
    x = gradcli.tensor([2.0, 0.0, 3.0, 0.5], dtype=gradcli.float64, requires_grad=True)
    assert gradcheck(lambda t: t.cumprod(0), (x,))
    assert gradgradcheck(lambda t: t.cumprod(0), (x,))


def test_norm_subgradient_is_zero_at_zero():
    x = gradcli.zeros(3, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_std_of_one_element_warns_and_is_nan():
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        assert np.isnan(gradcli.tensor([1.0]).std().item())


def test_reductions_keep_float32():
    x = gradcli.tensor([[1.0, 2.0], [3.0, 4.0]])
    for y in (x.sum(), x.mean(1), x.prod(0), x.std(), x.var(0), x.norm(), x.logsumexp(1),
              x.softmax(0), x.log_softmax(1), x.cumsum(0), x.cumprod(1), x.amax(), x.max(0).values):
        assert y.dtype == gradcli.float32


def test_integer_reductions_give_int64():
    i = gradcli.tensor([1, 2, 3], dtype=gradcli.int32)
    assert i.sum().dtype == gradcli.int64 and i.prod().dtype == gradcli.int64
    assert i.cumsum(0).dtype == gradcli.int64 and i.argmax().dtype == gradcli.int64


def test_softmax_dtype_converts_first():
    x = leaf(1.0, 2.0)
    y = x.softmax(0, dtype=gradcli.float64)
    assert y.dtype == gradcli.float64
    assert y.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"


def test_implicit_softmax_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been "
                                         "deprecated"):
        F.softmax(gradcli.ones(2, 3))


def test_cross_entropy_of_uniform_logits_is_log_classes():
    loss = F.cross_entropy(gradcli.zeros(2, 4, requires_grad=True), gradcli.tensor([0, 3]))
    assert abs(loss.item() - np.log(4)) < 1e-6


MOMENT_CALLS = ["torch.var(u)", "torch.var(u, True)", "torch.var(u, False)",
                "torch.var(u, unbiased=True)", "u.var()", "u.var(0)", "u.var(0, True)",
                "u.var(0, False)", "u.var(dim=0, unbiased=True)", "u.var(0, correction=2)",
                "u.var(correction=0)", "u.var(0, keepdim=True)", "u.std(1, False)",
                "torch.std(u)", "torch.var_mean(u)[0]", "torch.var_mean(u, 1)[1]",
                "torch.var_mean(u, False)[0]", "torch.var_mean(u, 1, False)[0]",
                "torch.var_mean(u, unbiased=False)[1]", "torch.std_mean(u)[0]",
                "torch.std_mean(u, dim=1, unbiased=False)[0]",
                "torch.std_mean(u, (0, 1), keepdim=True, correction=0)[1]"]


@pytest.mark.parametrize("call", MOMENT_CALLS)
def test_moment_nodes_save_what_pytorch_saves(call, oracle):
    """var, std, var_mean and std_mean: the node's name, its `_saved_*` names (correction, not
    unbiased; std_mean's output as result0) and the dim and correction it shows."""
    def inner(lib):
        u = lib.tensor([[0.5, -1.2, 2.0], [-0.3, 0.8, -2.5]], requires_grad=True)
        fn = eval(call, {"torch": lib, "u": u}).grad_fn
        saved = sorted(a for a in dir(fn) if a.startswith("_saved"))
        return [fn.name(), saved, fn._saved_correction, fn._saved_dim, fn._saved_keepdim,
                None if "_saved_result0" not in saved else fn._saved_result0.tolist()]
    assert inner(gradcli) == oracle(inner)
