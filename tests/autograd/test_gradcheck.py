"""gradcheck / gradgradcheck: finite differences against autograd, with PyTorch's report."""

import pytest

import gradcli as torch
from gradcli.autograd import GradcheckError, gradcheck, gradgradcheck


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x


def double(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def test_correct_derivatives_pass():
    x = double([0.3, 1.2])
    assert gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    assert gradcheck(lambda a, b: (a * b, a + b), (x, double(3.0)))
    assert gradcheck(lambda t: t.exp(), x, check_forward_ad=True)
    assert gradgradcheck(lambda t: t.sin() * t, (x,))


def test_mismatch_report_is_pytorchs():
    x = double([1.0, 2.0])
    with pytest.raises(GradcheckError) as err:
        gradcheck(WrongSquare.apply, (x,))
    assert isinstance(err.value, RuntimeError)
    assert str(err.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=torch.float64)\n"
        "analytical:tensor([[3., 0.],\n        [0., 6.]], dtype=torch.float64)\n")
    assert gradcheck(WrongSquare.apply, (x,), raise_exception=False) is False


def test_forward_mode_mismatch_is_reported_as_such():
    class WrongJvp(WrongSquare):
        @staticmethod
        def jvp(ctx, t):
            return t * 0

    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gradcheck(WrongJvp.apply, (double([1.0]),), check_forward_ad=True,
                  check_backward_ad=False)


def test_float32_inputs_warn_and_no_grad_inputs_fail():
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double "
                                         "precision floating point or complex."):
        gradcheck(lambda t: t * 2, (torch.tensor([1.0], requires_grad=True),), eps=1e-3,
                  atol=1e-2)
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor"):
        gradcheck(lambda t: t * 2, (torch.tensor([1.0], dtype=torch.float64),))


def test_gradgradcheck_detects_wrong_second_derivative():
    class WrongSecond(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2

    x = double([0.5, 1.5])
    assert gradcheck(WrongSecond.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(WrongSecond.apply, (x,))
