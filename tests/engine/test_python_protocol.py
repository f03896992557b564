"""Tensors in Python's protocols as PyTorch's: & | ^ are bitwise on integers and bools,
operators give NotImplemented to operands they cannot take, int()/float()/complex() word their
errors as PyTorch and float() warns once about requires_grad, layout and storage_offset."""

import warnings

import pytest

import gradcli

CASES = {
    "or_int": lambda T: T.tensor([1, 2, 6]) | 2,
    "and_int": lambda T: T.tensor([1, 2, 6]) & 3,
    "xor_int": lambda T: T.tensor([1, 2, 6]) ^ 5,
    "ror": lambda T: 2 | T.tensor([1, 2, 6]),
    "or_bool": lambda T: T.tensor([True, False]) | T.tensor([False, False]),
    "int_or_bool": lambda T: T.tensor([1, 2, 6]) | T.tensor([True, False, True]),
    "xor_bool_scalar": lambda T: T.tensor([1, 2, 6]) ^ True,
    "bitwise_and_fn": lambda T: T.bitwise_and(T.tensor([5, 6]), T.tensor([3, 3])),
    "or_float": lambda T: T.ones(2) | 1,
    "or_python_float": lambda T: T.bitwise_or(T.tensor([1, 2]), 2.5),
    "or_double": lambda T: T.tensor([1, 2]) | T.ones(2, dtype=T.float64),
    "add_str": lambda T: T.ones(2) + "a",
    "radd_str": lambda T: "a" + T.ones(2),
    "mul_none": lambda T: T.ones(2) * None,
    "matmul_int": lambda T: T.ones(2) @ 3,
    "method_add_str": lambda T: T.ones(2).add("a"),
    "int_of_two": lambda T: int(T.tensor([1., 2.])),
    "float_of_two": lambda T: float(T.tensor([1., 2.])),
    "int_of_one": lambda T: int(T.tensor([7.9])),
    "float_of_one": lambda T: float(T.tensor([[2.5]])),
    "complex_of_one": lambda T: complex(T.tensor(1.5)),
    "layout": lambda T: repr(T.ones(2).layout),
    "strided": lambda T: repr(T.strided),
    "offset_base": lambda T: T.ones(3, 4).storage_offset(),
    "offset_view": lambda T: T.ones(3, 4)[1:, 2].storage_offset(),
    "ior": lambda T: _ior(T),
}


def _ior(T):
    c = T.tensor([1, 2])
    c |= 4
    return c


def outcome(T, name):
    try:
        value = CASES[name](T)
    except Exception as e:  # noqa: BLE001  (the error is the outcome)
        return (type(e).__name__, str(e))
    return ("value", value.tolist() if hasattr(value, "tolist") else value)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_pytorch(name, oracle):
    assert outcome(gradcli, name) == oracle(lambda torch: outcome(torch, name))


def test_bitwise_operators():
    assert (gradcli.tensor([1, 2, 6]) | 2).tolist() == [3, 2, 6]
    assert (gradcli.tensor([1, 2, 6]) & 3).tolist() == [1, 2, 2]
    with pytest.raises(NotImplementedError, match="\"bitwise_or_cpu\" not implemented for 'Float'"):
        gradcli.ones(2) | 1


def test_unsupported_operand_is_pythons_error():
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'str'"):
        gradcli.ones(2) + "a"


def test_float_of_a_tensor_that_requires_grad_warns_once():
    gradcli.Tensor._warned_scalar = False
    x = gradcli.tensor([1.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert float(x) == 1.5
        assert float(x) == 1.5
        assert int(x) == 1
    assert [str(w.message).splitlines()[0] for w in caught] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
        "behavior."]


def test_grad_fn_metadata_is_a_dict_of_the_node():
    x = gradcli.tensor(1., requires_grad=True)
    y = x * 2
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["note"] = 1
    assert y.grad_fn.metadata == {"note": 1}
