"""Factories asked for requires_grad on an integer dtype fail with PyTorch's factory wording
(capitalised, unlike requires_grad_()'s); the anomaly switches are in the top namespace."""

import pytest

import gradcli

FACTORY_CALLS = {
    "zeros_long": lambda T: T.zeros(3, dtype=T.long, requires_grad=True),
    "arange": lambda T: T.arange(3, requires_grad=True),
    "ones_int32": lambda T: T.ones(2, dtype=T.int32, requires_grad=True),
    "tensor_of_ints": lambda T: T.tensor([1, 2], requires_grad=True),
    "full_int": lambda T: T.full((2,), 3, requires_grad=True),
    "randint": lambda T: T.randint(3, (2,), requires_grad=True),
}


@pytest.mark.parametrize("name", list(FACTORY_CALLS))
def test_integer_factory_with_requires_grad(name):
    with pytest.raises(RuntimeError) as e:
        FACTORY_CALLS[name](gradcli)
    assert str(e.value) == "Only Tensors of floating point and complex dtype can require gradients"


@pytest.mark.parametrize("name", list(FACTORY_CALLS))
def test_integer_factory_matches_pytorch(name, oracle):
    def error(lib):
        with pytest.raises(RuntimeError) as raised:
            FACTORY_CALLS[name](lib)
        return str(raised.value)
    assert error(gradcli) == oracle(error)


def test_requires_grad_method_keeps_its_own_wording():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require"):
        gradcli.tensor([1, 2]).requires_grad_()


def test_anomaly_switches_in_the_top_namespace():
    assert gradcli.is_anomaly_enabled() is False
    with gradcli.autograd.detect_anomaly():
        assert gradcli.is_anomaly_enabled() is True
        assert gradcli.is_anomaly_check_nan_enabled() is True
    assert gradcli.is_anomaly_enabled() is False
