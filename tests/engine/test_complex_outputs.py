"""A complex output needs an explicit gradient: backward() and autograd.grad without one raise
PyTorch's error (gradcli's gradients of complex functions are not PyTorch's conjugate
Wirtinger ones: see the closing notes of the 2026-11-23 sessions)."""

import pytest

import gradcli


def _errors(T):
    x = T.tensor(1 + 2j, requires_grad=True)
    out = []
    for call in (lambda: (x * x).backward(), lambda: T.autograd.grad(x * x, x)):
        with pytest.raises(RuntimeError) as e:
            call()
        out.append(str(e.value))
    return out


def test_implicit_gradient_of_a_complex_scalar_is_an_error():
    assert all(m.startswith("grad can be implicitly created only for real scalar outputs")
               for m in _errors(gradcli))


def test_the_error_matches_pytorch(oracle):
    assert _errors(gradcli) == oracle(_errors)


@pytest.mark.parametrize("call", [
    lambda x: (x * x).backward(gradcli.tensor(1 + 0j)),
    lambda x: (x * x).abs().backward(),
    lambda x: gradcli.autograd.grad((x * x).abs(), x),
])
def test_gradients_of_complex_tensors_are_refused_not_wrong(call):
    """PyTorch gives (x*x).abs()'s gradient at 1+2j as 2+4j by its conjugate Wirtinger calculus;
    gradcli's formulas have no conjugation, so it says so instead of giving another number."""
    x = gradcli.tensor(1 + 2j, requires_grad=True)
    with pytest.raises(RuntimeError, match="no gradients for complex tensors"):
        call(x)
    assert x.grad is None
