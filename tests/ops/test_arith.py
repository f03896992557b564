"""Arithmetic: type promotion (int tensors with float numbers, float32 with float64, 0-d against
n-d), alpha= and rounding_mode=, the reflected operators and their nodes (`2 - x` is
RsubBackward1, `2 / x` is reciprocal then mul, `2 ** x` PowBackward2), integer division by zero
and integer powers.  Programs run against gradcli and, when installed, PyTorch; the plain
specifications below need no torch."""

import numpy as np
import pytest

import gradcli

from op_oracle import assert_same, run

PROGRAMS = {
    # promotion
    "int_plus_float_number": "torch.tensor([1, 2, 3]) + 1.5",
    "int_times_int_number": "torch.tensor([1, 2, 3]) * 2",
    "int_div_int": "torch.tensor([1, 2, 3]) / torch.tensor([2, 2, 2])",
    "bool_plus_int": "torch.tensor([True, False]) + 1",
    "bool_times_float": "torch.tensor([True, False]) * 2.5",
    "float32_plus_float64": "x + x.double()",
    "float32_vector_plus_float64_0d": "x + torch.tensor(1.5, dtype=torch.float64)",
    "float64_0d_plus_float32_vector_grad": "s.double() * v",
    "int_vector_plus_float64_0d": "torch.tensor([1, 2]) + torch.tensor(1.5, dtype=torch.float64)",
    "float32_plus_int64": "v + torch.tensor([1, 2, 3, 4])",
    "float_number_keeps_float32": "x * 0.1",
    # alpha, rounding modes
    "add_alpha": "x.add(v, alpha=2.5)",
    "sub_alpha": "x.sub(v, alpha=2)",
    "add_number_alpha": "x.add(2, alpha=3)",
    "int_alpha_float_error": "torch.tensor([1, 2]).add(torch.tensor([1, 2]), alpha=2.5)",
    "bool_sub_error": "torch.tensor([True]) - torch.tensor([True])",
    "bool_neg_error": "-torch.tensor([True])",
    "div_floor": "x.div(v, rounding_mode='floor')",
    "div_trunc": "x.div(2, rounding_mode='trunc')",
    "div_trunc_int": "torch.tensor([-7, 7]).div(2, rounding_mode='trunc')",
    "div_floor_int": "torch.tensor([-7, 7]).div(2, rounding_mode='floor')",
    "div_bad_mode": "x.div(2, rounding_mode='round')",
    "divide_alias": "torch.divide(x, v)",
    "true_divide_int": "torch.true_divide(torch.tensor([3]), 2)",
    # reflected operators
    "rsub_number": "2 - x",
    "rsub_tensors": "torch.rsub(x, v)",
    "rsub_alpha": "torch.rsub(x, 2, alpha=3)",
    "rdiv_number": "2 / x",
    "rdiv_int_tensor": "2 / torch.tensor([1, 2, 4])",
    "rmul": "3 * x",
    "radd": "1 + x",
    "rpow": "2 ** x",
    "rpow_int": "2 ** torch.tensor([1, 2, 3])",
    "rpow_float_int": "2.5 ** torch.tensor([1, 2, 3])",
    "pow_number": "x ** 3",
    "pow_tensor": "x.abs() ** v",
    "pow_zero": "x ** 0",
    "pow_zero_int": "torch.tensor([1, 2, 3]) ** 0",
    "pow_half_int": "torch.tensor([1, 2, 3]) ** 0.5",
    "pow_negative_int_error": "torch.tensor([1, 2, 3]) ** -1",
    "pow_of_zero_tensor": "torch.zeros(3, requires_grad=True) ** v[:3]",
    "square": "x.square()",
    "square_int": "torch.tensor([1, -2]).square()",
    "neg": "-x",
    "negative_alias": "torch.negative(x)",
    # floor division, remainder, fmod
    "floordiv_float": "x.detach() // 0.7",
    "floordiv_int": "torch.tensor([-7, 7]) // 2",
    "floordiv_int_by_float": "torch.tensor([5, 3]) // 2.5",
    "floordiv_int_zero": "torch.tensor([1, 2]) // 0",
    "remainder_int_zero": "torch.tensor([1, 2]) % 0",
    "fmod_int_zero": "torch.tensor([5]).fmod(0)",
    "div_floor_int_zero": "torch.tensor([5]).div(0, rounding_mode='floor')",
    "true_div_int_zero": "torch.tensor([1, 0, -1]) / 0",
    "float_div_zero": "x / 0",
    "remainder_number": "x % 0.7",
    "remainder_tensors": "x % (v.abs() + 0.5)",
    "remainder_negative": "torch.tensor([-7.]) % 3",
    "fmod_number": "x.fmod(0.7)",
    "fmod_tensors": "torch.fmod(x, v.abs() + 0.5)",
    # broadcasting and in place
    "broadcast_error": "x + torch.ones(3)",
    "broadcast_gradient": "x * v + u.sum(1, keepdim=True)",
    "iadd_number": "y = x * 1\ny += 2\ny",
    "imul_tensor": "y = x * 1\ny *= v\ny",
    "idiv": "y = x * 1\ny /= 2\ny",
    "ipow": "y = x * 1\ny **= 2\ny",
    "inplace_int_to_float_error": "y = torch.tensor([1, 2])\ny += 1.5\ny",
    "inplace_float64_into_float32": "y = x * 1\ny += x.double()\ny",
    "leaf_inplace_error": "x.add_(1)",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_matches_pytorch(name, oracle):
    assert_same(run(gradcli, PROGRAMS[name]), oracle(lambda torch: run(torch, PROGRAMS[name])))


# ---------------------------------------------------------------- plain specifications

def leaf(*values):
    return gradcli.tensor(list(values), requires_grad=True)


@pytest.mark.parametrize("expr, name", [
    ("x + 2", "AddBackward0"), ("x - 2", "SubBackward0"), ("2 - x", "RsubBackward1"),
    ("gradcli.rsub(x, x)", "RsubBackward0"), ("x * 2", "MulBackward0"),
    ("x / 2", "DivBackward0"), ("2 / x", "MulBackward0"),
    ("x.div(2, rounding_mode='floor')", "DivBackward2"), ("x ** 2", "PowBackward0"),
    ("x ** x", "PowBackward1"), ("2 ** x", "PowBackward2"), ("x % 2", "RemainderBackward0"),
    ("x % x", "RemainderBackward1"), ("x.fmod(2)", "FmodBackward0"),
    ("x.fmod(x)", "FmodBackward1"), ("x.square()", "PowBackward0"), ("-x", "NegBackward0"),
])
def test_grad_fn_names(expr, name):
    x = leaf(1.0, 2.0, 3.0)
    assert eval(expr).grad_fn.name() == name


def test_reciprocal_division_is_reciprocal_then_mul():
    x = leaf(1.0, 2.0)
    y = 2 / x
    assert [n.name() for n, _ in y.grad_fn.next_functions if n] == ["ReciprocalBackward0"]
    y.sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), [-2.0, -0.5])


@pytest.mark.parametrize("expr, dtype", [
    ("gradcli.tensor([1, 2]) + 1.5", gradcli.float32),
    ("gradcli.tensor([1, 2]) + 1", gradcli.int64),
    ("gradcli.tensor([1, 2]) / 2", gradcli.float32),
    ("gradcli.tensor([1., 2.]) + gradcli.tensor([1., 2.], dtype=gradcli.float64)", gradcli.float64),
    ("gradcli.tensor([1., 2.]) + gradcli.tensor(1., dtype=gradcli.float64)", gradcli.float32),
    ("gradcli.tensor(1.) + gradcli.tensor(1., dtype=gradcli.float64)", gradcli.float64),
    ("gradcli.tensor([True]) + gradcli.tensor([True])", gradcli.bool),
    ("gradcli.tensor([1, 2]) ** 2", gradcli.int64),
    ("2 ** gradcli.tensor([1, 2])", gradcli.int64),
    ("gradcli.tensor([5, 3]) // 2.5", gradcli.float32),
])
def test_type_promotion(expr, dtype):
    assert eval(expr).dtype == dtype


@pytest.mark.parametrize("expr", ["gradcli.tensor([1, 2]) // 0", "gradcli.tensor([1]) % 0",
                                  "gradcli.tensor([1]).fmod(0)",
                                  "gradcli.tensor([1]).div(0, rounding_mode='trunc')"])
def test_integer_division_by_zero_raises(expr):
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        eval(expr)


def test_float_division_by_zero_is_inf_without_warnings(recwarn):
    y = gradcli.tensor([1.0, -1.0, 0.0]) / 0
    assert y.tolist()[:2] == [float("inf"), float("-inf")] and np.isnan(y.tolist()[2])
    assert not recwarn.list


def test_negative_integer_power_of_int_tensor_raises():
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        gradcli.tensor([1, 2]) ** -1


def test_pow_zero_has_zero_gradient():
    x = leaf(0.0, 2.0)
    (x ** 0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_broadcast_error_message():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        gradcli.ones(2, 3) + gradcli.ones(4)


def test_alpha_scales_other_and_its_gradient():
    x, y = leaf(1.0, 2.0), leaf(3.0, 4.0)
    z = x.sub(y, alpha=2)
    assert z.tolist() == [-5.0, -6.0]
    z.sum().backward()
    assert y.grad.tolist() == [-2.0, -2.0] and x.grad.tolist() == [1.0, 1.0]


def test_remainder_gradient_wrt_divisor():
    x, y = leaf(7.0), leaf(2.0)
    (x % y).sum().backward()
    assert x.grad.tolist() == [1.0] and y.grad.tolist() == [-3.0]


def test_float32_stays_float32():
    x = gradcli.tensor([0.1, 0.2])
    for y in (x + 0.1, x * 3, x / 7, x ** 2.5, 1 / x, 2 - x, x // 0.3, x % 0.3):
        assert y.dtype == gradcli.float32
