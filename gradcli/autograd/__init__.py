"""torch.autograd: backward, grad, custom Functions, the functional API, forward-mode AD,
gradcheck and anomaly detection."""

from . import batched, forward_ad, function, functional, graph  # noqa: F401  (submodules)
from . import gradcheck as _gradcheck_module  # noqa: F401  (loaded first: the name is the function)
from ..engine.anomaly import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                              set_detect_anomaly)
from ..engine.autograd import backward, grad
from .function import Function, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "once_differentiable", "functional", "forward_ad",
           "function", "graph", "gradcheck", "gradgradcheck", "GradcheckError",
           "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]
