"""Elementwise math: values, dtypes (int inputs to float functions give the default float
dtype, float32 stays float32), grad_fn names, gradients at kinks as PyTorch defines them
(relu/abs/clamp boundaries, ties in maximum/minimum), where/masked_fill/lerp, the in-place
fills and copies, comparisons, and error messages.  Programs run against gradcli and, when
installed, PyTorch; the plain specifications below need no torch."""

import numpy as np
import pytest

import gradcli
import gradcli.nn.functional as F

from op_oracle import assert_same, run

UNARY = ["exp", "exp2", "expm1", "sin", "cos", "atan", "sinh", "cosh", "tanh", "asinh",
         "sigmoid", "relu", "erf", "sign", "floor", "ceil", "round", "trunc", "frac", "abs",
         "neg", "square", "nan_to_num"]
POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"]
UNIT = ["asin", "acos", "atanh"]

PROGRAMS = {f"{name}": f"x.{name}()" for name in UNARY}
PROGRAMS.update({f"{name}": f"(x.abs() + 0.5).{name}()" for name in POSITIVE})
PROGRAMS.update({f"{name}": f"(x / 3).{name}()" for name in UNIT})
PROGRAMS.update({f"{name}_int": f"torch.tensor([1, 2, 3]).{name}()" for name in
                 ["exp", "sqrt", "sigmoid", "sin", "log", "reciprocal", "abs", "sign", "floor",
                  "round", "relu", "neg", "square"]})
PROGRAMS.update({
    "acosh": "(x.abs() + 1.5).acosh()",
    "tan": "(x / 3).tan()",
    "float64_stays": "x.double().exp()",
    "bool_exp": "torch.tensor([True, False]).exp()",
    "frac_int_error": "torch.tensor([1, 2]).frac()",
    "round_half_even": "torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]).round()",
    "round_decimals": "(x * 1.234).round(decimals=2)",
    "nan_inf_propagate": "torch.tensor([float('nan'), float('inf'), -float('inf'), 0.]).exp()",
    "log_of_zero_and_negative": "torch.tensor([0., -1.]).log()",
    "sqrt_negative": "torch.tensor([-1.]).sqrt()",
    "nan_to_num": "torch.tensor([float('nan'), float('inf'), -float('inf'), 1.]).nan_to_num()",
    "nan_to_num_values": "torch.tensor([float('nan'), float('inf'), -float('inf')]).nan_to_num(1., 2., -2.)",
    "nan_to_num_grad": "(x / torch.tensor([0., 1., 1., 1.])).nan_to_num()",
    "isnan_isinf_isfinite": "y = torch.tensor([float('nan'), float('inf'), 1.])\n"
                            "(y.isnan(), y.isinf(), y.isfinite(), y.isposinf(), y.isneginf())",
    # kinks: PyTorch's conventions at the non-differentiable points
    "relu_at_zero": "torch.tensor([-1., 0., 2.], requires_grad=True).relu()",
    "abs_at_zero": "torch.tensor([-1., 0., 2.], requires_grad=True).abs()",
    "leaky_relu_at_zero": "F.leaky_relu(torch.tensor([-1., 0., 2.], requires_grad=True), 0.1)",
    "elu": "F.elu(x, alpha=0.5)",
    "gelu": "F.gelu(x)",
    "gelu_tanh": "F.gelu(x, approximate='tanh')",
    "gelu_bad": "F.gelu(x, approximate='fast')",
    "softplus": "F.softplus(x, beta=2., threshold=1.)",
    "silu": "F.silu(x)",
    "clamp_numbers": "x.clamp(-0.5, 0.5)",
    "clamp_boundary": "torch.tensor([0., 0.5, 1., 2.], requires_grad=True).clamp(0, 1)",
    "clamp_min_only": "x.clamp(min=0)",
    "clamp_max_only": "x.clamp(max=0.2)",
    "clamp_min_above_max": "x.clamp(1, -1)",
    "clamp_tensors": "x.clamp(v - 0.5, v + 0.5)",
    "clamp_tensor_min": "x.clamp(min=v)",
    "clamp_tensor_max": "x.clamp(max=s)",
    "clamp_int_float_bounds": "torch.tensor([1, 2, 3]).clamp(0.5, 2.5)",
    "clamp_int": "torch.tensor([1, 2, 3]).clamp(0, 2)",
    "clamp_nan": "torch.tensor([1., float('nan'), 3.]).clamp(0, 2)",
    "clamp_none_error": "x.clamp()",
    "clip": "x.clip(-1, 1)",
    "clamp_in_place": "y = x * 1\ny.clamp_(-1, 1)\ny",
    "grad_clamp_in_place": "(x * x).sum().backward()\nx.grad.clamp_(-1, 1).tolist()",
    "clamp_min": "x.clamp_min(0.2)",
    "clamp_min_tensor": "x.clamp_min(v)",
    "clamp_max": "x.clamp_max(0.2)",
    "maximum": "torch.maximum(x, v)",
    "maximum_ties": "torch.maximum(torch.tensor([1., 2., 3.], requires_grad=True), "
                    "torch.tensor([1., 0., 3.], requires_grad=True))",
    "minimum_ties": "torch.minimum(torch.tensor([1., 2., 3.], requires_grad=True), "
                    "torch.tensor([1., 0., 3.], requires_grad=True))",
    "maximum_nan": "torch.maximum(torch.tensor([float('nan'), 1.]), torch.tensor([1., 2.]))",
    "maximum_number_error": "torch.maximum(x, 2)",
    "max_binary": "torch.max(x, v)",
    "max_method_binary": "x.max(v)",
    "min_binary": "torch.min(x, v)",
    "maximum_int_float": "torch.maximum(torch.tensor([1, 5]), torch.tensor([2.5, 3.5]))",
    "atan2": "torch.atan2(x, v)",
    "atan2_int": "torch.atan2(torch.tensor([1, 2]), torch.tensor([2, 1]))",
    "hypot": "torch.hypot(x, v)",
    "hypot_int_error": "torch.hypot(torch.tensor([1]), torch.tensor([1]))",
    # where, masked_fill, lerp
    "where": "torch.where(x > 0, x, v)",
    "where_number": "torch.where(x > 0, x, 0.)",
    "where_number_first": "torch.where(x > 0, 1., x)",
    "where_method": "x.where(x > 0, v)",
    "where_int_numbers": "torch.where(torch.tensor([True, False]), 1, 0)",
    "where_int_float_numbers": "torch.where(torch.tensor([True, False]), 1., 0)",
    "where_int_tensor_float_number": "torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), 2.5)",
    "where_condition_error": "torch.where(torch.tensor([1, 0]), v[:2], v[:2])",
    "masked_fill": "x.masked_fill(x > 0, 2.)",
    "masked_fill_broadcast_mask": "x.masked_fill(torch.tensor([True, False, True, False]), -1.)",
    "masked_fill_tensor_value": "x.masked_fill(x > 0, s)",
    "masked_fill_value_error": "x.masked_fill(x > 0, v)",
    "masked_fill_mask_error": "x.masked_fill(torch.tensor([1, 0, 1, 0]), 2.)",
    "masked_fill_int": "torch.tensor([1, 2, 3]).masked_fill(torch.tensor([False, True, True]), 2.7)",
    "masked_fill_in_place": "y = x * 1\ny.masked_fill_(y > 0, 0.)\ny",
    "lerp_number": "torch.lerp(x, v, 0.3)",
    "lerp_tensor": "torch.lerp(x, v, w.unsqueeze(1))",
    "lerp_dtype_error": "torch.lerp(v, torch.tensor([1, 2, 3, 4]), 0.5)",
    # fills and copies
    "fill_in_place": "y = x * 1\ny.fill_(2.5)\ny",
    "fill_in_place_tensor": "y = x * 1\ny.fill_(s)\ny",
    "fill_out_of_place": "torch.fill(x, 2.5)",
    "fill_error": "y = x * 1\ny.fill_(v)",
    "fill_int": "y = torch.tensor([1, 2])\ny.fill_(2.7)\ny",
    "fill_leaf_error": "x.fill_(1.)",
    "zero_": "y = x * 1\ny.zero_()\ny",
    "grad_zero_": "(x * x).sum().backward()\nx.grad.zero_().tolist()",
    "copy_": "y = torch.zeros(3, 4)\ny.copy_(x)\ny",
    "copy_broadcast": "y = x * 1\ny.copy_(v)\ny",
    "copy_dtype": "y = torch.zeros(4, dtype=torch.float64)\ny.copy_(v)\ny",
    "copy_int_from_float": "y = torch.zeros(3, dtype=torch.int64)\ny.copy_(torch.tensor([1.7, -2.2, 3.]))\ny",
    "copy_shape_error": "y = torch.zeros(3)\ny.copy_(torch.ones(2))",
    # comparisons and logical ops
    "compare_int_float": "torch.tensor([1, 2]) < 1.5",
    "compare_float32_number": "torch.tensor([0.1]) == 0.1",
    "compare_float32_float64": "torch.tensor([0.1]) == torch.tensor([0.1], dtype=torch.float64)",
    "compare_float32_0d_float64": "torch.tensor([0.1]) == torch.tensor(0.1, dtype=torch.float64)",
    "compare_broadcast_error": "x < torch.ones(3)",
    "logical": "(x > 0) & (v > 0), (x > 0) | (v > 0), (x > 0) ^ (v > 0), ~(x > 0), torch.logical_not(x)",
    "eq_grad_free": "(x == x).requires_grad",
    "inplace_chain": "y = x * 1\ny.mul_(2)\ny.sigmoid_()\ny",
    "inplace_modifies_saved_output": "y = x.exp()\ny.sigmoid_()\ny.tanh_()\n"
                                     "try:\n    y.sum().backward()\nexcept RuntimeError as e:\n"
                                     "    r = str(e)[:60]\nr",
})


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    program = "import torch.nn.functional as F\n" + PROGRAMS[name]
    theirs = oracle(lambda torch: run(torch, program.replace("import torch.nn.functional as F\n", "F = torch.nn.functional\n")))
    ours = run(gradcli, program.replace("import torch.nn.functional as F\n", "F = torch.nn.functional\n"))
    assert_same(ours, theirs)


# ---------------------------------------------------------------- plain specifications

def leaf(*values, dtype=None):
    return gradcli.tensor(list(values), dtype=dtype, requires_grad=True)


@pytest.mark.parametrize("expr, name", [
    ("x.log1p()", "Log1PBackward0"), ("x.exp2()", "Exp2Backward0"), ("x.rsqrt()", "RsqrtBackward0"),
    ("F.leaky_relu(x)", "LeakyReluBackward0"), ("F.elu(x)", "EluBackward0"),
    ("F.gelu(x)", "GeluBackward0"), ("F.softplus(x)", "SoftplusBackward0"),
    ("F.silu(x)", "SiluBackward0"), ("x.round()", "RoundBackward0"),
    ("x.round(decimals=1)", "RoundBackward1"), ("x.clamp(0, 1)", "ClampBackward1"),
    ("x.clamp(x, x)", "ClampBackward0"), ("x.clamp_min(0)", "ClampMinBackward0"),
    ("gradcli.maximum(x, x)", "MaximumBackward0"), ("x.max(x)", "MaximumBackward0"),
    ("gradcli.where(x > 1, x, 0.)", "WhereBackward0"), ("gradcli.lerp(x, x, 0.5)", "LerpBackward0"),
    ("gradcli.lerp(x, x, x)", "LerpBackward1"), ("gradcli.hypot(x, x)", "HypotBackward0"),
    ("x.masked_fill(x > 1, 0.)", "MaskedFillBackward0"),
    ("x.masked_fill(x > 1, gradcli.tensor(0.))", "MaskedFillBackward1"),
    ("x.nan_to_num()", "NanToNumBackward0"), ("gradcli.fill(x, 1.)", "FillBackward0"),
    ("(x * 1).fill_(1.)", "FillBackward2"), ("(x * 1).fill_(gradcli.tensor(1.))", "FillBackward3"),
    ("(x * 1).zero_()", "ZeroBackward0"), ("(x * 1).copy_(x)", "torch::autograd::CopyBackwards"),
    ("F.leaky_relu(x * 1, inplace=True)", "LeakyReluBackward1"),
    ("F.elu(x * 1, inplace=True)", "EluBackward1"),
])
def test_grad_fn_names(expr, name):
    x = leaf(0.5, 1.5, 2.0)
    assert eval(expr).grad_fn.name() == name


def test_scalar_overloads_have_one_edge_like_pytorch():
    x = leaf(1.0, 2.0)
    for y in (x ** 2, 2 - x, x % 2, x.masked_fill(x > 1, 0.0), x.clamp(0, 1)):
        assert len(y.grad_fn.next_functions) == 1
    assert len(gradcli.where(x > 1, x, 0.0).grad_fn.next_functions) == 2
    assert (2 + x).grad_fn.next_functions[0][0] is x.grad_fn or \
        (2 + x).grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")


def test_int_inputs_to_float_functions_give_the_default_dtype():
    i = gradcli.tensor([1, 2, 3])
    assert i.exp().dtype == gradcli.float32
    gradcli.set_default_dtype(gradcli.float64)
    assert i.sqrt().dtype == gradcli.float64


def test_float32_stays_float32_and_warnings_never_reach_the_user(recwarn):
    x = gradcli.tensor([-1.0, 0.0, 1e30])
    for name in ["exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "asin", "acosh",
                 "erf", "expm1", "log1p"]:
        assert getattr(x, name)().dtype == gradcli.float32, name
    assert not recwarn.list


def test_relu_and_abs_have_zero_gradient_at_zero():
    x = leaf(0.0, 0.0)
    (x.relu() + x.abs()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_clamp_passes_the_gradient_at_the_boundary_and_stops_it_outside():
    x = leaf(-1.0, 0.0, 0.5, 1.0, 2.0)
    x.clamp(0, 1).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clamp_with_tensor_bounds_sends_the_gradient_to_the_active_bound():
    x, lo, hi = leaf(-1.0, 0.5, 2.0), leaf(0.0, 0.0, 0.0), leaf(1.0, 1.0, 1.0)
    x.clamp(lo, hi).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    assert lo.grad.tolist() == [1.0, 0.0, 0.0] and hi.grad.tolist() == [0.0, 0.0, 1.0]


def test_maximum_splits_the_gradient_at_ties():
    a, b = leaf(1.0, 2.0), leaf(1.0, 3.0)
    gradcli.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0] and b.grad.tolist() == [0.5, 1.0]


def test_where_method_takes_condition_then_other():
    x = leaf(1.0, -1.0)
    assert x.where(x > 0, 5.0).tolist() == [1.0, 5.0]


def test_fill_and_copy_bump_the_version_and_send_gradients_to_the_source():
    x = leaf(1.0, 2.0)
    y = gradcli.zeros(2)
    y.copy_(x)
    assert y._counter[0] == 1 and y.requires_grad
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    v = leaf(2.0)[0]
    z = gradcli.zeros(3)
    z.fill_(v)
    z.sum().backward()


def test_leaf_inplace_errors():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation."):
        leaf(1.0).clamp_(0, 1)


def test_error_messages():
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="torch.clamp: At least one of 'min' or 'max' must not be None"):
        x.clamp()
    with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        gradcli.maximum(x, 2)
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but "
                                           "got a tensor with dtype Long"):
        gradcli.where(gradcli.tensor([1, 0]), x, x)
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got "
                                           "tensor with 1 dimensions."):
        gradcli.zeros(2).fill_(gradcli.ones(2))
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        gradcli.tensor([1]).frac()


def test_gelu_matches_its_closed_form():
    x = gradcli.tensor([-1.0, 0.0, 1.0], dtype=gradcli.float64)
    expected = [0.5 * v * (1 + np.tanh(0)) if v == 0 else None for v in (-1.0, 0.0, 1.0)]
    assert F.gelu(x).tolist()[1] == expected[1]
    np.testing.assert_allclose(F.gelu(x).tolist(), [-0.15865525393145707, 0.0, 0.8413447460685429])


def test_where_with_only_a_condition_is_nonzero_as_tuple():
    x = gradcli.tensor([[1.0, 3.0], [4.0, 0.0]])
    rows, cols = gradcli.where(x > 2)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert [t.tolist() for t in gradcli.where(x)] == [[0, 0, 1], [0, 1, 0]]  # nonzero elements
