"""Forward-mode AD: dual levels, dual tensors, tangents through ops, and PyTorch's errors."""

import pytest

import gradcli as torch
import gradcli.autograd.forward_ad as fwAD


def test_tangent_propagates_and_prints():
    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([1., 0.]))"
        y = d.sin() * d
        primal, tangent = fwAD.unpack_dual(y)
        assert repr(y) == "tensor([0.8415, 1.8186], tangent=tensor([1.3818, 0.0000]))"
        assert repr(primal) == "tensor([0.8415, 1.8186])"
        assert repr((d * 3).sum()) == "tensor(9., tangent=3.0)"
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(y).tangent is None and repr(y) == "tensor([0.8415, 1.8186])"


def test_inplace_ops_carry_tangents():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        z = d.clone()
        z.mul_(d)
        assert fwAD.unpack_dual(z).tangent.item() == 4.0


def test_dual_of_leaf_requiring_grad_is_a_view():
    e = torch.tensor(3.0, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(e, torch.tensor(1.0))
        assert d.grad_fn.name() == "ViewBackward0"
        assert fwAD.unpack_dual(d).primal.grad_fn.name() == "Identity"


def test_errors():
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.dual_level().__enter__()
        with pytest.raises(RuntimeError, match="Tensor is of size \\[2\\] while the given forward"):
            fwAD.make_dual(x, torch.tensor([1.0]))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex, "
                                             "but got: torch.int64"):
            fwAD.make_dual(torch.tensor([1, 2]), x)
        d = fwAD.make_dual(x, x)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
            fwAD.make_dual(d, x)


def test_custom_function_jvp():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    class NoJvp(Double):
        jvp = torch.autograd.Function.jvp

    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        assert fwAD.unpack_dual(Double.apply(d)).tangent.item() == 2.0
        with pytest.raises(NotImplementedError, match="must implement the jvp function"):
            NoJvp.apply(d)
