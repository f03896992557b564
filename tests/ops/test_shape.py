"""Shape ops: grad_fn names (views, copies, PyTorch's compositions), values, gradients, views
sharing memory and version counters, error messages.  Programs run against gradcli and, when
installed, PyTorch; plain specifications below need no torch."""

import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradcheck, gradgradcheck

from op_oracle import assert_same, run

PROGRAMS = {
    "reshape_view": "x.reshape(2, 6)",
    "reshape_tuple": "x.reshape((6, -1))",
    "reshape_same": "x.reshape(3, 4)",
    "reshape_copies_transpose": "x.t().reshape(12)",
    "reshape_alias_noncontiguous": "x.t().reshape(2, 2, 3)",
    "reshape_0d": "s.reshape(1, 1)",
    "reshape_error": "x.reshape(5, -1)",
    "reshape_error_two_inferred": "x.reshape(-1, -1)",
    "reshape_error_negative": "x.reshape(-2, 6)",
    "view": "x.view(4, 3)",
    "view_size_keyword": "x.view(size=(2, 6))",
    "view_error_noncontiguous": "x.t().view(12)",
    "view_error_size": "x.view(5)",
    "view_as": "x.view_as(torch.zeros(2, 6))",
    "reshape_as": "x.t().reshape_as(torch.zeros(12))",
    "flatten": "b.flatten()",
    "flatten_range": "b.flatten(1)",
    "flatten_noop_returns_self": "y = b.flatten(1, 1)\ny is b",
    "flatten_1d_returns_self": "v.flatten() is v",
    "flatten_0d": "s.flatten()",
    "flatten_error": "x.flatten(1, 0)",
    "unflatten": "x.unflatten(1, (2, 2))",
    "unflatten_infer": "x.unflatten(1, (-1, 2))",
    "unflatten_error": "x.unflatten(1, (3, 2))",
    "squeeze_all": "x.unsqueeze(0).unsqueeze(2).squeeze()",
    "squeeze_dim": "x.unsqueeze(0).squeeze(0)",
    "squeeze_dims": "x.unsqueeze(0).unsqueeze(-1).squeeze((0, -1))",
    "squeeze_non_one": "x.squeeze(0)",
    "squeeze_function": "torch.squeeze(x.unsqueeze(1), 1)",
    "squeeze_error": "x.squeeze(3)",
    "unsqueeze": "x.unsqueeze(-1)",
    "unsqueeze_0d": "s.unsqueeze(0)",
    "unsqueeze_error": "x.unsqueeze(4)",
    "transpose": "b.transpose(0, 2)",
    "swapaxes": "x.swapaxes(0, 1)",
    "swapdims": "torch.swapdims(x, 1, 0)",
    "transpose_error": "x.transpose(0, 2)",
    "permute": "b.permute(2, 0, 1)",
    "permute_tuple": "b.permute((1, 2, 0))",
    "permute_function": "torch.permute(b, (2, 1, 0))",
    "permute_error_length": "x.permute(0)",
    "permute_error_duplicate": "x.permute(0, 0)",
    "movedim": "b.movedim(0, 2)",
    "t": "x.t()",
    "t_vector": "v.t()",
    "t_error": "b.t()",
    "T": "x.T",
    "T_3d_warns": "b.T",
    "mT": "b.mT",
    "mT_error": "v.mT",
    "expand": "v.expand(3, 4)",
    "expand_minus_one": "x[:, :1].expand(-1, 4)",
    "expand_new_dims": "v.expand(2, 3, 4)",
    "expand_as": "v.expand_as(x)",
    "expand_error": "x.expand(2, 4)",
    "expand_error_too_few": "x.expand(4)",
    "repeat": "x.repeat(2, 1)",
    "repeat_new_dims": "v.repeat(2, 1, 3)",
    "repeat_error": "x.repeat(2)",
    "tile": "x.tile((2,))",
    "cat": "torch.cat([x, x * 2])",
    "cat_dim": "torch.cat((x, x[:, :2]), dim=1)",
    "concat": "torch.concat([v, v])",
    "concatenate": "torch.concatenate([u, u], 1)",
    "cat_promotes": "torch.cat([x, torch.ones(1, 4, dtype=torch.float64)])",
    "cat_error_sizes": "torch.cat([x, torch.ones(3, 2)])",
    "cat_error_dims": "torch.cat([x, v])",
    "cat_error_empty": "torch.cat([])",
    "cat_error_not_list": "torch.cat(x)",
    "stack": "torch.stack([v, v * 2])",
    "stack_dim": "torch.stack([x, x], dim=2)",
    "stack_error": "torch.stack([x, v])",
    "hstack": "torch.hstack([x, x])",
    "hstack_vectors": "torch.hstack([v, w])",
    "vstack": "torch.vstack([x, v])",
    "split": "x.split(2)",
    "split_sizes": "torch.split(x, [1, 3], dim=1)",
    "split_with_sizes": "x.split_with_sizes([2, 1])",
    "split_error": "x.split([1, 1])",
    "split_error_zero": "x.split(0)",
    "chunk": "x.chunk(2)",
    "chunk_dim": "torch.chunk(x, 3, 1)",
    "chunk_error": "x.chunk(0)",
    "unbind": "x.unbind()",
    "unbind_dim": "torch.unbind(x, 1)",
    "flip": "x.flip(0)",
    "flip_dims": "torch.flip(b, [0, 2])",
    "flip_error": "x.flip(0, 0)",
    "roll": "x.roll(1)",
    "roll_dims": "x.roll((1, -1), (0, 1))",
    "roll_error": "x.roll((1, 2), 0)",
    "narrow": "x.narrow(0, 1, 2)",
    "narrow_negative_start": "x.narrow(1, -2, 2)",
    "narrow_error": "x.narrow(0, 2, 2)",
    "narrow_error_length": "x.narrow(0, 0, -1)",
    "select": "x.select(1, 2)",
    "select_function": "torch.select(b, 0, -1)",
    "index_select": "x.index_select(1, torch.tensor([0, 2, 2]))",
    "index_select_error": "x.index_select(0, torch.tensor([5]))",
    "index_select_error_dtype": "x.index_select(0, torch.tensor([0.]))",
    "gather": "x.gather(1, torch.tensor([[0, 0], [1, 3], [2, 2]]))",
    "gather_error_dims": "x.gather(1, torch.tensor([0]))",
    "gather_error_bounds": "x.gather(1, torch.tensor([[7]]))",
    "take_along_dim": "x.take_along_dim(torch.tensor([[0], [1], [2]]), 1)",
    "take_along_dim_flat": "torch.take_along_dim(x, torch.tensor([0, 5, 11]))",
    "masked_select": "x.masked_select(x > 0)",
    "masked_select_broadcast": "x.masked_select(torch.tensor([True, False, True, False]))",
    "masked_select_error": "x.masked_select(torch.ones(3, 4))",
    "contiguous_returns_self": "x.contiguous() is x",
    "contiguous_copies": "x.t().contiguous()",
    "clone": "x.clone()",
    "clone_keeps_strides": "x.t().clone().is_contiguous()",
    "view_shares_memory": "y = x.detach()\nz = y.view(12)\nz[0] = 100.\ny",
    "view_shares_version": "y = x.detach()\nz = y.t()\nz.mul_(2)\n(y, z)",
    "reshape_copy_does_not_share": "y = x.detach()\nz = y.t().reshape(12)\nz[0] = 100.\ny",
    "split_outputs_are_views": "y = x.detach()\na, b2 = y.split(2)\nb2.mul_(0)\ny",
    "inplace_on_view_of_leaf": "y = x.t()\ny.mul_(2)",
    "unsqueeze_double_backward": "y = (x.unsqueeze(0) * x.unsqueeze(1)).sum()\n"
                                 "g, = torch.autograd.grad(y, x, create_graph=True)\ng",
    "cat_double_backward": "y = (torch.cat([x, x * x]) * torch.cat([x, x])).sum()\n"
                           "g, = torch.autograd.grad(y, x, create_graph=True)\ng",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    assert_same(run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name])))


# ---------------------------------------------------------------- plain specifications

def leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return gradcli.tensor(rng.uniform(-2, 2, size=shape), dtype=gradcli.float64,
                          requires_grad=True)


@pytest.mark.parametrize("expr, name", [
    ("x.reshape(6)", "ViewBackward0"), ("x.t().reshape(6)", "UnsafeViewBackward0"),
    ("x.t()", "TBackward0"), ("x.T", "PermuteBackward0"), ("x.mT", "TransposeBackward0"),
    ("x.unsqueeze(0).squeeze()", "SqueezeBackward0"), ("x.unsqueeze(0).squeeze(0)", "SqueezeBackward1"),
    ("x.unsqueeze(0).squeeze((0,))", "SqueezeBackward2"), ("x.expand(2, 2, 3)", "ExpandBackward0"),
    ("x.repeat(2, 1)", "RepeatBackward0"), ("gradcli.cat([x, x])", "CatBackward0"),
    ("gradcli.stack([x, x])", "StackBackward0"), ("x.split(1)[0]", "SplitBackward0"),
    ("x.split([1, 1])[0]", "SplitWithSizesBackward0"), ("x.chunk(2)[0]", "SplitBackward0"),
    ("x.flip(0)", "FlipBackward0"), ("x.transpose(0, 1)", "TransposeBackward0"),
    ("x.permute(1, 0)", "PermuteBackward0"), ("x.unbind()[0]", "UnbindBackward0"),
    ("x.narrow(1, 0, 2)", "SliceBackward0"), ("x.clone()", "CloneBackward0"),
])
def test_grad_fn_names(expr, name):
    x = leaf(2, 3)
    assert eval(expr).grad_fn.name() == name


def test_views_share_data_and_version_counter():
    base = gradcli.zeros(2, 3)
    for view in (base.view(6), base.t(), base[0], base.unsqueeze(0), base.expand(2, 2, 3),
                 base.split(1)[1], base.diagonal()):
        assert view._base is base
        assert view._counter is base._counter
    base.view(6).add_(1)
    base.t()[0].add_(1)
    assert base.tolist() == [[2., 1., 1.], [2., 1., 1.]]
    assert base._counter[0] == 2


def test_copies_do_not_share_data():
    base = gradcli.zeros(2, 3)
    copy = base.t().reshape(6)
    copy.add_(1)
    assert base.tolist() == [[0.] * 3] * 2
    assert base.flip(0)._base is None and base.repeat(1, 1)._base is None


def test_inplace_on_view_of_leaf_raises():
    x = leaf(2, 3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation."):
        x.t().mul_(2)


@pytest.mark.parametrize("fn", [
    lambda x: x.reshape(3, 2), lambda x: x.t().reshape(6), lambda x: x.flatten(),
    lambda x: x.unsqueeze(1).squeeze(1), lambda x: x.permute(1, 0), lambda x: x.T,
    lambda x: x.expand(2, 2, 3), lambda x: x.repeat(2, 1, 2), lambda x: gradcli.cat([x, x * x], 1),
    lambda x: gradcli.stack([x, x * x]), lambda x: x.split(1)[1] * x.split([2, 1], 1)[0].sum(),
    lambda x: x.chunk(3, 1)[2], lambda x: x.unbind(1)[1], lambda x: x.flip(0, 1),
    lambda x: x.roll(1, 1), lambda x: x.narrow(1, 1, 2), lambda x: x.select(0, 1),
    lambda x: x.index_select(1, gradcli.tensor([2, 0, 2])),
    lambda x: x.gather(1, gradcli.tensor([[0, 0], [2, 1]])), lambda x: x.masked_select(x.detach() > 0),
    lambda x: x.diagonal(), lambda x: x.t().contiguous(), lambda x: gradcli.hstack([x, x]),
    lambda x: gradcli.vstack([x, x[0]]), lambda x: x.movedim(0, 1), lambda x: x.tile((2,)),
])
def test_first_second_and_forward_derivatives(fn):
    x = leaf(2, 3)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    assert gradcheck(fn, (x,), check_forward_ad=True, check_backward_ad=False)


def test_error_messages():
    x = gradcli.zeros(3, 4)
    cases = [
        (lambda: x.view(5), RuntimeError, "shape '[5]' is invalid for input of size 12"),
        (lambda: x.t().view(12), RuntimeError, "view size is not compatible with input tensor's "
                                               "size and stride"),
        (lambda: x.permute(0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
        (lambda: x.expand(2, 4), RuntimeError, "The expanded size of the tensor (2) must match "
                                               "the existing size (3) at non-singleton dimension 0"),
        (lambda: gradcli.cat([x, gradcli.zeros(3, 2)]), RuntimeError,
         "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 2 for "
         "tensor number 1 in the list."),
        (lambda: x.split([1, 1]), RuntimeError, "split_with_sizes expects split_sizes to sum "
                                                "exactly to 3"),
        (lambda: x.narrow(0, 2, 2), RuntimeError, "start (2) + length (2) exceeds dimension size (3)."),
        (lambda: x.transpose(0, 2), IndexError, "Dimension out of range (expected to be in range "
                                                "of [-2, 1], but got 2)"),
    ]
    for fn, kind, message in cases:
        with pytest.raises(kind) as info:
            fn()
        assert message in str(info.value)


def test_T_warns_once_per_process_as_pytorch():
    import warnings
    x, s = gradcli.zeros(2, 3, 4), gradcli.tensor(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            x.T, s.T
    assert [str(w.message)[:28] for w in caught] == [
        "The use of `x.T` on tensors ", "Tensor.T is deprecated on 0-"]
