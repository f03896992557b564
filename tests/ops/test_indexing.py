"""Indexing (`x[...]`) and item assignment (`x[...] = value`): PyTorch's chain of select, slice
and unsqueeze views followed by one index call, gradients scattered back (repeated indices
accumulate), IndexError texts, CopySlices / IndexPutBackward0 on assignment, version counters
and the in-place errors.  Programs run against gradcli and, when installed, PyTorch."""

import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradcheck, gradgradcheck

from op_oracle import assert_same, run

PROGRAMS = {
    "int": "x[0]",
    "negative_int": "x[-1]",
    "int_int": "x[1, 2]",
    "chained": "x[1][2]",
    "vector_int": "v[-2]",
    "slice": "x[1:]",
    "slice_step": "x[::2]",
    "slice_negative": "x[-2:]",
    "slice_out_of_range": "x[1:10]",
    "full_slice": "x[:]",
    "full_slices_alias": "x[:, :]",
    "slice_column": "x[:, 1]",
    "slice_columns_step": "x[:, 1::2]",
    "none": "x[None]",
    "none_middle": "x[:, None]",
    "int_none": "x[0, None]",
    "none_int": "x[None, 0]",
    "ellipsis": "x[...]",
    "ellipsis_int": "b[..., 1]",
    "int_ellipsis_none": "b[0, ..., None]",
    "two_ellipses": "x[..., ...]",
    "list": "x[[0, 2]]",
    "list_repeated": "x[[0, 0, 2, 0]]",
    "list_negative": "v[[-1, 0]]",
    "two_lists": "x[[0, 1], [1, 3]]",
    "list_slice": "x[[2, 0], 1:]",
    "slice_list": "x[1:, [0, 3]]",
    "lists_separated": "b[[0, 1], :, [1, 2]]",
    "none_list_none": "x[None, [0, 1], None]",
    "int_list": "x[0, [1, 2]]",
    "long_tensor": "x[torch.tensor([2, 1])]",
    "long_tensor_2d": "v[torch.tensor([[0, 1], [3, 3]])]",
    "zero_dim_long_tensor": "x[torch.tensor(1)]",
    "mask": "x[x > 0]",
    "mask_rows": "x[torch.tensor([True, False, True])]",
    "mask_list": "x[[True, False, True]]",
    "mask_columns": "x[:, torch.tensor([True, False, True, True])]",
    "bool_true": "x[True]",
    "bool_false": "x[False]",
    "int_bool": "x[0, True]",
    "list_of_lists_warns": "x[[[0, 1], [1, 2]]]",
    "error_out_of_bounds": "x[5]",
    "error_negative_out_of_bounds": "x[-4]",
    "error_second_dim": "x[0, 7]",
    "error_column": "x[:, 4]",
    "error_too_many": "v[0, 0]",
    "error_too_many_2d": "x[0, 0, 0]",
    "error_zero_dim": "s[0]",
    "error_float": "x[1.5]",
    "error_list_bounds": "x[[0, 7]]",
    "error_float_tensor": "x[torch.tensor([0.])]",
    "error_mask_shape": "x[torch.tensor([True, False])]",
    "error_negative_step": "x[::-1]",
    "error_broadcast": "x[[0, 1], [0, 1, 2]]",
    "iterate_rows": "[r for r in x][1]",
    "index_double_backward": "y = (x[[0, 0, 1]] * x[[1, 0, 0]]).sum()\n"
                             "g, = torch.autograd.grad(y, x, create_graph=True)\ng",
    "select_double_backward": "y = (x[0, 1:] * x[1, :3]).sum()\n"
                              "g, = torch.autograd.grad(y, x, create_graph=True)\ng",
    # item assignment
    "set_int_number": "y = x * 1\ny[0] = 5.\ny",
    "set_int_tensor": "y = x * 1\ny[1] = v\ny",
    "set_slice_broadcast": "y = x * 1\ny[1:] = v\ny",
    "set_element": "y = x * 1\ny[0, 1] = 5.\ny",
    "set_element_tensor": "y = x * 1\ny[2, 3] = v[0]\ny",
    "set_list": "y = x * 1\ny[[0, 2]] = v\ny",
    "set_list_number": "y = x * 1\ny[[0, 1]] = 3.\ny",
    "set_mask_number": "y = x * 1\ny[y > 0] = 0.\ny",
    "set_mask_tensor": "y = x * 1\ny[y > 0] = v[0]\ny",
    "set_ellipsis_number": "y = x * 1\ny[...] = 1.\ny",
    "set_ellipsis_tensor": "y = x * 1\ny[...] = v\ny",
    "set_full_slices": "y = x * 1\ny[:, :] = v\ny",
    "set_none": "y = x * 1\ny[None] = v\ny",
    "set_same_shape": "y = x * 1\ny[0:1] = v[None]\ny",
    "set_int_list": "y = x * 1\ny[0, [1, 2]] = v[:2]\ny",
    "set_list_broadcast_view": "y = x * 1\ny[[0, 1]] = v[None]\ny",
    "set_into_fresh_tensor": "y = torch.zeros(3, 4)\ny[1] = v\ny",
    "set_no_grad_into_leaf": "with torch.no_grad():\n    x[0] = 1.\nx",
    "set_plain_tensor": "y = torch.zeros(3, dtype=torch.long)\ny[0] = 2.7\ny",
    "set_repeated_index": "y = torch.zeros(3, 4)\n"
                          "y[[0, 0]] = torch.tensor([[1., 2, 3, 4], [5, 6, 7, 8]])\ny",
    "set_view_shares_version": "y = torch.zeros(3)\nz = y[1:]\nz[0] = 5.\n(y, z)",
    "set_bumps_version": "y = x * 1\ny[0] = 1.\ny[1] = 2.\ny",
    "set_error_leaf_view": "x[0] = 1.",
    "set_error_leaf_list": "x[[0, 1]] = 1.",
    "set_error_leaf_mask": "x[x > 0] = 1.",
    "set_error_leaf_full": "x[:] = 1.",
    "set_error_leaf_ellipsis": "x[...] = 1.",
    "set_error_shape": "y = torch.zeros(3, 4)\ny[0] = torch.ones(2, 4)",
    "set_error_expand": "y = torch.zeros(3, 4)\ny[0:2] = torch.ones(3, 4)",
    "set_error_index_put_shape": "y = torch.zeros(3, 4)\ny[[0, 1]] = torch.ones(3, 4)",
    "set_error_bounds": "y = torch.zeros(3, 4)\ny[5] = 1.",
    "set_saved_tensor_modified": "y = x * 1\nz = y.exp()\ny[0] = 0.\nz.sum().backward()",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    assert_same(run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name])))


# ---------------------------------------------------------------- plain specifications

def leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return gradcli.tensor(rng.uniform(-2, 2, size=shape), requires_grad=True)


def names(t):
    out = []
    fn = t.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        out.append(fn.name())
        fn = fn.next_functions[0][0]
    return out


@pytest.mark.parametrize("index, chain", [
    (0, ["SelectBackward0"]), (slice(1, None), ["SliceBackward0"]),
    (slice(None), ["SliceBackward0"]), ((slice(None), slice(None)), ["AliasBackward0"]),
    (Ellipsis, ["AliasBackward0"]), (None, ["UnsqueezeBackward0"]),
    ([0, 1], ["IndexBackward0"]), ((0, None), ["UnsqueezeBackward0", "SelectBackward0"]),
    ((None, 0), ["SelectBackward0", "UnsqueezeBackward0"]),
    ((slice(1, 2), [0, 1]), ["IndexBackward0", "SliceBackward0"]),
    (True, ["IndexBackward0", "UnsqueezeBackward0"]),
])
def test_index_becomes_pytorchs_chain_of_nodes(index, chain):
    assert names(leaf(3, 4)[index]) == chain


def test_repeated_indices_accumulate_gradient():
    x = leaf(3)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3., 0., 1.]


def test_mask_gradient_is_scattered_back():
    x = gradcli.tensor([1., -2., 3.], requires_grad=True)
    (x[x > 0] * 2).sum().backward()
    assert x.grad.tolist() == [2., 0., 2.]


@pytest.mark.parametrize("index", [1, (slice(None), 1), [0, 1, 0], (None, 1),
                                   (Ellipsis, slice(0, 3, 2)), ([1, 0], slice(1, None)),
                                   (1, [True, False, True]), (slice(None), [[0, 1], [2, 2]])])
def test_index_derivatives(index):
    x = gradcli.tensor(np.arange(6.).reshape(2, 3) / 3, dtype=gradcli.float64, requires_grad=True)
    fn = lambda t: t[index] * t[index]  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    assert gradcheck(fn, (x,), check_forward_ad=True, check_backward_ad=False)


def test_index_errors():
    x = gradcli.zeros(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        x[0][0, 0]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 3"):
        x[[0, 7]]


def test_setitem_writes_in_place_and_records_copyslices():
    x = leaf(3, 4)
    v = leaf(4, seed=1)
    y = x * 1
    data = y._data
    y[1:] = v
    assert y._data is data and y._counter[0] == 1
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert repr(y).endswith("grad_fn=<CopySlices>)")
    (y * 2).sum().backward()
    assert x.grad.tolist()[0] == [2.] * 4 and x.grad.tolist()[1] == [0.] * 4
    assert v.grad.tolist() == [4.] * 4


def test_setitem_with_tensor_indices_is_index_put():
    y = leaf(3, 4) * 1
    y[[0, 2]] = 0.
    assert y.grad_fn.name() == "IndexPutBackward0"


def test_setitem_on_leaf_raises_and_no_grad_writes():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation."):
        x[[0]] = 1.
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0] = 1.
    with gradcli.no_grad():
        x[0] = 1.
    assert x.tolist()[0] == 1. and x.is_leaf and x._counter[0] == 1


def test_setitem_derivatives():
    x = gradcli.tensor(np.arange(6.).reshape(2, 3) / 3, dtype=gradcli.float64, requires_grad=True)
    v = gradcli.tensor([0.5, -1.], dtype=gradcli.float64, requires_grad=True)

    def fn(x, v):
        y = x * x
        y[1, :2] = v * v
        y[[0, 0], [2, 1]] = v
        return y

    assert gradcheck(fn, (x, v))
    assert gradgradcheck(fn, (x, v))
