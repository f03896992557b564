"""torch.autograd: backward, grad, custom Functions, the functional API, forward-mode AD,
gradcheck and anomaly detection.

The submodules a program rarely uses (functional, forward_ad, graph) load at their first
use (this module's __getattr__): a one-shot `gradcli eval` needs none of them."""

import importlib as _importlib

from . import batched, function  # noqa: F401  (submodules; batched: is_grads_batched)
from . import gradcheck as _gradcheck_module  # noqa: F401  (loaded first: the name is the function)
from ..engine.anomaly import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                              set_detect_anomaly)
from ..engine.autograd import backward, grad
from ..engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from .function import Function, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

from ..lazy_modules import AUTOGRAD_SUBMODULES as _LAZY_SUBMODULES  # noqa: E402

__all__ = ["backward", "grad", "Function", "once_differentiable", "functional", "forward_ad",
           "function", "graph", "gradcheck", "gradgradcheck", "GradcheckError",
           "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "Variable", "set_grad_enabled",
           "no_grad", "enable_grad", "inference_mode"]


def __getattr__(name):
    if name not in _LAZY_SUBMODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _importlib.import_module(f"{__name__}.{name}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
