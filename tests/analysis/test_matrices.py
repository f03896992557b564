"""gradcli/analysis/matrices.py: the Jacobian and Hessian blocks of a program with respect to
its --at inputs, against torch.autograd.functional's (the oracle fixture: golden answers without
torch)."""

import numpy as np
import pytest

import gradcli
from gradcli.analysis.evaluate import UsageError, parse_binding
from gradcli.analysis.matrices import hessian_blocks, jacobian_blocks

AT = {"x": [0.3, -1.2, 2.0], "w": [0.5, 1.5, -0.25]}
JACOBIAN_PROGRAM = "y = tanh(x) * w.sum()\nz = (x * w).sum()"
HESSIAN_PROGRAM = "f = (x ** 3 * w).sum() + (x * w).sin().sum()"


@pytest.fixture(autouse=True)
def _float32_afterwards():
    yield
    gradcli.set_default_dtype(gradcli.float32)


def _bindings():
    return [parse_binding(f"{name}={value}") for name, value in AT.items()]


def _torch_jacobian(torch):
    x, w = (torch.tensor(v, dtype=torch.float64) for v in AT.values())
    rows = torch.autograd.functional.jacobian(
        lambda x, w: (torch.tanh(x) * w.sum(), (x * w).sum()), (x, w))
    return [[block.numpy() for block in row] for row in rows]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_jacobian_blocks_are_pytorchs(mode, oracle):
    outputs, blocks = jacobian_blocks(JACOBIAN_PROGRAM, _bindings(), ("y", "z"), mode,
                                      gradcli.float64, None)
    assert outputs == ["y", "z"]
    assert [key for key, _ in blocks] == [("y", "x"), ("y", "w"), ("z", "x"), ("z", "w")]
    expected = oracle(_torch_jacobian)
    for (key, block), want in zip(blocks, [b for row in expected for b in row], strict=True):
        assert block.dtype == gradcli.float64
        np.testing.assert_allclose(block.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=key)


def test_hessian_blocks_are_pytorchs(oracle):
    outputs, blocks = hessian_blocks(HESSIAN_PROGRAM, _bindings(), (), gradcli.float64, None)
    assert outputs == ["f"]
    assert [key for key, _ in blocks] == [("f", "x", "x"), ("f", "x", "w"), ("f", "w", "x"),
                                          ("f", "w", "w")]

    def torch_hessian(torch):
        inputs = tuple(torch.tensor(v, dtype=torch.float64) for v in AT.values())
        rows = torch.autograd.functional.hessian(
            lambda x, w: (x ** 3 * w).sum() + (x * w).sin().sum(), inputs)
        return [[block.numpy() for block in row] for row in rows]
    expected = oracle(torch_hessian)
    for (key, block), want in zip(blocks, [b for row in expected for b in row], strict=True):
        np.testing.assert_allclose(block.numpy(), want, rtol=1e-12, atol=1e-14, err_msg=key)


def test_the_last_output_is_the_default():
    outputs, blocks = jacobian_blocks(JACOBIAN_PROGRAM, _bindings(), (), "reverse",
                                      gradcli.float64, None)
    assert outputs == ["z"] and [key for key, _ in blocks] == [("z", "x"), ("z", "w")]
    np.testing.assert_allclose(blocks[0][1].numpy(), AT["w"])


def test_a_hessian_needs_one_scalar_output():
    with pytest.raises(UsageError, match=r"hessian needs a scalar output; y has shape \[3\]"):
        hessian_blocks("y = x * w", _bindings(), (), gradcli.float64, None)
    with pytest.raises(UsageError, match=r"hessian takes one output \(--of NAME\)"):
        hessian_blocks(JACOBIAN_PROGRAM, _bindings(), ("y", "z"), gradcli.float64, None)


def test_inputs_are_required():
    with pytest.raises(UsageError, match="give the inputs with --at NAME=VALUE"):
        jacobian_blocks("y = 2", [], (), "reverse", None, None)
