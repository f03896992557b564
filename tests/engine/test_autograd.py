"""The autograd namespace and anomaly detection."""

import warnings

import pytest

import gradcli as torch
from gradcli.engine.graph import AnomalyMode


def test_namespace():
    for name in ["backward", "grad", "Function", "functional", "forward_ad", "gradcheck",
                 "gradgradcheck", "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled"]:
        assert hasattr(torch.autograd, name), name
    assert callable(torch.autograd.gradcheck)


def test_set_detect_anomaly_as_function_and_context_manager():
    assert not torch.autograd.is_anomaly_enabled()
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.autograd.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert AnomalyMode.enabled and not AnomalyMode.check_nan
    assert not AnomalyMode.enabled and AnomalyMode.check_nan


def test_nan_in_backward_raises_after_warning_with_location():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        manager = torch.autograd.detect_anomaly()
    with manager:
        y = (x / x).sum()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError) as err:
                y.backward()
    assert str(err.value) == "Function 'DivBackward0' returned nan values in its 1th output."
    message = str(caught[0].message)
    assert message.startswith("Error detected in DivBackward0. Traceback of forward call that "
                              "caused the error:\n")
    assert "test_autograd.py" in message
    assert not torch.autograd.is_anomaly_enabled()


def test_anomaly_location_hook_names_the_program_line():
    x = torch.tensor([0.0], requires_grad=True)
    AnomalyMode.location = lambda: "  line 3: y = x / x"
    try:
        with torch.autograd.set_detect_anomaly(True):
            y = x / x
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with pytest.raises(RuntimeError, match="returned nan values"):
                    y.backward()
    finally:
        AnomalyMode.location = None
    assert str(caught[0].message).endswith(
        "error:\n  line 3: y = x / x (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)")


def test_without_anomaly_mode_nan_gradients_pass_through():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    (x / x).sum().backward()
    assert str(x.grad) == "tensor([nan, 0.])"


def test_gradient_edge_with_materialize_grads_is_refused_clearly():
    """As PyTorch: refused only for an edge that gets no gradient (whose zero has no shape)."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    edge = torch.autograd.graph.get_gradient_edge(y)
    (g,) = torch.autograd.grad((y * 3).sum(), [edge], materialize_grads=True, retain_graph=True)
    assert g.tolist() == [3.0, 3.0]
    unused = torch.autograd.graph.get_gradient_edge(x * 5)
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used when the given "
                                           "input is a GradientEdge"):
        torch.autograd.grad((y * 3).sum(), [x, unused], materialize_grads=True)
    (g,) = torch.autograd.grad((y * 3).sum(), edge)
    assert g.tolist() == [3.0, 3.0]
