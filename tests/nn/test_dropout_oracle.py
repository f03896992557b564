"""Dropout against PyTorch: the noise drawn after torch.manual_seed, bit for bit (values and
what the generator draws next), for F.dropout, alpha_dropout, feature_alpha_dropout,
dropout1d/2d/3d, torch.feature_dropout, torch.native_dropout and nn.Dropout, on contiguous
and transposed inputs in float32 and float64; the node each leaves (MulBackward0 saving the
input and the noise; in place, the input's own node; out of training the input itself;
NativeDropoutBackward0), the gradients, the errors and warnings.

PyTorch draws its Bernoulli noise with MKL's generator on Intel CPUs and with its portable
kernel elsewhere; gradcli draws as the portable kernel does, which the golden answers record
(made on an AMD CPU).  On an Intel CPU the live torch draws otherwise, so the draw tests skip
there when torch is installed (without torch the golden answers still check gradcli)."""

import numpy as np
import pytest

import gradcli
from golden import torch_module


def _intel_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read(4096)
    except OSError:
        return False


DRAWS = {
    "ones20": "F.dropout(torch.ones(20), 0.5)",
    "p03_f64": "F.dropout(torch.ones(7, 5, dtype=torch.float64), 0.3)",
    "p09_long": "F.dropout(torch.arange(1000.), 0.9)",
    "p01_seed5": "F.dropout(torch.full((3, 4), 2.5), 0.1)",
    "transposed": "F.dropout(torch.arange(12.).reshape(3, 4).t(), 0.5)",
    "sliced": "F.dropout(torch.arange(24.).reshape(4, 6)[:, ::2], 0.4)",
    "module": "torch.nn.Dropout(0.25)(torch.ones(2, 8))",
    "inplace": "F.dropout(torch.ones(10), 0.5, inplace=True)",
    "alpha": "F.alpha_dropout(torch.linspace(-1, 1, 9), 0.3, True)",
    "alpha_f64": "F.alpha_dropout(torch.linspace(-1, 1, 9, dtype=torch.float64), 0.5, True)",
    "feature": "torch.feature_dropout(torch.ones(3, 4, 2), 0.5, True)",
    "feature_alpha": "F.feature_alpha_dropout(torch.ones(2, 5, 3), 0.4, True)",
    "torch_dropout_": "torch.dropout_(torch.ones(6), 0.5, True)",
    "twice": "F.dropout(torch.ones(5), 0.5) + F.dropout(torch.ones(5), 0.5)",
    "native": "torch.native_dropout(torch.ones(20), 0.5, True)[0]",
    "native_mask": "torch.native_dropout(torch.ones(4, 5).t(), 0.3, True)[1].float()",
    "dropout1d": "F.dropout1d(torch.ones(2, 3, 4), 0.5)",
    "dropout1d_unbatched": "F.dropout1d(torch.ones(3, 4), 0.5)",
    "dropout2d": "torch.nn.Dropout2d(0.4)(torch.ones(2, 3, 2, 2))",
    "dropout3d": "F.dropout3d(torch.ones(3, 2, 2, 2), 0.5, inplace=True)",
}


def draw(lib, name, seed=0):
    lib.manual_seed(seed if name != "p01_seed5" else 5)
    y = eval(DRAWS[name], {"torch": lib, "F": lib.nn.functional})
    after = lib.rand(3)  # (the generator moved on as far as PyTorch's did)
    return [str(y.dtype), list(y.shape), y.flatten().tolist(), after.tolist()]


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_dropout_draws_pytorchs_noise_bit_for_bit(name, oracle):
    if torch_module() is not None and _intel_cpu():
        pytest.skip("PyTorch draws Bernoulli noise with MKL on Intel CPUs (gradcli: the "
                    "portable kernel's draws)")
    assert draw(gradcli, name) == oracle(lambda torch: draw(torch, name))


# ------------------------------------------------------------------ nodes, saved values, grads

GRAPHS = {
    "train": "F.dropout(x, 0.4)",
    "train_nonleaf": "F.dropout(x * 2, 0.5)",
    "eval": "F.dropout(x, 0.4, training=False)",
    "eval_nonleaf": "F.dropout(x * 2, 0.5, False)",
    "p0": "F.dropout(x * 2, 0.0)",
    "p1": "F.dropout(x, 1.0)",
    "inplace": "F.dropout(x * 2, 0.5, inplace=True)",
    "inplace_eval": "F.dropout(x * 2, 0.5, False, True)",
    "module_train": "torch.nn.Dropout(0.3)(x)",
    "module_eval": "torch.nn.Dropout(0.3).eval()(x)",
    "alpha": "F.alpha_dropout(x, 0.3, True)",
    "alpha_eval": "F.alpha_dropout(x, 0.3)",
    "feature_alpha": "F.feature_alpha_dropout(x, 0.5, True)",
    "feature": "torch.feature_dropout(x, 0.5, True)",
    "empty": "F.dropout(x[:0], 0.5)",
    "dropout1d": "F.dropout1d(x, 0.5)",
    "dropout1d_inplace": "F.dropout1d(x * 1, 0.5, inplace=True)",
    "dropout2d_eval": "torch.nn.Dropout2d().eval()(x)",
    "native": "torch.native_dropout(x, 0.4, True)[0]",
    "native_eval": "torch.native_dropout(x * 2, 0.4, False)[0]",
    "native_none": "torch.native_dropout(x, 0.5, None)[0]",
    "native_p1": "torch.native_dropout(x, 1.0, True)[0]",
}


def _graph(fn):
    if fn is None:
        return None
    return (fn.name(),) + tuple(_graph(n) for n, _ in fn.next_functions)


def node_report(lib, name):
    lib.manual_seed(2)
    x = lib.tensor([[0.5, -1.5, 2.0], [1.25, -0.75, 3.0]], dtype=lib.float64,
                   requires_grad=True)
    y = eval(GRAPHS[name], {"torch": lib, "F": lib.nn.functional, "x": x})
    fn = y.grad_fn
    saved = {}
    for key in sorted(k for k in dir(fn) if k.startswith("_saved_")) if fn is not None else ():
        value = getattr(fn, key)
        saved[key] = (value.tolist() if isinstance(value, lib.Tensor) else repr(value))
    report = {"graph": _graph(fn), "is_input": y is x, "saved": saved, "version": y._version,
              "value": y.tolist()}
    if y.requires_grad and y.numel():
        report["grad"] = lib.autograd.grad((y * y).sum(), x)[0].tolist()
    return report


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_dropout_nodes_match_pytorch(name, oracle):
    if torch_module() is not None and _intel_cpu():
        pytest.skip("PyTorch draws Bernoulli noise with MKL on Intel CPUs")
    assert node_report(gradcli, name) == oracle(lambda torch: node_report(torch, name))


ERRORS = {
    "F_p_above_1": "F.dropout(x, 1.5)",
    "F_p_negative": "F.alpha_dropout(x, -0.1, True)",
    "torch_p_above_1": "torch.dropout(x, 2.0, True)",
    "torch_p_fraction": "torch.alpha_dropout_(x, 1.25, True)",
    "module_p": "torch.nn.Dropout(3)",
    "feature_1d": "torch.feature_dropout(x, 0.5, True)",
    "feature_alpha_1d": "F.feature_alpha_dropout(x, 0.5, True)",
    "long_input": "torch.dropout(torch.ones(3, dtype=torch.long), 0.5, True)",
    "leaf_inplace": "F.dropout(x.requires_grad_(), 0.5, inplace=True)",
    "dropout1d_1d": "F.dropout1d(x, 0.5)",
    "dropout2d_p": "F.dropout2d(x, -1)",
    "native_p": "torch.native_dropout(x, 1.5, True)",
}


WARNED = {"dropout2d_2d": "F.dropout2d(torch.ones(3, 4), 0.5)",
          "dropout2d_3d": "F.dropout2d(torch.ones(2, 3, 4), 0.5)",
          "dropout3d_3d": "F.dropout3d(torch.ones(2, 3, 4), 0.5, training=False)",
          "dropout2d_4d": "F.dropout2d(torch.ones(1, 2, 3, 4), 0.5)"}


def warnings_of(lib, name):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = eval(WARNED[name], {"torch": lib, "F": lib.nn.functional})
    return [list(y.shape), [str(w.message) for w in caught]]


@pytest.mark.parametrize("name", sorted(WARNED))
def test_channel_dropout_warns_as_pytorch(name, oracle):
    assert warnings_of(gradcli, name) == oracle(lambda torch: warnings_of(torch, name))


def error_of(lib, name):
    x = lib.ones(4)
    try:
        eval(ERRORS[name], {"torch": lib, "F": lib.nn.functional, "x": x})
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return [type(e).__name__, str(e)]
    return None


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_dropout_errors_match_pytorch(name, oracle):
    assert error_of(gradcli, name) == oracle(lambda torch: error_of(torch, name))


def test_dropout_modules_and_functions_are_there():
    F = gradcli.nn.functional
    assert repr(gradcli.nn.Dropout(0.2, inplace=True)) == "Dropout(p=0.2, inplace=True)"
    assert repr(gradcli.nn.AlphaDropout()) == "AlphaDropout(p=0.5, inplace=False)"
    m = gradcli.nn.Sequential(gradcli.nn.Linear(3, 3), gradcli.nn.Dropout())
    assert m.training and m[1].training
    m.eval()
    assert not m[1].training
    x = gradcli.ones(3)
    assert F.dropout(x, 0.5, training=False) is x
    for name in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
        assert name in F.__all__
